/* The context suite (tests/common/suite_context.c) for cl_nv_d3d11_sharing. */
#include "suites.h"

int main(void)
{
    suite_context(&api_d3d11_nv);
    return test_finish("d3d11_nv_context");
}
