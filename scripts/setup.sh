#!/usr/bin/env bash
# Installs everything cuzk's build and tests need on a fresh Debian 12 machine: the Debian
# packages (as root; idempotent: apt-get skips what is already installed) and the npm packages
# of the interop tests from their committed lockfiles. nvcc is not installed here: CUDA parts
# build where the CUDA toolkit is present and are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  clang libclang-rt-14-dev          # libFuzzer targets and sanitizers
  libgmp-dev                        # test oracle and benchmark baseline
  libgtest-dev libgmock-dev libbenchmark-dev
  libtbb-dev libcli11-dev nlohmann-json3-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler  # the daemon's API
  libtomlplusplus-dev               # the daemon's config
  libcpp-httplib-dev libssl-dev     # the daemon's HTTP endpoint; token identities
  python3-grpcio python3-protobuf   # the daemon's black-box tests (tests/service/hostile)
  libsqlite3-dev                    # the engine's job journal
  python3 gnuplot-nox               # tools/plot_timeline.py (the timeline picture)
)
# Node.js for the interop tests (@noble/curves, snarkjs, circom2): any node ≥ 18 with npm will
# do. Some machines carry a NodeSource build whose nodejs package bundles npm and conflicts with
# Debian's npm, so Debian's packages are added only when the commands are missing.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
    echo "setup: run 'sudo scripts/setup.sh'" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# npm packages for the interop tests, exactly as locked.
for dir in tests/interop/*/; do
  if [[ -f "$dir/package-lock.json" ]]; then
    if [[ ! -d "$dir/node_modules" || "$dir/package-lock.json" -nt "$dir/node_modules" ]]; then
      echo "setup: npm ci in $dir"
      npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
      touch "$dir/node_modules"
    fi
  fi
done
echo "setup: done"
