#!/bin/sh
# profrec and language runtimes. --python: the Python stacks of CPython
# 3.9 to 3.13 read from the
# process's memory, on every interpreter this machine has (pyenv's in
# /root/.pyenv/versions, the distribution's python3; absent ones are
# skipped). A script splits its time 75/25 between two functions called
# from a third, called from module level: each must be named, its share
# within 5 points, and every sampled stack of them must reach <module>.
# The scripts do fixed work with no system call among the leaves (--units,
# tests/data/split.py): a loop that reads the CPU clock every round is
# preempted there on a loaded machine and its shares drift by 5 to 15
# points (profrec.1, --python), while the shares of fixed work hold
# (73-77% for 75 beside three busy loops on two cores, every interpreter).
# Also: a running process (-p), a command that never runs Python, a
# version the reader does not know, and the options it refuses. With
# --native: the native stack with the Python frames merged in, the C
# function a Python function calls (zlib's deflate) under it.
. "$(dirname "$0")/lib.sh"
P=$BIN/profrec

cp "$TESTS/data/split.py" "$TMP/split.py"
# The share of leaf_a among n independent samples has a binomial standard
# deviation of sqrt(0.75 * 0.25 / n): 0.8 points at 3000 samples (1300
# rounds, some 3 s of CPU at 999 Hz for pyenv's builds), 1.1 at 1500 (the
# distribution's faster 3.11), so 5 points are 4.5 or more of them. 10 s
# of CPU bounds a far slower machine (the shares stay fair: it stops
# between rounds).
PYUNITS="--units 1300 10"

# interpreters: "label path" lines
: >"$TMP/pythons"
for v in 3.9 3.10 3.11 3.12 3.13; do
	for exe in /root/.pyenv/versions/$v.*/bin/python$v; do
		[ -x "$exe" ] && echo "$v $exe" >>"$TMP/pythons" && break
	done
done
for exe in /usr/bin/python3; do
	[ -x "$exe" ] && echo "system $exe" >>"$TMP/pythons"
done
for v in 3.9 3.10 3.11 3.12 3.13; do
	grep -q "^$v " "$TMP/pythons" || skip "CPython $v" "not installed (pyenv: /root/.pyenv/versions/$v.*)"
done

while read -r label exe; do
	name="CPython $label ($exe)"
	run "$P" --python -F 999 --folded -o "$TMP/py.folded" -- "$exe" "$TMP/split.py" $PYUNITS
	if [ "$STATUS" != 0 ]; then
		fail "$name: recorded" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		continue
	fi
	# shares of leaf_a and leaf_b among their samples; stacks of them not under <module>
	awk -v name="$name" '
		/^#/ { next }
		{ n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack) }
		stack ~ /;py::leaf_[ab] \(/ {
			if (stack !~ /^python[0-9.]*;py::<module> \([^)]*split\.py:1\);py::rounds \([^)]*split\.py:17\);py::leaf_[ab] \([^)]*split\.py:(2|7)\)$/) bad = stack
			if (stack ~ /leaf_a/) a += n; else b += n
		}
		END {
			# in ns: 1 s of the leaves is some 1000 samples at 999 Hz
			if (a + b < 1e9) { print "FAIL profrec-runtimes: " name ": leaf CPU time " a + b " ns (under 1 s)"; exit }
			share = 100 * a / (a + b)
			if (bad != "") print "FAIL profrec-runtimes: " name ": every stack reaches <module>: " bad
			else print "PASS profrec-runtimes: " name ": every stack reaches <module> through rounds"
			if (share < 70 || share > 80) print "FAIL profrec-runtimes: " name ": leaf_a " share "% (75 +- 5 expected)"
			else print "PASS profrec-runtimes: " name ": leaf_a/leaf_b split 75/25 within 5 points (" int(share + 0.5) "%)"
		}' "$TMP/py.folded"
	check "$name: the version in the metadata" 0 "yes" sh -c \
		"head -n 1 '$TMP/py.folded' | grep -q ' call_graph=python .*python=3\\.[0-9]' && echo yes"
done <"$TMP/pythons"

# ---- TSV through proffold, and a running process (-p) ----
exe=$(awk 'NR == 1 { print $2 }' "$TMP/pythons")
if [ -n "$exe" ]; then
	run "$P" --python -o "$TMP/py.tsv" -- "$exe" "$TMP/split.py" 0.5
	validate_tsv "TSV: valid profrec-samples" profrec-samples "$TMP/py.tsv"
	check "TSV: proffold folds it under the thread's name" 0 "yes" sh -c \
		"'$BIN/proffold' -q --no-header '$TMP/py.tsv' | grep -q '^python[0-9.]*;py::<module> (.*split.py:1);py::split' && echo yes"
	"$exe" "$TMP/split.py" 3 &
	pypid=$!
	sleep 0.5
	run "$P" --python --folded -d 0.5 -p "$pypid"
	kill "$pypid" 2>/dev/null
	wait "$pypid" 2>/dev/null
	if [ "$STATUS" = 0 ] && grep -q ';py::leaf_a (' "$TMP/stdout"; then
		pass "-p: a running interpreter, no restart"
	else
		fail "-p: a running interpreter, no restart" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- an interpreter in another mount namespace (a container, unshare -m) ----
# python and its libpython (with _PyRuntime) copied to a tmpfs only its
# namespace has: their ELF files are read through /proc/PID/root.
exe=$(awk '$2 ~ /^\/root\/.pyenv\/versions\/3\.1[0-3]/ { print $2; exit }' "$TMP/pythons")
lib=$(ls "${exe%/bin/*}"/lib/libpython3.*.so.1.0 2>/dev/null | head -n 1)
mkdir -p "$TMP/ctr"
ns_why=
if [ -z "$exe" ] || [ -z "$lib" ]; then ns_why="no pyenv CPython 3.10-3.13 with libpython here"
elif [ "$(id -u)" != 0 ]; then ns_why="needs root (unshare -m, mount)"
elif ! unshare -m --propagation private sh -c "mount -t tmpfs tmpfs '$TMP/ctr'" 2>/dev/null; then
	ns_why="unshare -m and a tmpfs mount refused here"
fi
if [ -n "$ns_why" ]; then
	skip "mount namespace: --python" "$ns_why"
	skip "mount namespace: --python -p" "$ns_why"
	skip "mount namespace: --python --native" "$ns_why"
else
	cat >"$TMP/pyns" <<EOS
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs "$TMP/ctr" && cp "$exe" "$lib" "$TMP/ctr/" &&
	PYTHONHOME="${exe%/bin/*}" LD_LIBRARY_PATH="$TMP/ctr" exec "$TMP/ctr/${exe##*/}" "\$@"' sh "\$@"
EOS
	chmod +x "$TMP/pyns"
	run "$P" --python --folded -o "$TMP/pyns.folded" -- "$TMP/pyns" "$TMP/split.py" 0.5
	if [ "$STATUS" = 0 ] && grep -q ';py::leaf_a (' "$TMP/pyns.folded"; then
		pass "mount namespace: --python"
	else
		fail "mount namespace: --python" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
	# --native: the interpreter's C frames named from the namespace's libpython
	run "$P" --python --native --folded -o "$TMP/pynn.folded" -- "$TMP/pyns" "$TMP/split.py" 0.5
	if [ "$STATUS" = 0 ] && grep -q ';py::leaf_a ([^)]*);[A-Za-z_]' "$TMP/pynn.folded" &&
		! grep -Eq '(libpython|python)3[^;]*\+0x' "$TMP/pynn.folded"; then
		pass "mount namespace: --python --native"
	else
		fail "mount namespace: --python --native" "exit $STATUS: $(grep -Eo '[^;]*\+0x[^;]*' "$TMP/pynn.folded" | head -n 3 | tr '\n' ' ')$(head -c 300 "$TMP/stderr")"
	fi
	"$TMP/pyns" "$TMP/split.py" 3 &
	pypid=$!
	sleep 0.5
	run "$P" --python --folded -d 0.5 -p "$pypid"
	kill "$pypid" 2>/dev/null
	wait "$pypid" 2>/dev/null
	if [ "$STATUS" = 0 ] && grep -q ';py::leaf_a (' "$TMP/stdout"; then
		pass "mount namespace: --python -p"
	else
		fail "mount namespace: --python -p" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- what it refuses ----
check_error "a command that never runs Python: said, exit 1" 1 'never ran CPython' \
	"$P" --python --folded -- sh -c 'sleep 0.2'
old=
for exe in /root/.pyenv/versions/3.8.*/bin/python3.8 /root/.pyenv/versions/3.7.*/bin/python3.7; do
	[ -x "$exe" ] && old=$exe && break
done
if [ -n "$old" ]; then
	check_error "an unknown version is refused by name" 1 'Python 3\.[78][.0-9]* is not supported \(3\.9 to 3\.13 are\)' \
		"$P" --python --folded -- "$old" -c 'import time; time.sleep(1)'
else
	skip "an unknown version is refused by name" "no CPython 3.7 or 3.8 installed"
fi
check_error "--python with -a: usage" 2 '--python takes a command or one -p PID' "$P" --python -a
check_error "--python with -e: usage" 2 '--python takes a command or one -p PID' "$P" --python -e cycles -- true
check_error "--python with two -p: usage" 2 '--python takes a command or one -p PID' "$P" --python -p 1,2
check_error "--native without --python: usage" 2 '--native needs --python' "$P" --native -- true
check_error "--idle without --python: usage" 2 '--idle needs --python' "$P" --idle -- true

# ---- --python --native: native stacks with the Python frames in place of
# the interpreter's eval calls. split-zlib.py's leaf_a and leaf_b spend
# their time in zlib.compress (C: the zlib module, deflate in libz) 75/25:
# every stack of them runs <module>, rounds, the leaf, then only native
# frames; no eval function left; most of their time under deflate; 75/25
# within 5 points. 1800 rounds are some 3 s of CPU (the time is zlib's,
# alike on every interpreter): 1500 samples at 499 Hz, a binomial
# standard deviation of 1.1 points for the share (5 points are 4.5); at
# 299 Hz, 900 samples, it was 1.4 (3.5 deviations: one check in 2000
# would fail by chance).
cp "$TESTS/data/split-zlib.py" "$TMP/split-zlib.py"
while read -r label exe; do
	name="--native: CPython $label"
	run "$P" --python --native -F 499 --folded -o "$TMP/pyn.folded" -- "$exe" "$TMP/split-zlib.py" --units 1800 10
	if [ "$STATUS" != 0 ]; then
		fail "$name: recorded" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		continue
	fi
	awk -v name="$name" '
		/^#/ { next }
		{ n = $NF; stack = $0; sub(/ [0-9]+$/, "", stack) }
		stack ~ /_PyEval_EvalFrameDefault/ { evals = stack }
		stack ~ /;py::leaf_[ab] \(/ {
			rest = stack
			sub(/.*;py::leaf_[ab] \([^)]*\)/, "", rest)
			if (stack !~ /^python[0-9.]*;py::<module> \([^)]*split-zlib\.py:1\);py::rounds \([^)]*split-zlib\.py:13\);py::leaf_[ab] \([^)]*split-zlib\.py:(2|5)\)(;|$)/ ||
			    rest ~ /py::/) bad = stack
			if (rest ~ /;deflate(_[[]i[]])?(;|$)/) z += n
			if (stack ~ /leaf_a/) a += n; else b += n
		}
		END {
			if (a + b < 1e9) { print "FAIL profrec-runtimes: " name ": leaf CPU time " a + b " ns (under 1 s)"; exit }
			share = 100 * a / (a + b)
			if (bad != "") print "FAIL profrec-runtimes: " name ": <module>, rounds, the leaf, native frames: " bad
			else print "PASS profrec-runtimes: " name ": every leaf stack runs <module>, rounds, the leaf, then native frames"
			if (evals != "") print "FAIL profrec-runtimes: " name ": an eval call left in a stack: " evals
			else print "PASS profrec-runtimes: " name ": no _PyEval_EvalFrameDefault left"
			if (z < 0.5 * (a + b)) print "FAIL profrec-runtimes: " name ": " int(100 * z / (a + b)) "% of the leaves under deflate (over 50 expected)"
			else print "PASS profrec-runtimes: " name ": zlib'"'"'s deflate under the leaves (" int(100 * z / (a + b) + 0.5) "% of their time)"
			# 5 points under load too: fixed work, no clock read in
			# the loop (with one, 58-72% beside three busy loops)
			if (share < 70 || share > 80) print "FAIL profrec-runtimes: " name ": leaf_a " share "% (75 +- 5 expected)"
			else print "PASS profrec-runtimes: " name ": leaf_a/leaf_b split 75/25 within 5 points (" int(share + 0.5) "%)"
		}' "$TMP/pyn.folded"
	check "$name: metadata" 0 "yes" sh -c \
		"head -n 1 '$TMP/pyn.folded' | grep -q ' call_graph=python+native .* unmergeable_stacks=[0-9]' && echo yes"
done <"$TMP/pythons"

exe=$(awk 'NR == 1 { print $2 }' "$TMP/pythons")
if [ -n "$exe" ]; then
	# threads stopped and let go: the command's own exit status comes back,
	# its threads (which end while sampled) are named, nothing is left traced
	cat >"$TMP/threads.py" <<'EOF2'
import sys, threading, time, zlib
data = bytes((i * 7919) % 251 for i in range(1 << 16)) * 2
def work(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        zlib.compress(data, 6)
ts = [threading.Thread(target=work, args=(0.4,)) for _ in range(2)]
for t in ts: t.start()
for t in ts: t.join()
work(0.3)
sys.exit(3)
EOF2
	# no --folded: -o NAME.folded says it, as for native stacks
	run "$P" --python --native -F 299 -o "$TMP/pyt.folded" -- "$exe" "$TMP/threads.py"
	if [ "$STATUS" = 3 ] && grep -q ';py::work ([^;]*threads\.py:3);[^ ]*deflate' "$TMP/pyt.folded" &&
	   grep -q ';py::\(Thread\.\)\{0,1\}_bootstrap (' "$TMP/pyt.folded" &&
	   ! grep -q '	' "$TMP/pyt.folded"; then
		pass "--native: threads stopped and let go; the command's exit status 3; -o NAME.folded is folded"
	else
		fail "--native: threads stopped and let go; the command's exit status 3; -o NAME.folded is folded" \
			"exit $STATUS: $(head -c 300 "$TMP/stderr") $(grep -c . "$TMP/pyt.folded") stacks"
	fi
	run "$P" --python --native -o "$TMP/pyn.tsv" -- "$exe" "$TMP/split-zlib.py" 0.5
	validate_tsv "--native: TSV: valid profrec-samples" profrec-samples "$TMP/pyn.tsv"
	# no signal lost to the stops: 100 SIGUSR1, each sent once the script's
	# handler has counted the one before (standard signals pending
	# together are one, and so are Python's handler calls), sampled at
	# 999 Hz: some 5% of them come while its thread is stopped and wait
	# there; one that comes between the interrupt and the stop (a
	# signal-delivery-stop, passed on at the detach) is rare, the kernel
	# takes the interrupt's trap first. A lost one stops the count.
	cat >"$TMP/signals.py" <<'EOF2'
import os, signal, sys, time, zlib
n = 0
def count(sig, frame):
    global n
    n += 1
    with open(sys.argv[1] + ".new", "w") as f:
        f.write("%d\n" % n)
    os.replace(sys.argv[1] + ".new", sys.argv[1])
signal.signal(signal.SIGUSR1, count)
data = bytes((i * 7919) % 251 for i in range(1 << 16))
with open(sys.argv[1], "w") as f:
    f.write("0\n")
end = time.monotonic() + 30
while n < 100 and time.monotonic() < end:
    zlib.compress(data, 6)
sys.stderr.write("signals %d\n" % n)
EOF2
	rm -f "$TMP/count"
	"$P" --python --native -F 999 --folded -o "$TMP/sig.folded" -- "$exe" "$TMP/signals.py" "$TMP/count" \
		2>"$TMP/sig.err" &
	recpid=$!
	i=0
	while [ ! -e "$TMP/count" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	pypid=$(awk '{ print $1 }' "/proc/$recpid/task/$recpid/children" 2>/dev/null)
	i=0
	while [ -n "$pypid" ] && [ $i -lt 100 ]; do
		kill -USR1 "$pypid" 2>/dev/null
		i=$((i + 1))
		w=0	# its count, within 5 s
		while [ "$(cat "$TMP/count" 2>/dev/null)" != $i ] && [ $w -lt 500 ]; do
			sleep 0.01
			w=$((w + 1))
		done
		[ $w -lt 500 ] || break
	done
	wait "$recpid"
	if [ $? = 0 ] && grep -q '^signals 100$' "$TMP/sig.err"; then
		pass "--native: no signal lost to the stops (100 of 100 counted)"
	else
		fail "--native: no signal lost to the stops (100 of 100 counted)" "$(head -c 300 "$TMP/sig.err")"
	fi
	"$exe" "$TMP/split-zlib.py" 3 &
	pypid=$!
	sleep 0.5
	run "$P" --python --native --folded -d 0.5 -p "$pypid"
	sleep 0.2
	if [ "$STATUS" = 0 ] && grep -q ';py::leaf_a ([^;]*);[^ ]*deflate' "$TMP/stdout" &&
	   kill -0 "$pypid" 2>/dev/null && ! grep -q '^TracerPid:[^0]*[1-9]' "/proc/$pypid/status"; then
		pass "--native -p: a running interpreter, let go untraced"
	else
		fail "--native -p: a running interpreter, let go untraced" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
	kill "$pypid" 2>/dev/null
	wait "$pypid" 2>/dev/null
	# a process traced already (strace) cannot be stopped: said, exit 1
	if have strace; then
		strace -o /dev/null "$exe" "$TMP/split-zlib.py" 3 &
		stpid=$!
		sleep 0.5
		pypid=$(awk '{ print $1 }' "/proc/$stpid/task/$stpid/children" 2>/dev/null)
		check_error "--native: a process traced already is refused, exit 1" 1 \
			'cannot stop its threads: Operation not permitted \(already traced' \
			"$P" --python --native --folded -d 0.3 -p "${pypid:-0}"
		kill "$stpid" 2>/dev/null
		[ -n "$pypid" ] && kill "$pypid" 2>/dev/null
		wait "$stpid" 2>/dev/null
	else
		skip "--native: a process traced already is refused, exit 1" "strace not installed"
	fi
fi

# ---- runtimes' perf support turned on in the command's environment
env_of() { # the three variables as the command sees them
	echo 'echo "PY=${PYTHONPERFSUPPORT-unset}|NODE=${NODE_OPTIONS-unset}|JAVA=${JAVA_TOOL_OPTIONS-unset}"' >"$TMP/env.sh"
	"$@" sh "$TMP/env.sh" >"$TMP/env.out" 2>"$TMP/env.err"
}
(
	unset PYTHONPERFSUPPORT NODE_OPTIONS JAVA_TOOL_OPTIONS
	env_of "$P" -o "$TMP/env.tsv" --
	check "runtime perf support: on by default" 0 \
		"PY=1|NODE=--perf-basic-prof --interpreted-frames-native-stack|JAVA=-XX:+IgnoreUnrecognizedVMOptions -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" \
		cat "$TMP/env.out"
	check "runtime perf support: in the metadata" 0 "runtime_perf=python,node,java" \
		sh -c "head -n 1 '$TMP/env.tsv' | grep -o 'runtime_perf=[^ ]*'"
	check "runtime perf support: said once on stderr" 0 "1" \
		grep -c 'perf support of python,node,java turned on in the command.s environment (--no-runtime-perf: off)' "$TMP/env.err"
	env_of env PYTHONPERFSUPPORT=0 NODE_OPTIONS=--perf-prof JAVA_TOOL_OPTIONS=-Xmx1g "$P" -o "$TMP/env.tsv" --
	check "runtime perf support: what the user set wins" 0 \
		"PY=0|NODE=--perf-prof|JAVA=-Xmx1g -XX:+IgnoreUnrecognizedVMOptions -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" cat "$TMP/env.out"
	check "runtime perf support: only what was turned on is in the metadata" 0 "runtime_perf=java" \
		sh -c "head -n 1 '$TMP/env.tsv' | grep -o 'runtime_perf=[^ ]*'"
	env_of "$P" --no-runtime-perf -o "$TMP/env.tsv" --
	check "--no-runtime-perf: the environment as it was" 0 "PY=unset|NODE=unset|JAVA=unset" cat "$TMP/env.out"
	check "--no-runtime-perf: no runtime_perf in the metadata" 1 "0" \
		grep -c 'runtime_perf=' "$TMP/env.tsv"
)

# ---- Node: JavaScript functions named, stacks whole from the script down
if need "node: JavaScript functions and whole stacks" node nodejs; then
	cat >"$TMP/split.js" <<'EOF2'
function leafA(n) { let s = 0; for (let i = 0; i < n; i++) s += i * i % 7; return s; }
function leafB(n) { let s = 0; for (let i = 0; i < n; i++) s += i * i % 7; return s; }
function cpuMs() { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
function split(ms) { const end = cpuMs() + ms; let t = 0; while (cpuMs() < end) { t += leafA(300000); t += leafB(100000); } return t; }
function main() { return split(Number(process.argv[2])); }
main();
EOF2
	run env -u NODE_OPTIONS "$P" --folded -o "$TMP/js.folded" -- node "$TMP/split.js" "$([ -n "$SANITIZE" ] && echo 1000 || echo 2000)"
	if [ "$STATUS" != 0 ]; then
		fail "node: recorded" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	else
		awk '
			/^#/ { next }
			{ n = $NF }
			/JS:[*~^]?leaf[AB] / {
				# in order; frames of V8 itself (builtins, a trampoline) may stand
				# between, and optimized code may have inlined split into main
				if ($0 !~ /JS:[*~^]?main [^;]*split\.js:5:[0-9]+;(.*;)?JS:[*~^]?leaf[AB] [^;]*split\.js:[12]:[0-9]+[; ]/) bad = $0
				if ($0 ~ /leafA/) a += n; else b += n
			}
			END {
				if (a + b < 200) { print "FAIL profrec-runtimes: node: leaf samples: " a + b; exit }
				if (bad != "") print "FAIL profrec-runtimes: node: every stack of the leaves reaches main: ..." substr(bad, length(bad) - 400)
				else print "PASS profrec-runtimes: node: every stack of the leaves reaches main"
				share = 100 * a / (a + b)
				if (share < 70 || share > 80) print "FAIL profrec-runtimes: node: leafA " share "% (75 +- 5 expected)"
				else print "PASS profrec-runtimes: node: leafA/leafB split 75/25 within 5 points"
			}' "$TMP/js.folded"
	fi
fi

# ---- the perf maps profrec caused are removed once named; the user's stay
if have node; then
	echo 'console.log(process.pid); let s = 0; for (let i = 0; i < 3e7; i++) s += i % 7;' >"$TMP/pid.js"
	run env -u NODE_OPTIONS -u PYTHONPERFSUPPORT -u JAVA_TOOL_OPTIONS \
		"$P" --folded -o "$TMP/pid.folded" -- node "$TMP/pid.js"
	npid=$(head -n 1 "$TMP/stdout")
	if [ "$STATUS" = 0 ] && [ -n "$npid" ] && [ ! -e "/tmp/perf-$npid.map" ] &&
	   grep -q 'JS:' "$TMP/pid.folded"; then
		pass "perf maps: node's map, written because of profrec, named the frames and is gone"
	else
		fail "perf maps: node's map, written because of profrec, named the frames and is gone" \
			"exit $STATUS, pid '$npid': $(ls -l "/tmp/perf-$npid.map" 2>&1)"
	fi
	run env NODE_OPTIONS=--perf-basic-prof "$P" --folded -o "$TMP/pid.folded" -- node "$TMP/pid.js"
	npid=$(head -n 1 "$TMP/stdout")
	if [ "$STATUS" = 0 ] && [ -n "$npid" ] && [ -s "/tmp/perf-$npid.map" ]; then
		pass "perf maps: a map the user's own NODE_OPTIONS asked for stays"
	else
		fail "perf maps: a map the user's own NODE_OPTIONS asked for stays" "exit $STATUS, pid '$npid'"
	fi
	# the map, and the V8 log node's perf option wrote in the working directory
	[ -n "$npid" ] && rm -f "/tmp/perf-$npid.map" isolate-0x*-"$npid"-v8.log
fi

# ---- proftools-profile: a CPython command gets its Python stacks by default
W=$BIN/proftools-profile
exe=$(awk 'NR == 1 { print $2 }' "$TMP/pythons")
if [ -n "$exe" ] && [ -x "$W" ]; then
	mkdir -p "$TMP/pybin"
	ln -sf "$exe" "$TMP/pybin/python3"
	run env PATH="$TMP/pybin:$PATH" "$W" cpu -o "$TMP/wp" -- python3 "$TMP/split.py" 0.5
	if [ "$STATUS" = 0 ] && grep -q ';py::split (.*split.py:12);py::leaf_a (' "$TMP/wp/cpu.folded" &&
	   grep -q 'runs a CPython: its Python stacks are sampled' "$TMP/stderr" &&
	   grep -q 'py::leaf_a' "$TMP/wp/index.html"; then
		pass "proftools-profile cpu: a CPython's Python functions, in cpu.folded and the report"
	else
		fail "proftools-profile cpu: a CPython's Python functions, in cpu.folded and the report" \
			"exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
	run env PATH="$TMP/pybin:$PATH" "$W" cpu --no-python -o "$TMP/wn" -- python3 "$TMP/split.py" 0.3
	if [ "$STATUS" = 0 ] && [ -s "$TMP/wn/cpu.folded" ] && ! grep -q 'py::leaf_a (' "$TMP/wn/cpu.folded"; then
		pass "proftools-profile cpu --no-python: native stacks"
	else
		fail "proftools-profile cpu --no-python: native stacks" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
	run "$W" cpu -o "$TMP/wc" -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
	if [ "$STATUS" = 0 ] && ! grep -q 'CPython' "$TMP/stderr"; then
		pass "proftools-profile cpu: a shell is not taken for a CPython"
	else
		fail "proftools-profile cpu: a shell is not taken for a CPython" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
fi

# ---- DWARF stacks through CPython 3.12+'s perf trampolines (PYTHONPERFSUPPORT,
# turned on by default): native frames and Python functions in one stack,
# from _start through py::<module> and py::rounds to the leaf
for v in 3.12 3.13; do
	exe=
	for e in /root/.pyenv/versions/$v.*/bin/python$v; do [ -x "$e" ] && exe=$e && break; done
	if [ -z "$exe" ]; then
		skip "dwarf through CPython $v's trampolines" "CPython $v not installed"
		continue
	fi
	run env -u PYTHONPERFSUPPORT "$P" --call-graph dwarf --folded -o "$TMP/pyd.folded" -- "$exe" "$TMP/split.py" --units 450 5
	if [ "$STATUS" != 0 ]; then
		fail "dwarf through CPython $v's trampolines" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		continue
	fi
	awk -v v="$v" '
		/^#/ { next }
		/;py::leaf_[ab]:/ {
			n = $NF; t += n
			if ($0 ~ /;_start;.*;py::<module>:[^;]*split\.py;.*;py::rounds:[^;]*split\.py;.*;py::leaf_[ab]:/) ok += n
			else bad = $0
			if ($0 ~ /py::leaf_a:/) a += n
		}
		END {
			name = "dwarf through CPython " v "'"'"'s trampolines"
			if (t < 100) { print "FAIL profrec-runtimes: " name ": " t " leaf samples"; exit }
			if (ok < t) print "FAIL profrec-runtimes: " name ": " t - ok " of " t " leaf stacks stop short: ..." substr(bad, length(bad) - 300)
			else print "PASS profrec-runtimes: " name ": every leaf stack runs from _start through <module> and rounds"
			s = 100 * a / t
			if (s < 70 || s > 80) print "FAIL profrec-runtimes: " name ": leaf_a " s "% (75 +- 5)"
			else print "PASS profrec-runtimes: " name ": 75/25 within 5 points"
		}' "$TMP/pyd.folded"
done

# ---- jitdump: JIT code named from the jit-PID.dump a runtime maps (node
# --perf-prof writes no perf map, only the dump)
if have node; then
	mkdir -p "$TMP/jd"
	run sh -c "cd '$TMP/jd' && NODE_OPTIONS=--perf-prof '$P' --folded -o '$TMP/jd.folded' -- node '$TMP/split.js' 800"
	if [ "$STATUS" = 0 ] && grep -q 'JS:[*~^]*leafA [^;]*split\.js:1:' "$TMP/jd.folded"; then
		pass "jitdump: node --perf-prof's JavaScript functions named from jit-PID.dump"
	else
		fail "jitdump: node --perf-prof's JavaScript functions named from jit-PID.dump" \
			"exit $STATUS: $(head -c 300 "$TMP/stderr")"
	fi
	rm -f /tmp/perf-*.map.profrec-test 2>/dev/null
fi

# ---- Java: JIT-compiled methods named from the perf map the JVM writes at
# exit (DumpPerfMapAtExit, turned on with PreserveFramePointer): frames of
# JIT code are kept as addresses while recording and named at the end.
# Interpreted methods are "Interpreter" in that map (as perf names them);
# dontinline keeps each method a frame of its own, as it would be without
# inlining (the JVM's map does not unfold inlined methods).
if need "java: Java methods named" java default-jdk-headless &&
   need "java: Java methods named" javac default-jdk-headless; then
	mkdir -p "$TMP/java"
	if ! javac -d "$TMP/java" "$TESTS/data/Split.java" 2>"$TMP/javac.err"; then
		fail "java: Split.java compiled" "$(head -c 300 "$TMP/javac.err")"
	else
		JOPTS="-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Split::* -cp $TMP/java"
		# the leaves' stacks: from the JVM's call of main (the call stub),
		# main, split, the leaf (then what it calls: the JVM's runtime, the
		# kernel); a
		# method not compiled (yet) is Interpreter
		java_stacks() { # NAME FILE
			awk -v name="$1" '
				/^#/ { next }
				{ n = $NF }
				/leaf[AB]/ {
					if ($0 !~ /JavaCalls::call_helper[^;]*;StubRoutines[^;]*;(Interpreter|[^;]*main[^;]*);(Interpreter|[^;]*split[^;]*);[^;]*leaf[AB][^;]*(;.*)? [0-9]+$/) { bad = $0; nbad += n }
					if ($0 ~ /leafA/) a += n; else b += n
				}
				END {
					if (a + b < 500) { print "FAIL profrec-runtimes: " name ": leafA and leafB named in " a + b " samples (500 or more expected)"; exit }
					print "PASS profrec-runtimes: " name ": leafA and leafB named"
					# a sample in a leaf'"'"'s prologue, before it saved the frame
					# pointer, misses its caller (perf -g too): 1% of them may
					if (nbad > (a + b) / 100) print "FAIL profrec-runtimes: " name ": " nbad " of " a + b " leaf stacks miss main or split: ..." substr(bad, length(bad) - 300)
					else print "PASS profrec-runtimes: " name ": the stacks of the leaves reach main through split (" nbad + 0 " of " a + b " not)"
					share = 100 * a / (a + b)
					if (share < 70 || share > 80) print "FAIL profrec-runtimes: " name ": leafA " share "% (75 +- 5 expected)"
					else print "PASS profrec-runtimes: " name ": leafA/leafB split 75/25 within 5 points (" int(share + 0.5) "%)"
				}' "$2"
		}
		# shellcheck disable=SC2086 # JOPTS: words
		run env -u JAVA_TOOL_OPTIONS "$P" --folded -o "$TMP/java.folded" -- java $JOPTS Split 3000
		if [ "$STATUS" != 0 ]; then
			fail "java: recorded" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		else
			java_stacks "java (folded)" "$TMP/java.folded"
		fi
		# TSV streamed while the names were unknown: rewritten at the end
		# shellcheck disable=SC2086
		run env -u JAVA_TOOL_OPTIONS "$P" -o "$TMP/java.tsv.gz" -- java $JOPTS Split 1500
		validate_tsv "java: TSV rewritten with the names: valid profrec-samples" profrec-samples "$TMP/java.tsv.gz"
		"$BIN/proffold" -q "$TMP/java.tsv.gz" >"$TMP/java-tsv.folded" 2>/dev/null
		java_stacks "java (TSV, gzip)" "$TMP/java-tsv.folded"
		check "java: TSV rewritten with the names (gzip), no address left" 0 "" \
			sh -c "gzip -dc '$TMP/java.tsv.gz' | grep -o 'unknown 0x[^]]*]' | head -n 3"
		# -p: a JVM still running when the recording stops writes no map
		# of itself: it is asked for one through its attach mechanism
		# (Compiler.perfmap, as jcmd asks); --no-runtime-perf asks nothing
		for mode in ask no; do
			# shellcheck disable=SC2086
			java -XX:+PreserveFramePointer $JOPTS Split 6000 >"$TMP/java-run.out" 2>&1 &
			jpid=$!
			sleep 0.7
			if [ $mode = ask ]; then
				run "$P" --folded -o "$TMP/java-r.folded" -d 1.5 -p "$jpid"
			else
				run "$P" --no-runtime-perf --folded -o "$TMP/java-r.folded" -d 1.5 -p "$jpid"
			fi
			alive=$(kill -0 "$jpid" 2>/dev/null && echo yes)
			kill "$jpid" 2>/dev/null
			wait "$jpid" 2>/dev/null
			left=$([ -e "/tmp/perf-$jpid.map" ] && echo "its map left behind")
			rm -f "/tmp/perf-$jpid.map"
			if [ $mode = ask ]; then
				if [ "$STATUS" = 0 ] && [ "$alive" = yes ] && grep -q 'Split\.leafA' "$TMP/java-r.folded" &&
				   ! grep -q 'Full thread dump' "$TMP/java-run.out" && [ -z "$left" ]; then
					pass "java -p: a running JVM asked for its perf map at the end, no thread dump, the map removed"
				else
					fail "java -p: a running JVM asked for its perf map at the end, no thread dump, the map removed" \
						"exit $STATUS, alive $alive $left: $(head -c 300 "$TMP/stderr")"
				fi
			else
				check "java -p --no-runtime-perf: the JVM not asked, JIT frames [unknown]" 0 "0 0" \
					sh -c "echo $STATUS \$(grep -c 'Split\\.leafA' '$TMP/java-r.folded')"
			fi
		done
		# -p: a JVM that exits while recorded (its map written at exit)
		# shellcheck disable=SC2086
		env JAVA_TOOL_OPTIONS="-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" \
			java $JOPTS Split 2500 >/dev/null 2>&1 &
		jpid=$!
		sleep 0.5
		run "$P" --folded -o "$TMP/java-p.folded" -p "$jpid"
		wait "$jpid" 2>/dev/null
		if [ "$STATUS" != 0 ]; then
			fail "java -p: recorded" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
		else
			java_stacks "java -p (a JVM that exits)" "$TMP/java-p.folded"
		fi
		# JVMs profrec did not start with JAVA_TOOL_OPTIONS: one whose
		# launcher cleared it, still running when the command ends (a
		# server started in the background), and one of -a: asked for
		# their maps at the end as -p asks, their leaves named (without
		# PreserveFramePointer a stack stops at its JIT leaf: the leaves
		# are what there is to name), the maps the asking made removed
		jit_named() { # NAME FILE JPID ALIVE: leafA/leafB named, the map gone, the JVM unharmed
			n=$(grep -v '^#' "$2" 2>/dev/null | awk '/Split\.leaf[AB]/ { n += $NF } END { print n + 0 }')
			unk=$(grep -v '^#' "$2" 2>/dev/null | awk '/^java[^;]*;\[unknown[] ]/ { n += $NF } END { print n + 0 }')
			if [ "$STATUS" = 0 ] && [ "$n" -ge 100 ] && [ "$4" = yes ] && grep -q ' jvm_perfmaps=[1-9]' "$2" &&
			   [ ! -e "/tmp/perf-$3.map" ] && ! grep -q 'Full thread dump' "$TMP/java-run.out"; then
				pass "$1: the JVM asked at the end, leafA and leafB named ($n samples; $unk [unknown]), its map removed"
			else
				fail "$1: the JVM asked at the end, leafA and leafB named" \
					"exit $STATUS, $n samples named, $unk [unknown], alive '$4', $(head -n 1 "$2" | grep -o ' jvm_perfmaps[^ ]*')$(ls "/tmp/perf-$3.map" 2>/dev/null): $(head -c 300 "$TMP/stderr")"
			fi
			rm -f "/tmp/perf-$3.map"
		}
		rm -f "$TMP/jpid"
		# shellcheck disable=SC2086
		run "$P" --folded -o "$TMP/java-c.folded" -- sh -c \
			"unset JAVA_TOOL_OPTIONS; java $JOPTS Split 6000 >'$TMP/java-run.out' 2>&1 & echo \$! >'$TMP/jpid'; sleep 2"
		jpid=$(cat "$TMP/jpid" 2>/dev/null)
		alive=$([ -n "$jpid" ] && kill -0 "$jpid" 2>/dev/null && echo yes)
		[ -z "$jpid" ] || kill "$jpid" 2>/dev/null
		jit_named "java started by a script that cleared JAVA_TOOL_OPTIONS" "$TMP/java-c.folded" "$jpid" "$alive"
		if run "$P" -q -a -d 0.05 --folded -o "$TMP/probe.folded" && [ "$STATUS" = 0 ]; then
			# shellcheck disable=SC2086
			env -u JAVA_TOOL_OPTIONS java $JOPTS Split 6000 >"$TMP/java-run.out" 2>&1 &
			jpid=$!
			sleep 0.7
			run "$P" -a -d 1.5 -o "$TMP/java-a.tsv.gz"
			alive=$(kill -0 "$jpid" 2>/dev/null && echo yes)
			kill "$jpid" 2>/dev/null
			wait "$jpid" 2>/dev/null
			validate_tsv "java -a: the TSV rewritten with the names and the JVMs asked: valid profrec-samples" \
				profrec-samples "$TMP/java-a.tsv.gz"
			# this JVM's samples (the root is comm-PID with --pid)
			"$BIN/proffold" -q --counts --pid "$TMP/java-a.tsv.gz" 2>/dev/null |
				awk -v p="-$jpid;" '/^#/ || index($0, p) { sub(p, ";"); print }' >"$TMP/java-a.folded"
			jit_named "java -a (a JVM of the system)" "$TMP/java-a.folded" "$jpid" "$alive"
		else
			skip "java -a: a JVM of the system named" "perf_event_open system-wide not permitted here: $(head -c 200 "$TMP/stderr")"
		fi
	fi
fi
