#!/bin/sh
# The dynamic symbols a shared library defines are exactly the functions of its header.
#   exports.sh <library.so> <function>...
set -eu
lib=$1; shift
actual=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort)
expected=$(printf '%s\n' "$@" | sort)
if [ "$actual" != "$expected" ]; then
  echo "$lib exports:"; echo "$actual"; echo "expected:"; echo "$expected"
  exit 1
fi
echo "$lib: exports exactly $# functions"
