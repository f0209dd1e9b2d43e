#!/usr/bin/env bash
# Installs the Debian packages vgpusim needs (only those missing; idempotent) and configures + builds.
# Usage: tools/setup.sh [--no-build] [--build-dir DIR] [--type Release|Debug|Asan] [--with-browser] [--with-fuzz]
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
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) do_build=0 ;;
    --with-browser) with_browser=1 ;;
    --with-fuzz) with_fuzz=1 ;;
    --build-dir) build_dir="$2"; shift ;;
    --type) build_type="$2"; shift ;;
    *) echo "setup.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

packages=(build-essential cmake ninja-build pkg-config
          libsimgrid-dev libyaml-cpp-dev libcli11-dev libboost-dev libgtest-dev
          nlohmann-json3-dev libfmt-dev zlib1g-dev)
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
  cmake -S "$here" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" >&2
  cmake --build "$build_dir" -j "$(nproc)" >&2
fi
