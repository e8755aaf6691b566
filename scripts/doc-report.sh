#!/bin/sh
# make doc/report.png and doc/heatmap.png: README's pictures. Profiles the
# demo program (tests/demo/app.c: threads, a peak, leaks) with
# proftools-profile in every mode, and records tests/tools/stripes.c (100 ms
# of work, 100 ms asleep, for 3 s) for profflame --heatmap's HTML page with
# a range selected (#range=); headless Chromium photographs both pages.
#   scripts/doc-report.sh [BINDIR [OUT.png [HEATMAP.png]]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-bin}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
png=${2:-$top/doc/report.png}
hmpng=${3:-$(dirname "$png")/heatmap.png}
# absolute: the screenshots are taken from the work directory (make doc
# passes doc/report.png, which was written there and removed with it)
case $png in /*) ;; *) png=$PWD/$png ;; esac
case $hmpng in /*) ;; *) hmpng=$PWD/$hmpng ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/proftools-doc.XXXXXX")
trap 'rm -rf "$work"' EXIT
chromium=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { chromium=$c; break; }
done
[ -n "$chromium" ] || { echo "doc-report: chromium is needed for the screenshot" >&2; exit 1; }
${CC:-cc} -O1 -g -fno-omit-frame-pointer -pthread -o "$work/app" "$top/tests/demo/app.c"
cd "$work"
APP_SECONDS=0.5 PROFTOOLS_BIN=$bin sh "$top/scripts/profile.sh" all -q -o report -- ./app >/dev/null
mkdir -p "$(dirname "$png")"
rm -f "$png" "$hmpng"	# so that a screenshot not taken is not the last one
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$work/chromium" --hide-scrollbars --window-size=1280,1800 \
	--virtual-time-budget=5000 --screenshot="$png" "file://$work/report/index.html" >/dev/null 2>&1
[ -s "$png" ] || { echo "doc-report: no screenshot written" >&2; exit 1; }
echo "$png"
${CC:-cc} -O1 -g -fno-omit-frame-pointer -o "$work/stripes" "$top/tests/tools/stripes.c"
"$bin/profrec" -q -e cpu-clock -o stripes.tsv -- ./stripes
"$bin/profflame" --heatmap --title "stripes: 100 ms of work, 100 ms asleep" -o heatmap.html stripes.tsv
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
	--user-data-dir="$work/chromium" --hide-scrollbars --window-size=1000,940 \
	--virtual-time-budget=5000 --screenshot="$hmpng" "file://$work/heatmap.html#range=0.9,1.3" >/dev/null 2>&1
[ -s "$hmpng" ] || { echo "doc-report: no heat map screenshot written" >&2; exit 1; }
echo "$hmpng"
