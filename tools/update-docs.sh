#!/usr/bin/env bash
# Rewrites the generated parts of the docs from the tables the code enforces: docs/scenario-reference.md, the key
# reference in docs/cluster.md and the parameter blocks of docs/models/*.md. Tests check that they are current.
# It also regenerates docs/validation/ and models/catalog/trust.csv (the suite against scenarios/measurements, and
# the hwcal raw files under hwcal/data against the shipped calibrations).
# Usage: tools/update-docs.sh [path/to/vgpusim]   (build it with -DVGPUSIM_NETWORK=ON for docs/models/network.md)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$here/build/vgpusim}"
cd "$here"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$bin" list keys --markdown > docs/scenario-reference.md
echo "updated docs/scenario-reference.md"

# In file $1, replaces the lines from the one equal to the first line of file $2 to the next one equal to its last
# line with the whole of file $2.
splice() {
  local file="$1" block="$2"
  awk -v block="$block" -v begin="$(head -n 1 "$block")" -v end="$(tail -n 1 "$block")" '
    $0 == begin && !done { while ((getline line < block) > 0) print line; skip = 1; done = 1; next }
    skip { if ($0 == end) skip = 0; next }
    { print }' "$file" > "$tmp/page"
  cp "$tmp/page" "$file"
}

{
  echo '<!-- generated key reference: `vgpusim list keys --markdown cluster`; checked by a test -->'
  "$bin" list keys --markdown cluster
  echo '<!-- end of generated key reference -->'
} > "$tmp/block"
splice docs/cluster.md "$tmp/block"
echo "updated docs/cluster.md"

for page in docs/models/*.md; do
  { grep -o '^<!-- generated parameters of [a-z_0-9]*:' "$page" || true; } |
    sed 's/^<!-- generated parameters of //; s/:$//' |
    while read -r model; do
      if ! "$bin" list models --markdown "$model" > "$tmp/block" 2>/dev/null; then
        echo "skipped $page ($model): not in this build" >&2
        continue
      fi
      splice "$page" "$tmp/block"
      echo "updated $page ($model)"
    done
done

rm -f docs/validation/*.md docs/validation/*.svg
# The trust bands' table from the same cases (rows of datasets not shipped, Lucid's, are kept from the table built
# into "$bin"; regenerate them with `validate --published lucid DIR --trust models/catalog/trust.csv` and rebuild).
"$bin" validate --published all scenarios/measurements --docs docs/validation --trust models/catalog/trust.csv > /dev/null
# One page per hwcal raw file of a GPU with a shipped calibration.
for raw in hwcal/data/*/*/raw-*.json; do
  [ -e "$raw" ] || continue
  gpu="${raw#hwcal/data/}"
  gpu="${gpu%%/*}"
  if [ -f "models/calibration/$gpu.yaml" ]; then
    "$bin" validate "$raw" --calibration "models/calibration/$gpu.yaml" --docs docs/validation > /dev/null
  fi
done
echo "updated docs/validation/"
