# 32-bit programs (docs/testing.md, "32-bit programs"): the main (x64) tree builds a second tree,
# build/x32, with cmake/mingw-w64-i686.cmake: dxcl's OpenCL.dll for i686 (x32/release, for
# make dist) and the Direct3D 9, 10 and 11 test programs with its test build beside them
# (x32/bin). CTest runs each of those programs as <test>.x32 under 32-bit Wine (old WoW64), in
# a 64-bit prefix of its own (rig/prefix-x32, syswow64), on wined3d, through Wine's builtin
# 32-bit opencl.dll and the i386 PoCL (scripts/install-deps.sh, scripts/wine-run.sh DXCL_X32=1).
# The Unix side, the Vulkan layer and DXVK (x64 only in ../shared/dxvk) are not in it.
# The suites: the test programs of the Direct3D 9, 10 and 11 families (tests/test_*.c).
set(DXCL_X32_SUITES_REGEX "^test_(d3d1[01]_|dx9_|nv_d3d9_)")
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
endforeach()
