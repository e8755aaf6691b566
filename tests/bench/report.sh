#!/bin/sh
# report.sh: how fast a report opens. The flame graph of a ~100 MB folded
# profile (tests/bench/mkfolded.sh) goes into a run directory with its
# hotspot table; profreport writes the page; headless Chromium loads it
# with a harness that times navigation start to the moment the page and
# every flame-graph frame have loaded (their scripts run), best of ROUNDS.
# Also the times of profflame and profreport themselves and the page size.
#
# Environment: BIN (default bin), ROUNDS (default 3), MB (input size,
# default 100).
# Target (issue 13): the report opens in under 2 s.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${BIN:-$TOP/bin}
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
ROUNDS=${ROUNDS:-3}
MB=${MB:-100}
CHROMIUM=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHROMIUM=$c; break; }
done
[ -n "$CHROMIUM" ] || { echo "report.sh: needs chromium" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
IN=$(sh "$TOP/tests/bench/mkfolded.sh" "${TMPDIR:-/tmp}/proftools-bench/folded-${MB}M.txt" "$MB")
mkdir "$WORK/run"
t0=$(date +%s.%N)
"$BIN/profflame" -o "$WORK/run/cpu.svg" "$IN"
t1=$(date +%s.%N)
"$BIN/proffold" --top 30 -o "$WORK/run/cpu.top.tsv" "$IN"
t2=$(date +%s.%N)
"$BIN/profreport" -q "$WORK/run"
t3=$(date +%s.%N)
echo "input: $IN, $(($(wc -c <"$IN") / 1000000)) MB; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v svg="$(wc -c <"$WORK/run/cpu.svg")" \
    -v page="$(wc -c <"$WORK/run/index.html")" 'BEGIN {
	printf "profflame %.2f s (SVG %.1f MB), proffold --top %.2f s, profreport %.2f s (page %.1f MB)\n",
	    b - a, svg / 1e6, c - b, d - c, page / 1e6
}'
cat >"$WORK/harness.js" <<'JS'
(function () {
  var frames = document.querySelectorAll("iframe"), left = frames.length;
  function done() {
    var pre = document.createElement("pre");
    pre.id = "result";
    pre.textContent = "ms=" + Math.round(performance.now());
    document.body.appendChild(pre);
  }
  function one() { if (--left === 0 && document.readyState === "complete") done(); }
  frames.forEach(function (f) { f.addEventListener("load", one); });
  window.addEventListener("load", function () { if (left === 0) done(); });
})();
JS
# The harness goes first in the body so it sees every frame's load.
sed 's|<body>|<body><script>'"$(tr '\n' ' ' <"$WORK/harness.js" | sed 's/[&|]/\\&/g')"'</script>|' \
	"$WORK/run/index.html" >"$WORK/run/timed.html"
best=
r=1
while [ $r -le "$ROUNDS" ]; do
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$WORK/chromium" \
		--dump-dom "file://$WORK/run/timed.html" 2>/dev/null >"$WORK/dom.html" || true
	ms=$(sed -n 's/.*<pre id="result">ms=\([0-9]*\)<\/pre>.*/\1/p' "$WORK/dom.html" | head -n 1)
	[ -n "$ms" ] || { echo "report.sh: the page did not finish loading"; exit 1; }
	echo "round $r: loaded in $ms ms"
	if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	r=$((r + 1))
done
if [ "$best" -lt 2000 ]; then
	echo "best: $best ms (target < 2000 ms: met)"
else
	echo "best: $best ms (target < 2000 ms: MISSED)"
	exit 1
fi
