/* The driver's extension functions as dxcl hands them to the program (driver_extensions.c). */
#ifndef DXCL_DRIVER_EXTENSIONS_H
#define DXCL_DRIVER_EXTENSIONS_H

/* What the program gets for the driver's extension function `name` at `address`: a wrapper
 * that keeps shared objects behind the enqueue guard, NULL for one dxcl cannot keep so, else
 * `address` itself. */
void *dxcl_driver_extension(const char *name, void *address);

#endif
