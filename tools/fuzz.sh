#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a share of a time budget, each from a seed corpus made of the
# shipped files, and fails on any finding: a crash, an exception other than a refusal of the input, a sanitizer
# report (ASan, UBSan with float-cast-overflow, LeakSanitizer), an input that takes over 10 s or over 2 GiB.
# Findings are kept in WORK/findings (reproduce one with `BUILD/tests/fuzz/fuzz_T FILE`). docs/fuzzing.md.
# Usage: tools/fuzz.sh BUILD_DIR [SECONDS (all targets together; default 60)] [WORK_DIR] [SEED (default 1)] [JOBS]
# Each target fuzzes SECONDS / (number of targets); JOBS targets (default 1) run at once, so the run takes
# SECONDS / JOBS.
# A fixed seed makes a run repeatable as far as a time budget allows; give another to explore further.
# BUILD_DIR is configured with CXX=clang++ -DVGPUSIM_SANITIZE=ON -DVGPUSIM_FUZZ=ON (tools/test.sh does).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: tools/fuzz.sh BUILD_DIR [SECONDS] [WORK_DIR]}"
# Absolute: the fuzzers run from WORK_DIR.
[ -d "$build" ] || { echo "fuzz.sh: no build folder $build" >&2; exit 2; }
build="$(cd "$build" && pwd)"
budget="${2:-60}"
work="${3:-$(mktemp -d)}"
fuzz_seed="${4:-1}"
fuzz_jobs="${5:-1}"
targets=(scenario kineto openb raw calibration merge k8s opgraph)
per=$(( budget / ${#targets[@]} ))
[ "$per" -ge 1 ] || per=1
mkdir -p "$work/findings"

seed() {  # seed TARGET FILES...: copies the files into the target's corpus (each cut to the fuzzer's max length)
  local t="$1"; shift
  mkdir -p "$work/corpus/$t"
  for f in "$@"; do head -c 65536 "$f" > "$work/corpus/$t/$(basename "$f")"; done
}
seed scenario "$here"/scenarios/*.yaml "$here"/scenarios/seeds/*.yaml "$here"/tests/fuzz/seeds/scenario/*
seed kineto "$here"/tests/fuzz/seeds/kineto/* "$here"/scenarios/traces/kineto/a100_alexnet_train.json.gz
head -n 40 "$here/scenarios/traces/alibaba-openb/openb_node_list_gpu_node.csv" > "$work/nodes.csv"
head -n 40 "$here/scenarios/traces/alibaba-openb/openb_pod_list_default.csv" > "$work/pods.csv"
seed openb "$work/nodes.csv" "$work/pods.csv"
seed raw "$here"/hwcal/data/*/*/raw-*.json
seed calibration "$here"/models/calibration/*.yaml
seed merge "$here"/tests/fuzz/seeds/merge/*
seed k8s "$here"/scenarios/k8s/*.yaml
seed opgraph "$here"/scenarios/measurements/neusight/label/Tesla_T4/bert_large-inf-512-8.csv \
  "$here"/scenarios/measurements/neusight/label/NVIDIA_A100_80GB_PCIe/gpt2_large-train-1024-1.csv

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fuzz_one() {  # fuzz_one TARGET: fuzzes it; its report goes to WORK/report_TARGET, its status to WORK/status_TARGET
  local t="$1" bin="$build/tests/fuzz/fuzz_$1" status=0
  {
    echo "== fuzz_$t for ${per}s"
    if ! (cd "$work" && "$bin" -max_total_time="$per" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
            -seed="$fuzz_seed" -artifact_prefix="$work/findings/$t-" -print_final_stats=1 "$work/corpus/$t" 2>"$work/fuzz_$t.log"); then
      status=1
      echo "fuzz_$t found a problem:"
      grep -E "ERROR|SUMMARY|runtime error|uncaught|deadly|Test unit written" "$work/fuzz_$t.log" | head -20
    fi
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$work/fuzz_$t.log" | tr '\n' ' '; echo
  } > "$work/report_$t" 2>&1
  echo "$status" > "$work/status_$t"
}
for t in "${targets[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || { echo "fuzz.sh: $build/tests/fuzz/fuzz_$t is missing (configure with -DVGPUSIM_FUZZ=ON)" >&2; exit 2; }
done
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$fuzz_jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
failed=0
for t in "${targets[@]}"; do
  cat "$work/report_$t"
  [ "$(cat "$work/status_$t" 2>/dev/null)" = 0 ] || failed=1
done
if [ "$failed" -ne 0 ] || [ -n "$(ls -A "$work/findings")" ]; then
  echo "fuzz.sh: findings in $work/findings" >&2
  exit 1
fi
echo "fuzz.sh: no findings in ${budget}s over ${#targets[@]} targets"
