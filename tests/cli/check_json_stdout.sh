#!/usr/bin/env bash
# `--json` prints on stdout the JSON document that `--out DIR` writes, byte for byte: run (a scenario, a cluster
# scenario, a plan file), sweep, plan and a study shard; `-q` prints nothing.
# Usage: check_json_stdout.sh VGPUSIM SOURCE_DIR WORKDIR
set -euo pipefail
if [ $# -ne 3 ]; then echo "usage: $0 VGPUSIM SOURCE_DIR WORKDIR" >&2; exit 2; fi
vgpusim="$1" source="$2" work="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cd "$source"
same() {  # NAME FILE-WRITTEN: stdout of the last command (in $work/stdout) must equal the file
  cmp -s "$work/stdout" "$2" || fail "$1: --json stdout differs from $2"
  echo "ok: $1"
}
"$vgpusim" run scenarios/quickstart.yaml --json >"$work/stdout" 2>/dev/null
"$vgpusim" run scenarios/quickstart.yaml -q --out "$work/run" 2>/dev/null
same "run --json" "$work/run/results.json"
"$vgpusim" run scenarios/cluster-small.yaml --json >"$work/stdout"
"$vgpusim" run scenarios/cluster-small.yaml -q --out "$work/cluster"
same "run --json (cluster)" "$work/cluster/results.json"
"$vgpusim" sweep scenarios/quickstart.yaml --vary seed=1,2 --set duration=5s --json >"$work/stdout" 2>/dev/null
"$vgpusim" sweep scenarios/quickstart.yaml --vary seed=1,2 --set duration=5s -q --out "$work/sweep" 2>/dev/null
same "sweep --json" "$work/sweep/sweep.json"
"$vgpusim" plan scenarios/plan-mig.yaml --json >"$work/stdout" 2>/dev/null
"$vgpusim" plan scenarios/plan-mig.yaml -q --out "$work/plan" 2>/dev/null
same "plan --json" "$work/plan/plan.json"
nodes=scenarios/traces/alibaba-openb/openb_node_list_gpu_node.csv
pods=scenarios/traces/alibaba-openb/openb_pod_list_default.csv
"$vgpusim" study --nodes $nodes --trace $pods --seeds 42,43 --policies fgd,best_fit --shard 1/2 --out "$work/study" \
  --json >"$work/stdout"
same "study --shard --json" "$work/study/study-shard-1-of-2.json"
[ -z "$("$vgpusim" run scenarios/quickstart.yaml --json -q 2>/dev/null)" ] || fail "-q with --json printed something"
echo "ok: -q prints nothing"
