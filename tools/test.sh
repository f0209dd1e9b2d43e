#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing, builds with warnings as errors,
# runs every test (units, golden scenarios, CLI, docs) and the mutation campaign over the command line, then a clang
# ASan+UBSan build (float-cast-overflow too) of the tests with the libFuzzer targets, and the fuzzers on it
# (docs/fuzzing.md), then the benchmarks (which print their ratios). .ci/run calls this.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc)"
start=$SECONDS
# A step's heading, with the seconds since the start (CI keeps no log of a passing run's steps: this is where to look).
step() { echo "== [$((SECONDS - start)) s] $*"; }

"$here/tools/setup.sh" --no-build --with-tests --with-browser --with-fuzz
# Chromium is installed now: the HTML report checks must run, not skip.
export VGPUSIM_REQUIRE_BROWSER=1
step "release build"
cmake -S "$here" -B "$here/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVGPUSIM_WERROR=ON -DVGPUSIM_NETWORK=ON \
      -DBUILD_TESTING=ON -DVGPUSIM_BENCH=ON -DVGPUSIM_HWCAL=AUTO
cmake --build "$here/build" -j "$jobs"
step "release tests"
ctest --test-dir "$here/build" --output-on-failure -j "$jobs"

step "mutation campaign over the command line (release build; docs/fuzzing.md)"
python3 "$here/tools/mutate-inputs.py" --vgpusim "$here/build/vgpusim" --budget 50 --jobs "$jobs"

step "clang ASan + UBSan build of the tests (-O1), with the libFuzzer targets"
# Both builds are unity builds, the project's default (CMakeLists.txt): a target's files compile in batches of 8.
# -DCMAKE_UNITY_BUILD=OFF compiles each file alone, the build that checks that every file includes what it uses.
CC=clang CXX=clang++ cmake -S "$here" -B "$here/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVGPUSIM_WERROR=ON \
      -DVGPUSIM_SANITIZE=ON -DVGPUSIM_FUZZ=ON -DVGPUSIM_BENCH=OFF -DVGPUSIM_HWCAL=OFF \
      -DVGPUSIM_NETWORK=ON
cmake --build "$here/build-asan" -j "$jobs"
step "sanitizer tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$here/build-asan" --output-on-failure -j "$jobs"

step "fuzzing every input reader"
"$here/tools/fuzz.sh" "$here/build-asan" 70 "" 1 "$jobs"

if [ -x "$here/build/tests/engine_bench" ]; then
  step "engine benchmark (ratios against baselines measured in the same run)"
  "$here/build/tests/engine_bench"
fi
if [ -x "$here/build/tests/replay_bench" ]; then
  step "trace replay benchmark"
  "$here/build/tests/replay_bench"
fi
if [ -x "$here/build/tests/llm_bench" ]; then
  step "LLM serving benchmark"
  "$here/build/tests/llm_bench"
fi
if [ -x "$here/build/tests/cluster_bench" ]; then
  step "cluster simulator benchmark"
  "$here/build/tests/cluster_bench"
fi
step "done"
