/* The library a host .icd file of native.host_icds names: it needs host_dep.c's library, which
 * is found only under the fake host root (tests/native/test_host_icds.c). */
int dxcl_probe_dep(void);
int dxcl_probe_icd(void);
int dxcl_probe_icd(void)
{
    return dxcl_probe_dep() + 1;
}
