/* The acquire suite (tests/common/suite_acquire.c) for cl_nv_d3d10_sharing. */
#include "suites.h"

int main(void)
{
    suite_acquire(&api_d3d10_nv);
    return test_finish("d3d10_nv_acquire");
}
