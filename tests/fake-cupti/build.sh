#!/bin/sh
# build.sh DIR: the fake CUDA of tests/fake-cupti in DIR: libcupti.so,
# libcuda.so.1 (both without frame pointers, as NVIDIA's libraries are)
# and app, the CUDA program (with them). Errors on stderr, exit 1.
set -e
here=$(dirname "$0")
mkdir -p "$1"
${CC:-cc} -shared -fPIC -O2 -fomit-frame-pointer -o "$1/libcupti.so" "$here/fake_cupti.c" -lpthread
${CC:-cc} -shared -fPIC -O2 -fomit-frame-pointer -o "$1/libcuda.so.1" "$here/fake_cuda.c" -ldl
${CC:-cc} -O0 -g -fno-omit-frame-pointer -o "$1/app" "$here/app.c" -ldl
