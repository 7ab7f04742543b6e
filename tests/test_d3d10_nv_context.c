/* The context suite (tests/common/suite_context.c) for cl_nv_d3d10_sharing. */
#include "suites.h"

int main(void)
{
    suite_context(&api_d3d10_nv);
    return test_finish("d3d10_nv_context");
}
