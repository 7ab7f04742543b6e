/* Binding the program's imports of forwarded functions straight to the driver, an opt-in
 * setting: what a PE forwarder export would do, which dxcl cannot use (the driver is chosen
 * at run time). */
#ifndef DXCL_PROXY_BIND_IMPORTS_H
#define DXCL_PROXY_BIND_IMPORTS_H

#include "core/common.h"

/* One forwarded export of dxcl and the driver's function it jumps to. */
struct dxcl_import_binding {
    const void *export_fn;
    const void *driver_fn;
};

/* With DXCL_BIND_IMPORTS=1 (off by default): in every module loaded now, each import slot of
 * dxcl's module that holds one of these exports gets the driver's function instead. Modules
 * loaded later, and callers through GetProcAddress, keep dxcl's export (one jump more), and so
 * does every module whose headers or import table fail a check (an RVA beyond its SizeOfImage,
 * a page that cannot be read). Returns the number of slots rewritten. */
unsigned dxcl_bind_imports(const struct dxcl_import_binding *bindings, size_t count);

#endif
