#!/usr/bin/env bash
# Builds the real-client checks (README.md beside this script) from Debian 12's source packages
# with mingw-w64, and packs the bundle the GPU rig runs (.clients/ of the checkout).
#
#   tools/clients/build.sh [STEP...]    steps: sources ffmpeg opencv programs bundle (default all)
#
# Env: WORK (default /work/clients: sources, builds, programs; outside the checkout),
#      DXCL_BUILD (dxcl's build tree, default the checkout's build/: its src/libOpenCL.dll.a is
#      the import library FFmpeg links), JOBS (make -j, default 2), OUTDIR (the bundle, default
#      the checkout's .clients/). Every compile runs under nice -n 19.
# Needs (apt-get): deb-src lines for bookworm, dpkg-dev, mingw-w64 (gcc and g++ -posix),
# libz-mingw-w64-dev, cmake, nasm not needed (--disable-x86asm), opencl-c-headers (/usr/include/CL).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
WORK=${WORK:-/work/clients}
DXCL_BUILD=${DXCL_BUILD:-$repo/build}
JOBS=${JOBS:-2}
OUTDIR=${OUTDIR:-$repo/.clients}
FF=ffmpeg-5.1.9
CV=opencv-4.6.0+dfsg
mkdir -p "$WORK"
cd "$WORK"

step_sources() {
  [ -d "$FF" ] && [ -d "$CV" ] || apt-get source ffmpeg opencv
  # FFmpeg and OpenCV want <CL/...>; a folder whose CL is the system's headers, and nothing else
  mkdir -p clinc lib
  ln -sfn /usr/include/CL clinc/CL
  cp "$DXCL_BUILD/src/libOpenCL.dll.a" lib/
  # FFmpeg as Debian ships it, except the device-type check (PoCL's device is a CPU): see README
  if [ ! -d "$FF-anydev" ]; then
    cp -a "$FF" "$FF-anydev"
    patch -d "$FF-anydev" -p1 <"$here/ffmpeg-anydevice.patch"
  fi
  # mingw needs the Direct3D libraries to link OpenCV's DirectX checks
  grep -q 'LINK_LIBRARIES d3d11' "$CV/cmake/OpenCVDetectDirectX.cmake" ||
    patch -d "$CV" -p1 <"$here/opencv-directx-check.patch"
}

# libavutil alone (the hwcontext API), cross-built for mingw-w64, linked against dxcl.
ffmpeg_build() {   # $1 source folder, $2 build folder, $3 install prefix
  mkdir -p "$2"
  (cd "$2" && nice -n 19 "$WORK/$1/configure" --prefix="$3" \
    --target-os=mingw32 --arch=x86_64 --cross-prefix=x86_64-w64-mingw32- --enable-cross-compile \
    --pkg-config=false --disable-x86asm --disable-programs --disable-doc \
    --disable-avcodec --disable-avformat --disable-avdevice --disable-avfilter \
    --disable-swresample --disable-swscale --disable-postproc --disable-network \
    --enable-shared --disable-static \
    --enable-opencl --enable-d3d11va --enable-dxva2 \
    --extra-cflags=-I"$WORK/clinc" --extra-ldflags=-L"$WORK/lib" &&
    grep -E '^#define (CONFIG_OPENCL|CONFIG_D3D11VA|CONFIG_DXVA2|HAVE_OPENCL_D3D11|HAVE_OPENCL_DXVA2) ' config.h &&
    nice -n 19 make -j"$JOBS" && make install)
}

step_ffmpeg() {
  ffmpeg_build "$FF" ffbuild-rig "$WORK/ffmpeg-rig"        # unmodified: the GPU rig's
  ffmpeg_build "$FF-anydev" ffbuild-cpu "$WORK/ffmpeg-cpu" # any device type: PoCL here
}

step_opencv() {
  mkdir -p cvbuild
  (cd cvbuild && nice -n 19 cmake "$WORK/$CV" -DCMAKE_TOOLCHAIN_FILE="$here/mingw-posix.toolchain.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$WORK/opencv-install" -DBUILD_SHARED_LIBS=OFF \
    -DBUILD_LIST=core,imgproc -DWITH_OPENCL=ON -DWITH_DIRECTX=ON -DOPENCL_INCLUDE_DIR="$WORK/clinc" \
    -DBUILD_ZLIB=OFF -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_opencv_apps=OFF \
    -DBUILD_DOCS=OFF -DBUILD_JAVA=OFF -DBUILD_opencv_python3=OFF -DBUILD_opencv_python2=OFF \
    -DWITH_IPP=OFF -DWITH_ITT=OFF -DWITH_LAPACK=OFF -DWITH_EIGEN=OFF -DWITH_PROTOBUF=OFF -DWITH_ADE=OFF \
    -DWITH_OPENEXR=OFF -DWITH_JPEG=OFF -DWITH_PNG=OFF -DWITH_TIFF=OFF -DWITH_WEBP=OFF -DWITH_OPENJPEG=OFF \
    -DWITH_JASPER=OFF -DWITH_FFMPEG=OFF -DWITH_GSTREAMER=OFF -DWITH_DSHOW=OFF -DWITH_MSMF=OFF \
    -DWITH_VTK=OFF -DWITH_QUIRC=OFF -DWITH_CAROTENE=OFF -DWITH_OPENVX=OFF -DWITH_VA=OFF -DWITH_VA_INTEL=OFF \
    -DCPU_DISPATCH= -DENABLE_PRECOMPILED_HEADERS=OFF -DOPENCV_GENERATE_PKGCONFIG=OFF &&
    grep -E '^#define HAVE_(OPENCL|DIRECTX|DIRECTX_NV12|D3D11|D3D10|D3D9)$' cvconfig.h &&
    nice -n 19 make -j"$JOBS" opencv_core &&
    # of imgproc, only the YUV conversions (what cvtColor runs for NV12 on a Mat) and the kernels
    # they refer to: the whole module takes another hour on 2 shared cores
    nice -n 19 make -f modules/imgproc/CMakeFiles/opencv_imgproc.dir/build.make \
      modules/imgproc/opencl_kernels_imgproc.cpp &&
    (cd modules/imgproc && nice -n 19 make src/color_yuv.dispatch.obj opencl_kernels_imgproc.obj) &&
    rm -f lib/libopencv_imgproc_yuv.a &&
    x86_64-w64-mingw32-ar rcs lib/libopencv_imgproc_yuv.a \
      modules/imgproc/CMakeFiles/opencv_imgproc.dir/src/color_yuv.dispatch.cpp.obj \
      modules/imgproc/CMakeFiles/opencv_imgproc.dir/opencl_kernels_imgproc.cpp.obj)
}

step_programs() {
  local cflags=(-O2 -Wall -Wextra -Werror -I"$WORK/clinc" -I"$here")
  mkdir -p programs/rig programs/cpu
  for v in rig cpu; do
    for p in ff_d3d11_nv12 ff_dxva2; do
      nice -n 19 x86_64-w64-mingw32-gcc -std=c11 "${cflags[@]}" -I"$WORK/ffmpeg-$v/include" \
        "$here/$p.c" -o "programs/$v/$p.exe" -L"$WORK/ffmpeg-$v/lib" -L"$WORK/lib" \
        -lavutil -lOpenCL -ld3d11 -ld3d9 -ldxgi -luuid -s
    done
    cp "$WORK/ffmpeg-$v/bin/"avutil-*.dll "programs/$v/"
  done
  local cv_inc=(-I"$WORK/$CV/modules/core/include" -I"$WORK/$CV/modules/imgproc/include" -I"$WORK/cvbuild")
  for p in cv_d3d11_nv12 cv_d3d_cases; do
    nice -n 19 x86_64-w64-mingw32-g++-posix -std=c++14 "${cflags[@]}" "${cv_inc[@]}" "$here/$p.cpp" \
      -o "programs/$p.exe" -L"$WORK/cvbuild/lib" -lopencv_imgproc_yuv -lopencv_core460 -lz \
      -ld3d11 -ld3d10 -ld3d9 -ldxgi -lole32 -luuid -lgdi32 -static -s
  done
}

# .clients/: the GPU rig's programs (the unmodified FFmpeg), run.sh and jobs.txt.
step_bundle() {
  local stage
  stage=$(mktemp -d)
  cp programs/rig/*.exe programs/rig/*.dll programs/cv_*.exe "$stage/"
  # mingw's runtime DLLs, where a program needs them
  for dll in $(x86_64-w64-mingw32-objdump -p "$stage"/*.exe "$stage"/*.dll | awk '/DLL Name/{print $3}' | sort -u); do
    for dir in /usr/lib/gcc/x86_64-w64-mingw32/12-win32 /usr/x86_64-w64-mingw32/lib; do
      [ -f "$dir/$dll" ] && cp "$dir/$dll" "$stage/"
    done
  done
  # Wine's dxva2.dll: the rig's Wine is pruned without it (FFmpeg's DXVA2 device needs it);
  # jobs.txt loads it as native (dxva2=n,b)
  cp /usr/lib/x86_64-linux-gnu/wine/x86_64-windows/dxva2.dll "$stage/"
  mkdir -p "$OUTDIR"
  tar -C "$stage" -cJf "$OUTDIR/clients.tar.xz" .
  cp "$here/run.sh" "$here/jobs.txt" "$OUTDIR/"
  rm -rf "$stage"
  ls -la "$OUTDIR"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(sources ffmpeg opencv programs bundle)
for s in "${steps[@]}"; do "step_$s"; done
