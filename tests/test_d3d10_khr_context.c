/* The context suite (tests/common/suite_context.c) for cl_khr_d3d10_sharing, on an
 * ID3D10Device and on an ID3D10Device1 (created with D3D10CreateDevice1). */
#include "suites.h"

int main(void)
{
    suite_context(&api_d3d10_khr);
    suite_context(&api_d3d10_1_khr);
    return test_finish("d3d10_khr_context");
}
