/* The lifetime suite (tests/common/suite_lifetime.c) for cl_nv_d3d10_sharing. */
#include "suites.h"

int main(void)
{
    suite_lifetime(&api_d3d10_nv);
    return test_finish("d3d10_nv_lifetime");
}
