# Sourced by the GPU scripts: where .deps/ (Debian packages unpacked in the repository root, for
# a GPU machine that lacks them: see scripts/gpu-check.sh) exists, its headers, libraries,
# pkg-config and CMake files are put on the search paths; CMAKE_DEPS_PREFIX holds the CMake
# argument. Also puts /usr/local/cuda/bin on PATH.
export PATH=/usr/local/cuda/bin:$PATH
CMAKE_DEPS_PREFIX=()
if [[ -d .deps ]]; then
  _deps=$(pwd)/.deps
  export LD_LIBRARY_PATH="$_deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  export LIBRARY_PATH="$_deps/usr/lib/x86_64-linux-gnu:${LIBRARY_PATH:-}"
  export CPATH="$_deps/usr/include:$_deps/usr/include/x86_64-linux-gnu:${CPATH:-}"
  export PKG_CONFIG_PATH="$_deps/usr/lib/x86_64-linux-gnu/pkgconfig:$_deps/usr/share/pkgconfig:${PKG_CONFIG_PATH:-}"
  CMAKE_DEPS_PREFIX=("-DCMAKE_PREFIX_PATH=$_deps;$_deps/usr")
fi
