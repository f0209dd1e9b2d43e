#!/usr/bin/env bash
# Writes the HTML report of a scenario and checks it renders in headless Chromium: the charts are in the DOM and
# a screenshot is not blank. Without Chromium it checks the file only and prints SKIPPED, unless
# VGPUSIM_REQUIRE_BROWSER is set (tools/test.sh installs Chromium and sets it).
# With `sweep` as a fourth argument, the page checked is the sweep page of the scenario over two seeds
# (`vgpusim sweep --out`), with its vGPU-loss charts.
# Usage: check_report.sh VGPUSIM SCENARIO WORKDIR [sweep]
set -euo pipefail
if [ $# -ne 3 ] && [ $# -ne 4 ]; then echo "usage: $0 VGPUSIM SCENARIO WORKDIR [sweep]" >&2; exit 2; fi
vgpusim="$1" scenario="$2" work="$3" page="${4:-run}"
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work"
work="$(cd "$work" && pwd)"
report="$work/report.html" dom="$work/dom.html" png="$work/report.png"
rm -f "$report" "$dom" "$png"

if [ "$page" = sweep ]; then
  rm -rf "$work/sweep"
  "$vgpusim" sweep "$scenario" --vary seed=1,2 --quiet --out "$work/sweep" 2>/dev/null ||
    fail "vgpusim sweep exited with $?"
  cp "$work/sweep/sweep.html" "$report"
  kinds="chart-sweep-loss"
else
  "$vgpusim" run "$scenario" --quiet --report "$report" || fail "vgpusim run exited with $?"
  kinds="chart-loss chart-utilization"
fi
[ -s "$report" ] || fail "no report written at $report"
grep -qi '<script' "$report" && fail "the report contains a script"
grep -Eqi '(src|href)=|url\(|@import' "$report" && fail "the report references an outside resource"
charts=$(grep -o '<svg ' "$report" | wc -l)
[ "$charts" -ge 2 ] || fail "expected at least 2 charts in the report, found $charts"
for kind in $kinds; do
  grep -q "class=\"chart $kind\"" "$report" || fail "no $kind chart in the report"
done
echo "report: $report ($(wc -c <"$report") bytes, $charts charts)"

browser=""
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then browser="$(command -v "$candidate")"; break; fi
done
if [ -z "$browser" ]; then
  [ -n "${VGPUSIM_REQUIRE_BROWSER:-}" ] && fail "chromium not installed but VGPUSIM_REQUIRE_BROWSER is set"
  echo "SKIPPED: chromium not installed"
  exit 0
fi

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --disable-dev-shm-usage --user-data-dir="$profile")
url="file://$report"

timeout 120 "$browser" "${flags[@]}" --dump-dom "$url" >"$dom" 2>"$work/chromium-dom.log" ||
  fail "chromium --dump-dom failed (see $work/chromium-dom.log)"
dom_charts=$(grep -o '<svg ' "$dom" | wc -l)
[ "$dom_charts" -eq "$charts" ] || fail "the DOM has $dom_charts charts, the file $charts"
grep -q 'role="img"' "$dom" || fail "charts lost their role in the DOM"
echo "dom: $dom ($dom_charts charts)"

timeout 120 "$browser" "${flags[@]}" --hide-scrollbars --window-size=1200,2000 --screenshot="$png" "$url" \
  >"$work/chromium-screenshot.log" 2>&1 || fail "chromium --screenshot failed (see $work/chromium-screenshot.log)"
[ -f "$png" ] || fail "no screenshot written at $png"
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$png is not a PNG"
size=$(wc -c <"$png")
# A blank 1200x2000 page compresses to a few kilobytes; text and charts take far more.
[ "$size" -gt 40000 ] || fail "screenshot $png is only $size bytes: blank page?"
echo "screenshot: $png ($size bytes)"
