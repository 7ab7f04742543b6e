/* The threads suite (tests/common/suite_threads.c) for cl_khr_d3d10_sharing. */
#include "suites.h"

int main(void)
{
    suite_threads(&api_d3d10_khr);
    return test_finish("d3d10_khr_threads");
}
