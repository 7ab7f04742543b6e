/* dxcl's test-only exports: in the test build (DXCL_TEST_HOOKS, build/bin/OpenCL.dll, which the
 * tests load), never in the shipped one (build/release/OpenCL.dll, make dist), and not in the
 * public include/dxcl/dxcl.h. Test programs find them with GetProcAddress, as they find dxcl's
 * public exports (docs/reliability.md, "Fault injection"). */
#ifndef DXCL_TEST_HOOKS_H
#define DXCL_TEST_HOOKS_H

#include <CL/cl.h>

/* Fault injection for reliability tests (core/fault.h): the nth pass from now through `point`
 * ("lock", "upload", "download", "staging", "alloc", "chain", "convert") fails once with the
 * spec's error ("move": the nth D3D10/D3D11 staging map returns another address, which
 * nothing may fail on); nth 0 disarms. *fired_before receives how many faults the point has
 * injected so far. The environment variable DXCL_FAULT=point:nth[,point:nth...] arms the same at
 * load. CL_INVALID_VALUE for an unknown point. */
typedef cl_int(CL_API_CALL *dxclFaultArm_fn)(const char *point, cl_uint nth, cl_uint *fired_before);

#endif
