#!/usr/bin/env bash
# One command for a GPU machine: builds vgpusim-hwcal standalone (cmake -S hwcal: needs only CMake, a C++20
# compiler and the CUDA toolkit) and runs every calibration experiment, bounded by a timeout.
# Usage: tools/hwcal-run.sh OUT_DIR
#   writes OUT_DIR/raw-<hostname>-<UTC time>.json, OUT_DIR/hwcal.log and, if nvidia-smi exists, OUT_DIR/nvidia-smi.txt
# Environment: HWCAL_BUILD_DIR (default <repo>/build-hwcal-run), HWCAL_TIMEOUT_S (default 330),
#              HWCAL_BUDGET_S (passed as --budget-s when set), HWCAL_JOBS (build jobs, default nproc),
#              CUDACXX (nvcc to use).
# Exit status: 0 all experiments ran, 1 some recorded an error, 2 no CUDA GPU, 3 build failed, 124 timed out.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: tools/hwcal-run.sh OUT_DIR" >&2
  exit 64
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out_dir="$(cd "$1" && pwd)"
build_dir="${HWCAL_BUILD_DIR:-$here/build-hwcal-run}"
run_timeout_s="${HWCAL_TIMEOUT_S:-330}"

if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
echo "hwcal-run: building in $build_dir" >&2
if ! cmake -S "$here/hwcal" -B "$build_dir" "${generator[@]}" --no-warn-unused-cli -DCMAKE_BUILD_TYPE=Release \
       -DVGPUSIM_HWCAL=ON -DBUILD_TESTING=OFF -DVGPUSIM_BENCH=OFF >&2 ||
   ! cmake --build "$build_dir" --target vgpusim-hwcal -j "${HWCAL_JOBS:-$(nproc)}" >&2; then
  echo "hwcal-run: build failed" >&2
  exit 3
fi

# Read-only queries of the GPU's state, kept beside the raw file.
if command -v nvidia-smi >/dev/null 2>&1; then
  { timeout 60 nvidia-smi; timeout 60 nvidia-smi -q; } >"$out_dir/nvidia-smi.txt" 2>&1 ||
    echo "hwcal-run: nvidia-smi failed; see $out_dir/nvidia-smi.txt" >&2
fi

budget=()
if [ -n "${HWCAL_BUDGET_S:-}" ]; then
  budget=(--budget-s "$HWCAL_BUDGET_S")
fi
echo "hwcal-run: running vgpusim-hwcal all (timeout ${run_timeout_s} s)" >&2
set +e
# SIGTERM first: the program then kills its children and stops a private MPS daemon; SIGKILL 20 s later.
timeout --signal=TERM --kill-after=20 "$run_timeout_s" "$build_dir/vgpusim-hwcal" all --out "$out_dir" "${budget[@]}" \
  2>&1 | tee "$out_dir/hwcal.log"
status=${PIPESTATUS[0]}
set -e
case "$status" in
  0) echo "hwcal-run: done; raw files in $out_dir" >&2 ;;
  124 | 137) echo "hwcal-run: timed out after ${run_timeout_s} s (the raw file holds what finished)" >&2; status=124 ;;
  *) echo "hwcal-run: vgpusim-hwcal exited with status $status (see $out_dir/hwcal.log)" >&2 ;;
esac
exit "$status"
