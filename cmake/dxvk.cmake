# DXVK for the tests' .dxvk variants (docs/testing.md, "Direct3D on DXVK").
#
# DXCL_DXVK_DIR names a folder that holds DXVK's 64-bit DLLs (d3d9, d3d10core, d3d11, dxgi;
# directly or in a release's x64 folder) or DXVK's release tarball (dxvk-*.tar.*), which is
# extracted into <build>/dxvk. Empty: no DXVK. Sets DXCL_DXVK_DLLS to the folder that holds
# the four DLLs, or to "" when DXVK is off.
set(DXCL_DXVK_DIR "" CACHE PATH
  "DXVK's DLLs or release tarball: run every Direct3D test on DXVK too (empty: off)")
set(DXCL_DXVK_DLLS "")
if(NOT DXCL_DXVK_DIR)
  message(STATUS "DXVK: off, the Direct3D tests run on wined3d only (set DXCL_DXVK_DIR)")
  return()
endif()

# The folder under `root` holding all four DLLs, "" if none; a release's 32-bit folder is no
# use to 64-bit tests.
function(dxcl_dxvk_dll_folder out root)
  set(${out} "" PARENT_SCOPE)
  file(GLOB_RECURSE found LIST_DIRECTORIES false "${root}/d3d11.dll")
  list(SORT found)
  foreach(dll ${found})
    get_filename_component(folder ${dll} DIRECTORY)
    if(folder MATCHES "/x32$")
      continue()
    endif()
    set(complete TRUE)
    foreach(name d3d9 d3d10core dxgi)
      if(NOT EXISTS ${folder}/${name}.dll)
        set(complete FALSE)
      endif()
    endforeach()
    if(complete)
      set(${out} ${folder} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

get_filename_component(dxvk_source "${DXCL_DXVK_DIR}" ABSOLUTE)
dxcl_dxvk_dll_folder(DXCL_DXVK_DLLS "${dxvk_source}")
if(NOT DXCL_DXVK_DLLS)
  file(GLOB tarballs "${dxvk_source}/dxvk-*.tar.*")
  list(LENGTH tarballs tarball_count)
  if(NOT tarball_count EQUAL 1)
    message(FATAL_ERROR "DXCL_DXVK_DIR=${DXCL_DXVK_DIR}: want DXVK's d3d9, d3d10core, d3d11 "
      "and dxgi DLLs or one dxvk-*.tar.* release tarball there, found ${tarball_count} tarballs")
  endif()
  # Extracted again only when the tarball is another one or changed.
  set(extracted ${CMAKE_BINARY_DIR}/dxvk)
  file(TIMESTAMP ${tarballs} tarball_time)
  set(stamp "${tarballs} ${tarball_time}")
  set(previous "")
  if(EXISTS ${extracted}.stamp)
    file(READ ${extracted}.stamp previous)
  endif()
  if(NOT previous STREQUAL stamp)
    file(REMOVE_RECURSE ${extracted})
    file(ARCHIVE_EXTRACT INPUT ${tarballs} DESTINATION ${extracted})
    file(WRITE ${extracted}.stamp "${stamp}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${tarballs})
  dxcl_dxvk_dll_folder(DXCL_DXVK_DLLS ${extracted})
  if(NOT DXCL_DXVK_DLLS)
    message(FATAL_ERROR "${tarballs} holds no 64-bit d3d9, d3d10core, d3d11 and dxgi DLLs")
  endif()
endif()
message(STATUS "DXVK: the Direct3D tests run on wined3d and again on DXVK from ${DXCL_DXVK_DLLS}")
