# 32-bit programs (docs/testing.md, "32-bit programs"): the main (x64) tree builds a second tree,
# build/x32, with cmake/mingw-w64-i686.cmake: dxcl's OpenCL.dll for i686 (x32/release, for
# make dist) and the Direct3D 9, 10 and 11 test programs with its test build beside them
# (x32/bin). CTest runs each of those programs as <test>.x32 under 32-bit Wine (old WoW64), in
# a 64-bit prefix of its own (rig/prefix-x32, syswow64), on wined3d, through Wine's builtin
# 32-bit opencl.dll and the i386 PoCL (scripts/install-deps.sh, scripts/wine-run.sh DXCL_X32=1).
# The x32 tree also builds the Unix side's 32-bit pair into the main tree's build/lib/wine
# (i386-windows, i386-unix), which the <test>.x32_unix variants run through. The Vulkan layer
# and DXVK (x64 only in ../shared/dxvk) are not in it.
# The suites: the test programs of the Direct3D 9, 10 and 11 families (tests/test_*.c).
set(DXCL_X32_SUITES_REGEX "^test_(d3d1[01]_|dx9_|nv_d3d9_)")
# Through the 32-bit Unix side (src/unix, i386-windows and i386-unix of build/lib/wine, with
# Wine's own opencl.dll disabled): <test>.x32_unix for the programs that cross the interface
# hardest: its bad-input test, the route and OpenCL 3.0, callbacks, extension functions,
# Wine's signal handlers after a kernel build, the fuzzer, and a D3D11, a D3D10 and two DX9
# roundtrips. The x32 tree builds the programs of both lists.
set(DXCL_X32_UNIX_REGEX
  "^test_(unix_interface|unix_side|callbacks_events|callbacks_objects|extensions|host_signals|smoke|fuzz|d3d11_khr_roundtrip|d3d10_khr_roundtrip|dx9_roundtrip_rt|dx9_roundtrip_yuv)$")
if(DXCL_X32)
  return() # the x32 tree itself reads only the regex (tests/CMakeLists.txt)
endif()

option(DXCL_X32_TESTS "Build dxcl for i686 and run the Direct3D suites as 32-bit programs" ON)
find_program(DXCL_I686_GCC i686-w64-mingw32-gcc)
if(NOT DXCL_X32_TESTS OR NOT DXCL_I686_GCC)
  # Off: one line in every test run says so (CTest lists it as skipped, as dxvk.off).
  add_test(NAME x32.off COMMAND ${CMAKE_COMMAND} -E echo
    "32-bit is off: the <test>.x32 variants need i686-w64-mingw32-gcc (scripts/install-deps.sh) and DXCL_X32_TESTS=ON")
  set_tests_properties(x32.off PROPERTIES SKIP_RETURN_CODE 0)
  return()
endif()

include(ExternalProject)
set(DXCL_X32_DIR ${CMAKE_BINARY_DIR}/x32)
ExternalProject_Add(dxcl_x32
  SOURCE_DIR ${CMAKE_SOURCE_DIR}
  BINARY_DIR ${DXCL_X32_DIR}
  CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/cmake/mingw-w64-i686.cmake
             -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
             -DDXCL_KHRONOS_HEADERS=${DXCL_KHRONOS_HEADERS}
             -DDXCL_X64_WINE_LIB=${DXCL_WINE_LIB}
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON # its own build decides what is out of date
  STAMP_DIR ${CMAKE_BINARY_DIR}/x32-stamp
  TMP_DIR ${CMAKE_BINARY_DIR}/x32-stamp/tmp)

if(NOT BUILD_TESTING)
  return()
endif()
# The rig for 32-bit programs: the prefix-x32 prefix, made once (the display is rig's).
add_test(NAME rig.start_x32 COMMAND env DXCL_RIG_DIR=${DXCL_RIG_DIR} DXCL_X32=1 ${DXCL_WINE_RUN}
  --start)
set_tests_properties(rig.start_x32 PROPERTIES FIXTURES_SETUP rig_x32 FIXTURES_REQUIRED rig)
file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/test_*.c)
foreach(source ${sources})
  get_filename_component(name ${source} NAME_WE)
  if(name MATCHES "${DXCL_X32_SUITES_REGEX}")
    add_test(NAME ${name}.x32 COMMAND env DXCL_RIG_DIR=${DXCL_RIG_DIR} DXCL_LOCK_CHECK=1
      DXCL_EXPECT_SUMMARY=1 DXCL_X32=1 ${DXCL_WINE_RUN} ${DXCL_X32_DIR}/bin/${name}.exe)
    set_tests_properties(${name}.x32 PROPERTIES FIXTURES_REQUIRED "rig;rig_x32" TIMEOUT 300)
  endif()
  if(name MATCHES "${DXCL_X32_UNIX_REGEX}")
    set(hooks)
    if(name STREQUAL "test_unix_interface")
      set(hooks DXCL_UNIX_TEST_HOOKS=1)
    endif()
    add_test(NAME ${name}.x32_unix COMMAND env DXCL_RIG_DIR=${DXCL_RIG_DIR} DXCL_LOCK_CHECK=1
      DXCL_EXPECT_SUMMARY=1 DXCL_X32=1 DXCL_WINE_UNIX=${DXCL_WINE_LIB} ${hooks}
      ${DXCL_WINE_RUN} ${DXCL_X32_DIR}/bin/${name}.exe)
    set_tests_properties(${name}.x32_unix PROPERTIES FIXTURES_REQUIRED "rig;rig_x32" TIMEOUT 300)
  endif()
endforeach()
