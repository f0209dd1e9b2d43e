#!/usr/bin/env bash
# Regenerates tests/golden/<scenario>.out from the current build, after a change meant to move predictions.
# Review the diff before committing: every changed number is a changed prediction.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$here/build/vgpusim}"
cd "$here"
# scenarios/k8s holds configuration files that scenarios import, not scenarios.
find scenarios -name '*.yaml' -not -path 'scenarios/k8s/*' | sort | while read -r sc; do
  name="${sc#scenarios/}"; name="${name%.yaml}"
  mkdir -p "tests/golden/$(dirname "$name")"
  "$bin" run "$sc" > "tests/golden/$name.out"
  echo "updated tests/golden/$name.out"
done
"$bin" sweep scenarios/quickstart.yaml "--vary=sharing.g0={mode: timeslice, slice: 4ms},{mode: mps}" --vary=seed=1,2 \
  > tests/golden/sweep/quickstart-modes.out
echo "updated tests/golden/sweep/quickstart-modes.out (keep its arguments equal to tests/CMakeLists.txt)"
