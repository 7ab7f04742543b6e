/* The seams part of the roundtrip suite (tests/common/suite_roundtrip.c) for
 * cl_khr_d3d10_sharing: every DXGI format through ordinary images of the spec's format. */
#include "suites.h"

int main(void)
{
    suite_roundtrip_seams(&api_d3d10_khr);
    return test_finish("d3d10_khr_seams");
}
