/* A library only the fake host root of native.host_icds has: what a host driver needs and
 * the container lacks (tests/native/test_host_icds.c). */
int dxcl_probe_dep(void);
int dxcl_probe_dep(void)
{
    return 41;
}
