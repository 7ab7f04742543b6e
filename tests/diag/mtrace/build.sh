#!/bin/sh
# Builds libmtrace.so next to this script (and the leaky test program).
set -e
cd "$(dirname "$0")"
gcc -O2 -g -Wall -shared -fPIC -fno-omit-frame-pointer -o libmtrace.so mtrace.c -lgcc_s -ldl -lpthread
gcc -O1 -g -rdynamic -fno-inline -fno-builtin -o leaky leaky.c
echo "built $(pwd)/libmtrace.so"
