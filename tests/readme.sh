# README's tour as a test: every command of README.md's ```sh blocks, as
# the text a user copies, run in a scratch directory against
# tests/demo/app.c (built here as ./app: it prints, runs threads, leaks),
# checking what README claims for it. bin/ is a link to $BIN; ./unit-tests,
# ./train, ./bench, ./gpu-tests and ./server are copies of ./app. A command
# this script does not know is a failure: README cannot drift from it.
# The only rewritten commands are listed in map() with their reason.
. "$(dirname "$0")/lib.sh"

README=$TOP/README.md
W=$TMP/tour
mkdir -p "$W"
CC=${CC:-cc}
if ! $CC -O1 -g -fno-omit-frame-pointer -pthread -o "$W/app" "$TESTS/demo/app.c" 2>"$TMP/cc.err"; then
	fail "build tests/demo/app.c" "$(head -c 300 "$TMP/cc.err")"
	exit 0
fi
for c in unit-tests train bench gpu-tests server; do cp "$W/app" "$W/$c"; done
# train.py: a Python program for profrec --python (split -> leaf_a, leaf_b)
cat >"$W/train.py" <<'EOF2'
import time
def leaf_a(n):
    return sum(i * i for i in range(n))
def leaf_b(n):
    return sum(i * i for i in range(n))
def split(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        leaf_a(3000)
        leaf_b(1000)
split(0.5)
EOF2
ln -s "$BIN" "$W/bin"
# CPU seconds per app thread: short, except where README's time window
# (--time-from 0.5s --time-to 1s) needs a profile longer than 1 s.
if [ -n "$SANITIZE" ]; then SHORT=0.15; else SHORT=0.3; fi
LONG=1.2
export APP_SECONDS=$SHORT

# FlameGraph's scripts, only when FLAMEGRAPH_DIR names a checkout: the
# live perf capture below has no committed reference.
FG=${FLAMEGRAPH_DIR:-}
have_perf=
if command -v perf >/dev/null 2>&1 && perf record -q -o "$TMP/probe.data" -- true >/dev/null 2>&1; then
	have_perf=1
fi
# The commands, in README order: a code block's lines without comments.
commands=$(awk '/^```sh[[:space:]]*$/ { on = 1; next } /^```/ { on = 0; next } on' "$README" |
	sed -E 's/[[:space:]]+#.*$//; s/^#.*$//' | grep -v '^[[:space:]]*$')
[ -n "$commands" ] || { fail "README has sh code blocks" "none found in $README"; exit 0; }

# ---- checks on the files the tour writes
xml_ok() { # FILE: a well-formed XML document with an <svg> root
	[ -s "$W/$1" ] || { why="$1 missing or empty"; return 1; }
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$W/$1" 2>"$TMP/xml.err" || { why="$1 not well-formed: $(head -c 200 "$TMP/xml.err")"; return 1; }
	fi
	grep -q '<svg' "$W/$1" || { why="$1 has no <svg"; return 1; }
}
folded_ok() { # FILE [header|noheader]: folded stacks, "a;b;c COUNT" lines
	[ -s "$W/$1" ] || { why="$1 missing or empty"; return 1; }
	bad=$(grep -v '^#' "$W/$1" | grep -Ev '^.+ [0-9]+$' | head -n 1)
	[ -z "$bad" ] || { why="$1: not a folded line: $bad"; return 1; }
	grep -qv '^#' "$W/$1" || { why="$1 has no stacks"; return 1; }
	case ${2:-} in
	header) head -n 1 "$W/$1" | grep -q '^# ' || { why="$1 does not start with the # metadata line"; return 1; } ;;
	noheader) ! grep -q '^#' "$W/$1" || { why="$1 has a # line"; return 1; } ;;
	esac
}
tsv_ok() { # SCHEMA FILE
	"$TSVCHECK" "$1" "$W/$2" >"$TMP/tsv.err" 2>&1 || { why="$2 not valid $1 TSV: $(head -c 200 "$TMP/tsv.err")"; return 1; }
}
has() { # FILE TEXT
	grep -qF -- "$2" "$W/$1" || { why="$1 does not contain '$2'"; return 1; }
}
status() { # WANT
	[ "$STATUS" = "$1" ] || { why="exit $STATUS, expected $1; stderr: $(head -c 300 "$W/.err" | tr '\n' '|')"; return 1; }
}
no_sanitizer() {
	! grep -q 'Sanitizer\|runtime error:' "$W/.err" || { why="sanitizer report: $(grep -m1 -A3 'Sanitizer\|runtime error:' "$W/.err" | tr '\n' '|')"; return 1; }
}

# map CMD: the command actually run (usually CMD itself), with the reason
# for any rewrite in $mapped.
map() {
	mapped= run_cmd=$1
	case $1 in
	bin/profcompress\ -e*)
		run_cmd="bin/profcompress -t 0.02${1#bin/profcompress}"
		mapped="-t 0.02 added: each cell's timed work defaults to 1 s (18-26 s per command)" ;;
	*' -o /dev/null '*)
		run_cmd=$(printf '%s' "$1" | sed 's| -o /dev/null | -o ./null |')
		mapped="-o /dev/null -> ./null, a /dev/null made by mknod here (tests never touch the real /dev)" ;;
	esac
}

# ---- each command of the tour and what README says about it
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	name="README: $cmd"
	why= sk=
	map "$cmd"
	export APP_SECONDS=$SHORT
	case $cmd in
	'make check') skip "$name" "this is the suite itself (tests/check.sh runs this script)"; continue ;;
	'make demo')
		# make demo is deps + all + scripts/demo.sh: run the script on $BIN.
		run_cmd="DEMO_DIR=$W/demo scripts/demo.sh '$BIN'"
		mapped="run as scripts/demo.sh \$BIN (make demo would install packages and build into bin/)" ;;
	'perf '*|'perf script '*) [ -n "$have_perf" ] || sk="perf is not installed or may not record here" ;;
	*.zst*) have zstd || sk="zstd not installed (to read the .zst file it writes)" ;;
	'bin/proffold -e offcpu-time both.tsv'*)
		grep -q "$(printf '\toffcpu-time\t')" "$W/both.tsv" 2>/dev/null ||
			sk="both.tsv has no off-CPU samples (see the profrec --off-cpu line)" ;;
	'bin/profflame --hot-cold '*)
		grep -q "$(printf '\toffcpu-time\t')" "$W/both.tsv" 2>/dev/null ||
			sk="both.tsv has no off-CPU samples (see the profrec --off-cpu line)" ;;
	'bin/proffold --focus main '*)
		# main itself runs a few ms (the 8 MiB peak): a profile may miss it
		grep -q '^[^ ]*;main[; ]' "$W/app.folded" 2>/dev/null ||
			sk="no sample under main in app.folded (main's own work lasts a few ms)" ;;
	'bin/profrec -o app.tsv -- ./app') APP_SECONDS=$LONG ;;
	'bin/profrec --python '*|'bin/proftools-profile '*python3*|'bin/profheap '*python3*)
		have python3 || sk="python3 not installed" ;;
	'bin/profrec -p "$(pidof server)" -d 10 -o srv.tsv')
		# a running "server": ./server in the background, alive for about 1 s
		APP_SECONDS=0.6 "$W/server" </dev/null >/dev/null &
		server_pid=$!
		sleep 0.2 ;;
	'bin/profgpu '*'--kernel'*)
		# No GPU here: the fake CUDA of tests/fake-cupti (its program's
		# attention_layer and activation_layer launch kernels 3:1)
		# stands in for a PyTorch training run.
		rm -f "$W/null"
		mknod "$W/null" c 1 3 2>/dev/null || sk="cannot mknod a null device in $W"
		[ -x "$W/cuda/app" ] || sh "$TESTS/fake-cupti/build.sh" "$W/cuda" 2>"$TMP/cc.err" ||
			sk="cannot build tests/fake-cupti: $(head -c 200 "$TMP/cc.err")"
		run_cmd="export LD_LIBRARY_PATH='$W/cuda' PROFGPU_CUPTI='$W/cuda/libcupti.so'; \
$(printf '%s' "$run_cmd" | sed 's|python3 train.py|./cuda/app mix|')"
		mapped="$mapped; python3 train.py -> the fake CUDA program of tests/fake-cupti (no GPU here)" ;;
*' -o /dev/null '*)
		rm -f "$W/null"
		mknod "$W/null" c 1 3 2>/dev/null || sk="cannot mknod a null device in $W" ;;
	esac
	case $cmd in perf\ script*) [ -f "$W/perf.data" ] || sk="${sk:-no perf.data (perf record did not run)}" ;; esac
	if [ -n "$sk" ]; then skip "$name" "$sk"; continue; fi
	case $cmd in 'make demo') cd "$TOP" ;; *) cd "$W" ;; esac
	STATUS=0
	timeout 120 bash -c "$run_cmd" </dev/null >"$W/.out" 2>"$W/.err" || STATUS=$?
	cd "$W"
	[ -n "${server_pid:-}" ] && { wait "$server_pid" 2>/dev/null; server_pid=; }
	ok=1
	case $cmd in
	'make demo')
		svg=$(tail -n 1 .out)
		status 0 && [ -f "$svg" ] && cp "$svg" demo.svg && xml_ok demo.svg || { ok=0; why=${why:-"no SVG path printed: $(tail -n 1 .out)"}; } ;;
	'bin/profrec -o app.tsv -- ./app')
		status 0 && tsv_ok profrec-samples app.tsv && has app.tsv work_hot && has .out "app: threads done" || ok=0 ;;
	'bin/proffold app.tsv | bin/profflame -o app.svg')
		status 0 && xml_ok app.svg && has app.svg work_hot || ok=0 ;;
	'bin/profrec -- ./app | bin/proffold | bin/profflame >cpu.svg')
		status 0 && xml_ok cpu.svg && has cpu.svg work_hot && has .err "app: threads done" || ok=0 ;;
	'bin/profrec --python --folded -- python3 train.py >py.folded')
		status 0 && folded_ok py.folded header && has py.folded ';py::split (' &&
			has py.folded 'py::leaf_a (' || ok=0 ;;
	'bin/profrec --python --native --folded -- python3 train.py >mixed.folded')
		# sum()'s C code between leaf_a and the generator it runs, no eval loop left
		status 0 && folded_ok mixed.folded header &&
			grep -q 'py::leaf_a ([^)]*)\(;[^;(]*\)\{1,\};py::[^;(]*<genexpr> (' "$W/mixed.folded" &&
			! grep -q _PyEval_EvalFrameDefault "$W/mixed.folded" ||
			{ ok=0; why=${why:-"mixed.folded: no C frame between leaf_a and its generator, or an eval call left"}; } ;;
	'bin/profrec --folded -- ./app >app.folded')
		status 0 && folded_ok app.folded header && has app.folded work_hot || ok=0 ;;
	'bin/profrec --call-graph dwarf -o app.tsv.zst -- ./app')
		status 0 && zstd -dc app.tsv.zst >app-dwarf.tsv 2>/dev/null && tsv_ok profrec-samples app-dwarf.tsv &&
			has app-dwarf.tsv 'work_hot' || ok=0 ;;
	'bin/profrec -p "$(pidof server)" -d 10 -o srv.tsv')
		status 0 && tsv_ok profrec-samples srv.tsv && has srv.tsv work_hot || ok=0 ;;
	'bin/profrec -e cpu-clock --off-cpu -o both.tsv -- ./app')
		# a user with perf_event_paranoid >= 2 samples no kernel context:
		# no context switch, so no off-CPU sample
		paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
		if status 0 && tsv_ok profrec-samples both.tsv && has both.tsv "$(printf '\tcpu-clock\t')"; then
			if ! has both.tsv "$(printf '\toffcpu-time\t')"; then
				if [ "$(id -u)" != 0 ] && [ "$paranoid" -ge 2 ]; then
					skip "$name" "no off-CPU sample as a user with perf_event_paranoid $paranoid"
					continue
				fi
				ok=0
			fi
		else ok=0; fi ;;
	'bin/proffold -e offcpu-time both.tsv | bin/profflame --title off-CPU >wait.svg')
		status 0 && xml_ok wait.svg && has wait.svg off-CPU || ok=0 ;;
	'perf record -F 999 -g -- ./app')
		status 0 && [ -s perf.data ] || { ok=0; why=${why:-"no perf.data"}; } ;;
	'perf script | bin/proffold >perf.folded')
		status 0 && folded_ok perf.folded header && has perf.folded work_hot || ok=0 ;;
	'perf script | bin/proffold --no-header >fg.folded')
		if status 0 && folded_ok fg.folded noheader; then
			if [ -f "$FG/stackcollapse-perf.pl" ] && command -v perl >/dev/null 2>&1; then
				perf script </dev/null 2>/dev/null | perl "$FG/stackcollapse-perf.pl" >fg-ref.folded 2>/dev/null
				cmp -s fg.folded fg-ref.folded || { ok=0; why="not byte-identical to stackcollapse-perf.pl: $(diff fg-ref.folded fg.folded | head -n 4 | tr '\n' '|')"; }
			else
				skip "$name: byte-identical to stackcollapse-perf.pl" "no FlameGraph checkout (FLAMEGRAPH_DIR)"
			fi
		else ok=0; fi ;;
	'bin/proffold --top 10 --human app.tsv')
		status 0 && has .out work_hot || ok=0 ;;
	'bin/proffold --top 20 --sort total app.tsv >top.tsv')
		status 0 && tsv_ok proffold-top top.tsv && has top.tsv work_hot || ok=0 ;;
	'bin/proffold --focus main --strip-comm app.folded | bin/profflame >main.svg')
		status 0 && xml_ok main.svg && has main.svg main || ok=0 ;;
	'bin/proffold --merge-threads app.folded | bin/profflame >merged.svg')
		status 0 && xml_ok merged.svg && has merged.svg work_hot && has merged.svg main || ok=0 ;;
	'bin/proffold --callers work_hot app.folded | bin/profflame >callers.svg')
		status 0 && xml_ok callers.svg && has callers.svg work_hot && has callers.svg start_thread || ok=0 ;;
	'bin/proffold --callees work_hot app.folded | bin/profflame --inverted >callees.svg')
		status 0 && xml_ok callees.svg && has callees.svg work_hot && ! grep -q '<title>main (' "$W/callees.svg" || ok=0 ;;
	'bin/proffold --collapse-recursion --max-depth 20 app.tsv >shallow.folded')
		deep=$(grep -v '^#' shallow.folded 2>/dev/null | awk '{ sub(/ [0-9]+$/, ""); if (split($0, f, ";") > 20) print }' | head -n 1)
		status 0 && folded_ok shallow.folded && { [ -z "$deep" ] || { why="deeper than 20: $deep"; false; }; } || ok=0 ;;
	'bin/proffold --time-from 0.5s --time-to 1s app.tsv | bin/profflame >window.svg')
		status 0 && xml_ok window.svg || ok=0 ;;
	'bin/proffold -j 2 -o both.folded.zst app.folded app2.folded')
		status 0 && zstd -dc both.folded.zst >both.folded 2>/dev/null && folded_ok both.folded header || ok=0 ;;
	'bin/profflame --heatmap -o heatmap.html both.tsv')
		status 0 && has heatmap.html '<g id="cells">' && has heatmap.html 'var HM = ' &&
			has heatmap.html work_hot || ok=0 ;;
	'bin/proffold --heatmap --bucket 50ms both.tsv >heat.tsv')
		status 0 && tsv_ok proffold-heatmap heat.tsv && has heat.tsv 'bucket_ms=50' || ok=0 ;;
	'bin/profflame --hot-cold -o hotcold.svg both.tsv')
		status 0 && xml_ok hotcold.svg && has hotcold.svg 'Hot/Cold Flame Graph' && has hotcold.svg work_hot || ok=0 ;;
	"bin/profflame --title 'my app' --colors java -o app.html app.folded")
		status 0 && has app.html '<svg' && has app.html 'my app' && has app.html '<html' || ok=0 ;;
	'bin/profflame --diff -n app.folded app2.folded >diff.svg')
		status 0 && xml_ok diff.svg || ok=0 ;;
	'bin/profflame --reverse --inverted app.folded >callers.svg')
		status 0 && xml_ok callers.svg || ok=0 ;;
	'bin/profheap -o heap -- ./app')
		pid=$(ls heap 2>/dev/null | sed -n 's/^\([0-9]*\)\.alloc\.folded$/\1/p' | head -n 1)
		if status 0 && [ -n "$pid" ] || { why=${why:-"no heap/PID.alloc.folded: $(ls heap 2>&1 | tr '\n' ' ')"}; false; }; then
			for f in alloc count leak peak temp; do
				folded_ok "heap/$pid.$f.folded" || { [ $f = leak ] || [ $f = temp ]; } || ok=0
				[ -f "heap/$pid.$f.folded" ] || { ok=0; why="heap/$pid.$f.folded missing"; }
			done
			[ "$ok" = 1 ] && { tsv_ok profheap-timeline "heap/$pid.timeline.tsv" && has "heap/$pid.leak.folded" 'leak_phase' || ok=0; }
		else ok=0; fi ;;
	'bin/profheap -q -r peak -- ./app | bin/profflame --colors mem >peak.svg')
		status 0 && xml_ok peak.svg && has peak.svg peak_phase || ok=0 ;;
	'bin/profheap -f -- ./unit-tests')
		status 1 && has .err leak_phase || ok=0 ;;
	'bin/profheap --sample=1M -r alloc -- ./app | bin/proffold --top 20 --human')
		status 0 && has .out peak_phase || ok=0 ;;
	'bin/profheap -q --python -r alloc -- python3 train.py | bin/profflame >alloc.svg')
		# allocations of the genexprs leaf_a and leaf_b run, under split and <module>
		status 0 && xml_ok alloc.svg && has alloc.svg 'py::split (' && has alloc.svg 'py::leaf_a (' &&
			has alloc.svg 'py::&lt;module&gt; (' || ok=0 ;;
	'bin/profgpu -o gpu.tsv -- ./train')
		status 0 && tsv_ok profgpu-timeline gpu.tsv && has .out "app: threads done" || ok=0 ;;
	'bin/profgpu --summary -- ./bench')
		cp .out summary.tsv
		status 0 && tsv_ok profgpu-summary summary.tsv && has .err "app: threads done" || ok=0 ;;
	"bin/profgpu -q -o /dev/null --alert 'temp>85' --alert 'mem>95%' --fail-on-alert -- ./gpu-tests")
		# Without a GPU the gate cannot judge: exit 1, saying so.
		if grep -qF 'no GPU found to judge' "$W/.err"; then status 1; else status 0; fi &&
			[ -c null ] || { ok=0; why=${why:-"./null is no longer a character device"}; } ;;
	'bin/profgpu -l')
		# GPUs and backends found; without any, a message and exit 1.
		if [ "$STATUS" = 0 ]; then [ -s .out ] || { ok=0; why="exit 0 but nothing listed"; }
		else status 1 && has .err 'no GPU' || ok=0; fi ;;
	'bin/proftools-profile all -o prof -- ./app')
		status 0 && [ -s prof/index.html ] && has prof/index.html '<section id="memory">' &&
			has prof/memory-leak.folded leak_phase && has .out "app: threads done" || ok=0 ;;
	'bin/proftools-profile cpu --native -o py -- python3 train.py')
		# as profrec --python --native below: sum()'s C code under leaf_a, in the report too
		status 0 && folded_ok py/cpu.folded header && has py/index.html 'py::leaf_a (' &&
			grep -q 'py::leaf_a ([^)]*)\(;[^;(]*\)\{1,\};py::[^;(]*<genexpr> (' "$W/py/cpu.folded" &&
			! grep -q _PyEval_EvalFrameDefault "$W/py/cpu.folded" ||
			{ ok=0; why=${why:-"py/cpu.folded: no C frame between leaf_a and its generator, or an eval call left"}; } ;;
	'bin/proftools-profile compare -o cmp prof prof')
		status 0 && has cmp/index.html '<section id="compare">' && [ -s cmp/compare-memory-leak-diff.svg ] || ok=0 ;;
	'bin/profrec --folded -- ./app >app2.folded')
		status 0 && folded_ok app2.folded header && has app2.folded work_hot || ok=0 ;;
	'bin/profcmp --human app.folded app2.folded')
		status 0 && has .out spin && ! grep -q "$(printf '\t')" .out || { ok=0; why=${why:-"tabs in the aligned table"}; } ;;
	'bin/profcmp --folded-diff app.folded app2.folded | bin/profflame --diff >cmp.svg')
		status 0 && xml_ok cmp.svg && has cmp.svg work_hot || ok=0 ;;
	'bin/profcmp --fail-above 25 --min-delta 1 app.folded app2.folded')
		# two runs of one program: it passes, or names what moved
		if [ "$STATUS" = 1 ]; then has .err 'regressed by more than 25%' || ok=0
		else status 0 && "$TSVCHECK" profcmp-functions .out >/dev/null 2>&1 || { ok=0; why=${why:-"not profcmp-functions TSV"}; }; fi ;;
	'bin/profgpu -q -o /dev/null --kernel-stacks - -- python3 train.py | bin/profflame >gpu.svg')
		status 0 && xml_ok gpu.svg && has gpu.svg 'attention_layer' && has gpu.svg '[gpu] attention' || ok=0 ;;
	'bin/profgpu -o /dev/null --kernels kernels.tsv --kernel-stacks gpu.folded -- python3 train.py')
		status 5 && tsv_ok profgpu-kernels kernels.tsv && folded_ok gpu.folded &&
			has gpu.folded 'activation_layer;[launch] cudaLaunchKernel;[gpu] void gelu::kernel<float>(float*)' &&
			has .err 'Total Time (ns)' || ok=0 ;;
	'bin/proffold --top 10 gpu.folded')
		status 0 && has .out '[gpu] attention(float const*, float*, int)' || ok=0 ;;
	"bin/profgpu --host -o host.tsv --alert 'rss>2G' -- ./app")
		status 0 && tsv_ok profgpu-host host.tsv && has .out "app: threads done" &&
			has .err 'peak RSS' || ok=0 ;;
	'bin/profcompress -l')
		status 0 && has .out zstd && has .out lz4 || ok=0 ;;
	'bin/profcompress -e fast --human app.tsv')
		status 0 && has .out zstd && ! grep -q "$(printf '\t')" .out || { ok=0; why=${why:-"tabs in the aligned table"}; } ;;
	"bin/profcompress -e 'zstd:1,3,19/lz4/zlib:1-9' -b 64K --pareto -o r.tsv app.tsv")
		rows=$(grep -vc '^#' r.tsv 2>/dev/null)
		status 0 && tsv_ok profcompress r.tsv && { [ "$rows" -ge 14 ] || { why="r.tsv: $rows rows, expected 13 cells and the header"; false; }; } || ok=0 ;;
	"bin/profcompress -e fast --recommend 'cspeed>=200,dspeed>=1000' app.tsv")
		status 0 && [ -s .out ] || { ok=0; why=${why:-"no recommendation printed"}; } ;;
	*)
		fail "$name" "README command not covered by tests/readme.sh (add what README claims for it)"
		continue ;;
	esac
	[ "$ok" = 1 ] && no_sanitizer || ok=0
	if [ "$ok" = 1 ]; then pass "$name${mapped:+ [$mapped]}"
	else fail "$name${mapped:+ [$mapped]}" "$why"; fi
done <<EOF
$commands
EOF
[ "$n" -ge 30 ] || fail "README tour has its commands" "only $n commands found in README.md's sh blocks"
