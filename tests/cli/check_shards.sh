#!/usr/bin/env bash
# Runs the commands docs/scale.md shows (its code blocks marked `check=NAME`), each shard a separate vgpusim
# process, and checks that every merge equals the unsharded run byte for byte; then that merge refuses mixed shards.
# With `quick` (sanitizer builds, 40x slower) the Slurm and Indexed Job blocks, which replay the local sweep, are left
# out and the study runs one seed; the release build runs every block as written.
# Usage: check_shards.sh VGPUSIM SOURCE_DIR WORKDIR [quick]
set -euo pipefail
if [ $# -ne 3 ] && [ "${4:-}" != quick ]; then echo "usage: $0 VGPUSIM SOURCE_DIR WORKDIR [quick]" >&2; exit 2; fi
quick="${4:-}"
vgpusim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" source="$(cd "$2" && pwd)" work="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
doc="$source/docs/scale.md"

rm -rf "$work"
mkdir -p "$work/bin"
work="$(cd "$work" && pwd)"
ln -s "$vgpusim" "$work/bin/vgpusim"
ln -s "$source/scenarios" "$work/scenarios"
export PATH="$work/bin:$PATH"
cd "$work"

# The body of the fenced block whose opening line is ```<lang> check=<name>.
block() {
  awk -v name="$1" '
    /^```/ { if (inside) { inside = 0; found = 1; next } if ($0 ~ (" check=" name "$")) { inside = 1; next } }
    inside { print }
    END { if (!found) exit 1 }' "$doc" || fail "docs/scale.md has no block check=$1"
}

echo "== local"
block local >local.sh
# quick: the study of one seed (two runs, one per shard) instead of three; the release build runs the block as written.
if [ -n "$quick" ]; then
  grep -q -- "--seeds 42-44" local.sh || fail "docs/scale.md's study no longer runs --seeds 42-44 (quick shortens it)"
  sed -i 's/--seeds 42-44/--seeds 42/g' local.sh
fi
bash -e local.sh

pairs="sweep sweep-whole|plan plan-whole|study study-whole"
if [ -z "$quick" ]; then
pairs="$pairs|slurm sweep-whole|k8s sweep-whole"
echo "== slurm"
block slurm >slurm.sh
block slurm-merge >slurm-merge.sh
for i in 0 1 2; do SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1 bash -e slurm.sh; done
bash -e slurm-merge.sh >/dev/null

echo "== k8s"
# The Indexed Job's container runs `sh -c` on the line after `- |`.
command="$(block k8s | awk 'take { sub(/^ +/, ""); print; exit } /- \|$/ { take = 1 }')"
[ -n "$command" ] || fail "no command in the Indexed Job"
for i in 0 1 2; do JOB_COMPLETION_INDEX=$i sh -c "$command"; done
block k8s-merge >k8s-merge.sh
bash -e k8s-merge.sh >/dev/null
fi

IFS='|' read -r -a pair_list <<<"$pairs"
for pair in "${pair_list[@]}"; do
  set -- $pair
  [ -d "out/$1" ] || fail "out/$1 was not written"
  diff -r "out/$1" "out/$2" >/dev/null || fail "out/$1 differs from out/$2: $(diff -rq "out/$1" "out/$2" | head -3)"
  echo "out/$1 = out/$2 ($(find "out/$1" -type f | wc -l) files)"
done
[ -f out/sweep/sweep.html ] && [ -f out/plan/deploy/README.md ] && [ -f out/study/summary.csv ] ||
  fail "a merged output is missing"

echo "== refusals"
vgpusim sweep scenarios/quickstart.yaml --vary seed=1,2 --shard 1/2 --out out/other -q
status=0
vgpusim merge out/sweep-shards/0 out/other --out out/mixed >/dev/null 2>err.txt || status=$?
[ "$status" -eq 2 ] || fail "merging shards of two sweeps exited $status"
grep -q "a shard of another sweep" err.txt || fail "unexpected message: $(cat err.txt)"
status=0
vgpusim merge out/sweep-shards/0 out/plan-shards/1 >/dev/null 2>err.txt || status=$?
[ "$status" -eq 2 ] || fail "merging a sweep and a plan shard exited $status"
grep -q "a shard of another kind" err.txt || fail "unexpected message: $(cat err.txt)"
echo "ok"
