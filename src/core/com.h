/* COM helpers shared by the backends. */
#ifndef DXCL_COM_H
#define DXCL_COM_H

#include "core/common.h"

/* QueryInterface that survives a pointer which is not a COM object at all (a program passing
 * the wrong pointer must get an error code, not a crash): the object, its vtable and the
 * QueryInterface entry are checked to be mapped memory first. E_POINTER otherwise. */
HRESULT dxcl_query_interface(const void *object, REFIID iid, void **out);
/* True when a and b are the same COM object (same IUnknown identity); false if either is NULL. */
bool dxcl_same_object(IUnknown *a, IUnknown *b);

#endif
