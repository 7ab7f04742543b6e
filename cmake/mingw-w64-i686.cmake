# Cross-compile for 32-bit Windows with Debian's mingw-w64 (gcc-mingw-w64-i686): the x32 build
# of OpenCL.dll and of the Direct3D test programs (cmake/x32.cmake drives it from the main tree).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(DXCL_MINGW_PREFIX i686-w64-mingw32)
set(CMAKE_C_COMPILER ${DXCL_MINGW_PREFIX}-gcc)
set(CMAKE_RC_COMPILER ${DXCL_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${DXCL_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
