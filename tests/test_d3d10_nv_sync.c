/* The sync suite (tests/common/suite_sync.c) for cl_nv_d3d10_sharing. */
#include "suites.h"

int main(void)
{
    suite_sync(&api_d3d10_nv);
    return test_finish("d3d10_nv_sync");
}
