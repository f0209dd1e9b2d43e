#!/usr/bin/env bash
# Installs the Debian packages vgpusim needs (only those missing; idempotent) and configures + builds the `vgpusim`
# executable and its libraries (no tests, benchmarks or hwcal: the first command stays a few minutes).
# Usage: tools/setup.sh [--no-build] [--build-dir DIR] [--type Release|Debug|Asan] [--with-tests] [--with-browser]
#                       [--with-fuzz]
# --with-tests also installs what the test suite needs (GoogleTest, SimGrid for the network model and the engine
# benchmark, python3 for the checks of the tools/lucid-*.py analyses) and builds everything, tests included
# (tools/test.sh installs it and builds itself).
# --with-browser also installs Chromium and a font, which the HTML report test renders pages with.
# --with-fuzz also installs clang with its sanitizer and libFuzzer runtimes (the sanitizer build with
# float-cast-overflow and the fuzz targets) and python3 (tools/mutate-inputs.py).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$here/build"
build_type=Release
do_build=1
with_browser=0
with_fuzz=0
with_tests=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) do_build=0 ;;
    --with-browser) with_browser=1 ;;
    --with-fuzz) with_fuzz=1 ;;
    --with-tests) with_tests=1 ;;
    --build-dir) build_dir="$2"; shift ;;
    --type) build_type="$2"; shift ;;
    *) echo "setup.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

packages=(build-essential cmake ninja-build pkg-config
          libyaml-cpp-dev libcli11-dev libboost-dev nlohmann-json3-dev libfmt-dev zlib1g-dev)
if [ "$with_tests" -eq 1 ]; then packages+=(libsimgrid-dev libgtest-dev python3); fi
if [ "$with_browser" -eq 1 ]; then packages+=(chromium fonts-dejavu-core); fi
if [ "$with_fuzz" -eq 1 ]; then packages+=(clang libclang-rt-14-dev python3); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$do_build" -eq 1 ]; then
  if [ "$with_tests" -eq 1 ]; then
    cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DBUILD_TESTING=ON >&2
    cmake --build "$build_dir" -j "$(nproc)" >&2
  else
    cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DBUILD_TESTING=OFF \
          -DVGPUSIM_BENCH=OFF -DVGPUSIM_HWCAL=OFF >&2
    cmake --build "$build_dir" -j "$(nproc)" --target vgpusim >&2
  fi
fi
