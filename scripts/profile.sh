#!/bin/sh
# proftools-profile (scripts/profile.sh): from "it is slow" to pictures in
# one command. Runs the command under the proftools recorders for each
# mode, folds and draws what they wrote, and gathers everything in one
# directory with an HTML report (profreport). See proftools-profile(1).
set -u

PROG=proftools-profile
# Set by make when it installs the script; from the tree, ../VERSION.
VERSION=@VERSION@
case $VERSION in @*) VERSION=$(cat "$(dirname "$0")/../VERSION" 2>/dev/null || echo unknown) ;; esac
SYNOPSIS="$PROG cpu|offcpu|memory|gpu|all [-hq] [-F hz] [-o dir] [--dwarf]
                         [--native] [--open] [--python | --no-python] [--runs n]
                         [--unwind fp|dwarf] [--] command [arg ...]
       $PROG compare [-hq] [-o dir] [--fail-above pct] [--open] dir_a dir_b"

usage() {
	[ -n "${1:-}" ] && echo "$PROG: $1" >&2
	echo "usage: $SYNOPSIS" >&2
	exit 2
}

help() {
	cat <<EOF
usage: $SYNOPSIS
Profile a command and write one directory: flame graphs (.svg) beside their
folded stacks, hotspot tables, timelines and index.html, a self-contained
report that opens from disk.

Modes:
  cpu        where the CPU time goes (profrec, proffold, profflame)
  offcpu     where it waits: off-CPU time beside on-CPU time (profrec --off-cpu)
  memory     allocations, leaks, the peak, heap over time (profheap)
  gpu        GPU utilisation, memory, power, temperature (profgpu)
  all        each of the above, one run of the command per mode
  compare    profcmp of two earlier directories: regressions, differential graphs

Options:
  -o, --output=DIR        directory to write (default profile-YYYYmmdd-HHMMSS)
  -F, --freq=HZ           samples per second (cpu, offcpu; default 999; --native: 99)
      --dwarf             DWARF stacks (code without frame pointers), every mode:
                          cpu and offcpu: profrec --call-graph dwarf;
                          memory: profheap --unwind dwarf
      --unwind=fp|dwarf   frame pointers (default) or DWARF stacks (also spelt
                          --call-graph=fp|dwarf, as the recorders' hints say)
      --python            cpu: the command's Python stacks (profrec --python);
                          memory: allocations under their Python frames
                          (profheap --python, PYTHONMALLOC=malloc); the
                          default when the command is a CPython (python3, a
                          pyenv shim, a script whose #! line names python)
      --no-python         cpu, memory: native stacks, even of a CPython
      --native            cpu: the Python stacks merged into the native stack, the
                          C code a Python function calls under it (profrec
                          --python --native, as py-spy --native); 99 samples/s
                          unless -F (each sample stops the thread a moment); a
                          usage error with --no-python or a command that is not
                          a CPython (--python: take it for one)
      --fail-above=PCT    compare: exit 1 when something regressed by more than PCT%
      --runs=N            cpu, offcpu (and all's): run the command N times, the
                          runs after the first in runs/K/; compare gives profcmp
                          every run of each side (its rank test needs 4 or more)
      --open              print the report's file:// address at the end
  -q, --quiet             no summary on stderr (the recorders' lines in *.log only)
  -h, --help              this help

An existing -o directory must be empty or hold an earlier run (its outputs are removed first).

Exit status: the command's (all: the first nonzero); compare: 0, or 1 when
--fail-above tripped or a profile is missing, empty or corrupt; 1 on
failure; 2 on usage error; 128+N when signal N (HUP, INT, TERM) stopped it.
EOF
	exit 0
}

list_options() {
	printf '%s\n' --call-graph=fp,dwarf --dwarf --fail-above= --freq= --help --native --no-python --open \
		--output= --python --quiet --runs= --unwind=fp,dwarf
	exit 0
}

warn() { echo "$PROG: $*" >&2; }
# An output directory this run created goes with a failure: nothing is
# left that looks like a result.
die() {
	warn "$@"
	[ -z "${CREATED:-}" ] || rm -rf "$OUT"
	exit 1
}
say() { [ "$QUIET" = 1 ] || echo "$PROG: $*" >&2; }

# The tools: beside this script when installed (PREFIX/bin), in ../bin
# when run from the repository, else on PATH; PROFTOOLS_BIN overrides.
find_tools() {
	here=$(cd "$(dirname "$0")" && pwd)
	if [ -n "${PROFTOOLS_BIN:-}" ]; then
		[ -d "$PROFTOOLS_BIN" ] || die "PROFTOOLS_BIN=$PROFTOOLS_BIN: not a directory"
		TOOLS=$(cd "$PROFTOOLS_BIN" && pwd)
	elif [ -x "$here/profrec" ]; then
		TOOLS=$here
	elif [ -x "$here/../bin/profrec" ]; then
		TOOLS=$(cd "$here/../bin" && pwd)
	else
		TOOLS=
	fi
}
# need TOOL...: every tool a mode runs is found before anything runs, so
# a missing one stops the script here with its name (not later, inside a
# command substitution, as the shell's "not found", exit 127).
need() {
	for _t; do
		if [ -n "$TOOLS" ]; then
			[ -x "$TOOLS/$_t" ] && [ -f "$TOOLS/$_t" ] ||
				die "$TOOLS/$_t: not found or not executable${PROFTOOLS_BIN:+ (PROFTOOLS_BIN=$PROFTOOLS_BIN)}"
		else
			command -v "$_t" >/dev/null || die "$_t not found (install proftools, or set PROFTOOLS_BIN)"
		fi
	done
}
tool() {
	if [ -n "$TOOLS" ]; then
		echo "$TOOLS/$1"
	else
		command -v "$1"
	fi
}

# pct_encode KEEP STRING: STRING with every byte that does not match KEEP
# (an awk regular expression for one character) written as %XX.
pct_encode() {
	printf '%s' "$2" | od -An -v -tx1 | LC_ALL=C awk -v keep="$1" '
		BEGIN { for (i = 1; i < 256; i++) byte[sprintf("%02x", i)] = sprintf("%c", i) }
		{ for (i = 1; i <= NF; i++) printf "%s", byte[$i] ~ keep ? byte[$i] : "%" toupper($i) }'
}

# "# key=value" metadata: a space, a control character or % in a value
# is written as %XX (prof-formats(5)), so a command line holding escape
# sequences or newlines stays one inert line.
meta() { # KEY VALUE
	printf '# %s=%s\n' "$1" "$(pct_encode '^[^%[:cntrl:] ]$' "$2")" >>"$OUT/run.meta"
}

write_run_meta() { # MODE COMMAND...
	mode=$1
	shift
	: >"$OUT/run.meta"
	meta mode "$mode"
	meta command "$*"
	meta date "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	meta host "$(uname -n)"
	meta kernel "$(uname -sr)"
	meta cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
	meta cores "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
	meta version "proftools $VERSION"
	case $mode in cpu|offcpu|all)
		# the report turns CPU samples into seconds with it: cpu's rate
		if [ "$mode" = offcpu ]; then meta freq "$FREQ"; else meta freq "$CPU_FREQ"; fi
		meta call_graph "$UNWIND" ;;
	esac
	case $mode in memory|all) meta unwind "$UNWIND" ;; esac
	[ "$RUNS" = 1 ] || meta runs "$RUNS"
}

# ---- signals
# The recorders run in the background of this shell, so that a SIGTERM or
# SIGHUP sent to the script alone (by timeout(1), a CI runner, systemd) can
# be passed on to the recorder, which passes it on to the command and ends
# its recording; a shell waiting for a command in the foreground would
# only see it once the command is over. SIGINT is not passed on: ^C at a
# terminal reaches every process of the job, and a second one would make
# the recorder kill the command. Either way the script waits for the
# recorder, removes its temporary directory and exits 128+N.
CHILD= SIGNAL= SIGNAME= CHAIN_T=
on_signal() { # NUMBER NAME
	SIGNAL=$1 SIGNAME=$2
	if [ -n "$CHILD" ]; then
		[ "$1" = 2 ] || kill -s "$2" "$CHILD" 2>/dev/null
		return
	fi
	interrupted
}
interrupted() {
	warn "stopped by SIG$SIGNAME${OUT:+ (what was recorded so far is in $OUT)}"
	exit $((128 + SIGNAL))
}
# An asynchronous command of a shell without job control starts with
# SIGINT and SIGQUIT ignored, and the command under the recorder would
# inherit that (^C would not stop it): env puts them back to the default.
# Without that env, the recorders run in the foreground (SIGTERM then only
# takes effect once the command is over).
if env --default-signal=INT,QUIT true 2>/dev/null; then
	DEFSIG=1
else
	DEFSIG=
fi
# The command's stderr is passed on line by line where grep can.
LINEBUF=
echo x | grep --line-buffered x >/dev/null 2>&1 && LINEBUF=--line-buffered
# The command reads the script's standard input, kept as descriptor 3
# (an asynchronous command's standard input would be /dev/null).
if true <&0 2>/dev/null; then exec 3<&0; else exec 3</dev/null; fi

# spawn CMD...: run CMD as above and wait for it, through signals; RC is
# its exit status. Returns to the caller, which ends the script with
# interrupted once it has collected what it must.
spawn() {
	if [ -z "$DEFSIG" ]; then
		"$@" <&3 3<&-
		RC=$?
		return
	fi
	env --default-signal=INT,QUIT -- "$@" <&3 3<&- &
	CHILD=$!
	while :; do
		wait "$CHILD"
		RC=$?
		# A signal ends wait early: the recorder is stopping, not stopped.
		kill -0 "$CHILD" 2>/dev/null || break
	done
	CHILD=
}

# now: seconds since the epoch, to the nanosecond where date(1) can
now() {
	case $(date +%N) in *N*) date +%s ;; *) date +%s.%N ;; esac
}

# run_tee LOG PREFIX CMD...: run CMD with its stderr shown and the lines
# starting with "PREFIX:" (the tool's summary, notes and warnings) kept in
# LOG; with -q they go to LOG only (the command's own stderr is still
# shown); sets RC, and WALL to the seconds the recorder ran.
run_tee() {
	_log=$1 _prefix=$2
	shift 2
	rm -f "$WORK/fifo"
	mkfifo "$WORK/fifo" || die "cannot create a FIFO in $WORK"
	if [ "$QUIET" = 1 ]; then
		tee "$WORK/stderr" <"$WORK/fifo" | grep $LINEBUF -v "^$_prefix:" >&2 &
	else
		tee "$WORK/stderr" <"$WORK/fifo" >&2 &
	fi
	_tee=$!
	_t0=$(now)
	spawn "$@" 2>"$WORK/fifo"
	WALL=$(awk -v a="$_t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
	wait "$_tee"
	[ -z "$SIGNAL" ] || interrupted
	grep "^$_prefix:" "$WORK/stderr" >"$_log" || true
}

# exec_chain PROCESSES: the exec chain of the command, from a table of
# profrec-processes rows (time_ns, event fork|exec, pid, ppid, comm; in
# time order): profrec --processes writes it, memory mode builds it from
# profheap's files (heap_processes).
#
# The command's own process (the first to exec without a fork row) may
# exec a chain of programs: a shell shim such as pyenv's python3 is env,
# then bash, env, bash, env, bash and at last python. The last image of
# that chain is the program that does the work; it and the processes
# forked once it ran, with their descendants, are the program; the
# earlier images and the processes they forked (the shim's helpers), with
# theirs, are the launchers. Sets CHAIN_ROOT (the command's pid), CHAIN_T
# (the time of its last exec), CHAIN_LAUNCHERS (the pids of the launchers'
# processes) and CHAIN_NOTE (names the chain); CHAIN_T is empty when the
# command made no exec after its first (no chain: all is program).
exec_chain() {
	CHAIN_ROOT= CHAIN_T= CHAIN_LAUNCHERS= CHAIN_NOTE= CHAIN_KEPT=
	[ -s "$1" ] || return 0
	LC_ALL=C awk -F'\t' '
	/^#/ || $1 == "time_ns" { next }
	$2 == "fork" { ppid[$3] = $4; born[$3] = $1 + 0; next }
	$2 == "exec" {
		if (root == "" && !($3 in ppid)) root = $3
		if ($3 == root) { n++; t = $1 + 0; chain = chain (n > 1 ? " -> " : "") $5; last = $5 }
	}
	END {
		if (n < 2) exit
		print "root", root
		# %.0f: mawk prints a number past 2^31 as 2.14748e+09 (an exec
		# more than 2.1 s after the start), which no shell arithmetic takes
		printf "T %.0f\n", t
		for (p in ppid) {
			# the ancestor forked by the command process
			q = p; a = ""
			for (s = 0; s < 4096 && (q in ppid); s++) {
				if (ppid[q] == root) { a = q; break }
				q = ppid[q]
			}
			if (a != "" && born[a] < t) print "launcher", p
		}
		sub(/ -> [^>]*$/, "", chain)
		print "note", last " reached through an exec chain of " n - 1 " launchers (" chain ")"
	}' "$1" >"$WORK/chain"
	CHAIN_ROOT=$(sed -n 's/^root //p' "$WORK/chain")
	CHAIN_T=$(sed -n 's/^T //p' "$WORK/chain")
	CHAIN_LAUNCHERS=$(sed -n 's/^launcher //p' "$WORK/chain" | tr '\n' ' ')
	CHAIN_NOTE=$(sed -n 's/^note //p' "$WORK/chain")
}

# fold_rec NAME [proffold options...]: NAME.folded from the recording in
# $REC; with an exec chain (exec_chain), the samples of the launchers
# (before the last exec, and of the processes they forked) go to
# NAME-launchers.folded instead.
fold_rec() {
	_n=$1
	shift
	if [ -z "$CHAIN_T" ]; then
		"$(tool proffold)" -q "$@" -o "$OUT/$_n.folded" "$REC"
		return
	fi
	# A side without samples (proffold: "no samples in the window") is empty.
	"$(tool proffold)" -q --pid --time-from="${CHAIN_T}ns" "$@" -o "$WORK/after.folded" "$REC" 2>/dev/null ||
		: >"$WORK/after.folded"
	"$(tool proffold)" -q --pid --time-to="$((CHAIN_T - 1))ns" "$@" -o "$WORK/before.folded" "$REC" 2>/dev/null ||
		: >"$WORK/before.folded"
	# The root frame is comm-PID: the pid decides, then goes.
	LC_ALL=C awk -v launchers=" $CHAIN_LAUNCHERS " -v prog="$WORK/prog.folded" -v launch="$WORK/launch.folded" '
	FNR == 1 && /^#/ { if (NR == 1) { print > prog; print > launch } next }
	/^#/ { next }
	{
		root = $0; sub(/;.*/, "", root)
		pid = root; sub(/.*-/, "", pid)
		rest = substr($0, length(root) + 1)
		sub(/-[0-9]+$/, "", root)
		print root rest > (FILENAME ~ /before\.folded$/ || index(launchers, " " pid " ") ? launch : prog)
	}' "$WORK/after.folded" "$WORK/before.folded"
	"$(tool proffold)" -q -o "$OUT/$_n.folded" "$WORK/prog.folded" || return 1
	"$(tool proffold)" -q -o "$OUT/$_n-launchers.folded" "$WORK/launch.folded"
}

# chain_check MODE [proffold options...]: an exec chain whose launchers
# did more work than the program is no shim: a script that ran its work
# and exec'd its last command (sh -c './build; exec ./quick'). Then the
# chain is dropped (all is program, as without one) and the note says so.
chain_check() {
	_m=$1
	shift
	[ -n "$CHAIN_T" ] || return 0
	fold_rec chaincheck "$@" 2>/dev/null
	_p=$(grep -v '^#' "$OUT/chaincheck.folded" 2>/dev/null | awk '{ s += $NF } END { printf "%.0f", s }')
	_l=$(grep -v '^#' "$OUT/chaincheck-launchers.folded" 2>/dev/null | awk '{ s += $NF } END { printf "%.0f", s }')
	rm -f "$OUT/chaincheck.folded" "$OUT/chaincheck-launchers.folded"
	chain_keep "$_m" "${_p:-0}" "${_l:-0}"
}

# chain_keep MODE PROGRAM LAUNCHERS: drop the chain when the launchers'
# weight is not below the program's.
chain_keep() {
	[ "$3" -ge "$2" ] || return 0
	CHAIN_NOTE="$CHAIN_NOTE, but its launchers did more than it ($3 against $2): all kept together"
	CHAIN_T= CHAIN_KEPT=1
}

# fold_and_draw NAME TITLE [proffold options...]: NAME.folded, NAME.svg,
# NAME.top.tsv from the recording in $REC; with more than one thread,
# NAME-merged.svg too: the stacks are rooted at their thread's name, so
# a function that several threads run is a tower per thread in NAME.svg
# and one tower, as wide as all of them, in NAME-merged.svg.
fold_and_draw() {
	_name=$1 _title=$2
	shift 2
	fold_rec "$_name" "$@" || return 1
	"$(tool profflame)" --title "$_title" -o "$OUT/$_name.svg" "$OUT/$_name.folded" || return 1
	_roots=$(grep -v '^#' "$OUT/$_name.folded" | awk '{ sub(/ [^ ]*$/, ""); sub(/;.*/, ""); print }' |
		LC_ALL=C sort -u | wc -l)
	if [ "$_roots" -gt 1 ]; then
		"$(tool proffold)" -q --merge-threads "$OUT/$_name.folded" |
			"$(tool profflame)" --title "${_title%%:*}, $_roots threads merged:${_title#*:}" \
				-o "$OUT/$_name-merged.svg" || return 1
	fi
	"$(tool proffold)" -q --top 30 -o "$OUT/$_name.top.tsv" "$OUT/$_name.folded" || return 1
}

# dwarf_hint MODE LOG: a recorder's warning that most stacks stop after
# one or two frames (a program without frame pointers) is in LOG (and was
# shown unless -q); say so, even with -q, with the option of this script
# that asks for DWARF stacks.
dwarf_hint() {
	[ "$UNWIND" = fp ] && grep -q 'without frame pointers' "$2" &&
		warn "$1: most stacks are cut short (no frame pointers in the program): run again with --dwarf"
}

# is_cpython WORD: the command WORD runs a CPython: its name is python,
# python3, python3.12 (pyenv's shims too), or it is a script whose #!
# line names python.
is_cpython() {
	_p=$(command -v -- "$1" 2>/dev/null) || return 1
	case ${_p##*/} in python|python[0-9]|python[0-9].[0-9]*) return 0 ;; esac
	[ -f "$_p" ] && [ -r "$_p" ] && head -n 1 "$_p" 2>/dev/null | grep -q '^#!.*python'
}

# cpu_stacks COMMAND...: set CPU_STACKS to the stack option of profrec in
# cpu mode: --python for a CPython (unless --no-python), else the walk;
# CPU_NATIVE to --native when that was asked for (and the Python path
# taken: the options' check made sure it is).
cpu_stacks() {
	CPU_NATIVE=
	if [ "$PYTHON" = yes ] || { [ "$PYTHON" = auto ] && is_cpython "$1"; }; then
		CPU_STACKS=--python
		[ "$NATIVE" = 0 ] || CPU_NATIVE=--native
	else
		CPU_STACKS="--call-graph=$UNWIND"
	fi
}

# chain_note MODE LOG: the exec chain exec_chain found, said and logged.
chain_note() {
	if [ -n "$CHAIN_KEPT" ]; then
		_note="$1: $CHAIN_NOTE"
	elif [ -n "$CHAIN_T" ]; then
		_note="$1: $CHAIN_NOTE: the graphs are its own and its children's; the launchers' samples are apart, in $1*-launchers.folded"
	else
		return 0
	fi
	say "$_note"
	echo "$PROG: $_note" >>"$2"
}

mode_cpu() {
	REC=$OUT/cpu.samples.tsv.zst
	say "cpu: recording $*"
	cpu_stacks "$1"
	[ "$CPU_STACKS" != --python ] || [ "$PYTHON" = yes ] ||
		say "cpu: $1 runs a CPython: its Python stacks are sampled (profrec --python${CPU_NATIVE:+ --native}; --no-python: native stacks)"
	# Not -q: profrec's summary, notes and warnings (stacks cut short,
	# records lost) go to cpu.log, and to the user unless -q.
	# The process log (exec chains) comes with perf events, not --python.
	procs=
	[ "$CPU_STACKS" = --python ] || procs=$OUT/cpu.processes.tsv
	run_tee "$OUT/cpu.log" profrec "$(tool profrec)" -F "$CPU_FREQ" "$CPU_STACKS" $CPU_NATIVE \
		${procs:+--processes} ${procs:+"$procs"} -o "$REC" -- "$@"
	meta cpu_wall_s "$WALL"
	dwarf_hint cpu "$OUT/cpu.log"
	[ -s "$REC" ] || { warn "cpu: profrec wrote nothing"; return; }
	exec_chain "$OUT/cpu.processes.tsv"
	chain_check cpu
	chain_note cpu "$OUT/cpu.log"
	fold_and_draw cpu "CPU: $*" || warn "cpu: folding or drawing failed"
	# the heat map page, its range selection drawing that range's flame graph
	"$(tool profflame)" --heatmap --format html --title "CPU over time: $*" -o "$OUT/cpu.heatmap.html" \
		"$REC" 2>>"$OUT/cpu.log" || warn "cpu: no heat map (see cpu.log)"
	[ "$QUIET" = 1 ] || "$(tool proffold)" -q --top 10 --human "$OUT/cpu.folded" >&2
}

mode_offcpu() {
	REC=$OUT/offcpu.samples.tsv.zst
	say "offcpu: recording $*"
	run_tee "$OUT/offcpu.log" profrec "$(tool profrec)" -F "$FREQ" --call-graph "$UNWIND" \
		-e cpu-clock --off-cpu --processes "$OUT/offcpu.processes.tsv" -o "$REC" -- "$@"
	meta offcpu_wall_s "$WALL"
	dwarf_hint offcpu "$OUT/offcpu.log"
	[ -s "$REC" ] || { warn "offcpu: profrec wrote nothing"; return; }
	exec_chain "$OUT/offcpu.processes.tsv"
	chain_check offcpu -e cpu-clock
	chain_note offcpu "$OUT/offcpu.log"
	fold_and_draw offcpu "Off-CPU: $*" -e offcpu-time || warn "offcpu: no off-CPU time recorded"
	fold_and_draw offcpu-oncpu "On-CPU: $*" -e cpu-clock || warn "offcpu: no on-CPU samples"
	on=$(grep -v '^#' "$OUT/offcpu-oncpu.folded" 2>/dev/null | awk '{ s += $NF } END { printf "%.0f", s }')
	off=$(grep -v '^#' "$OUT/offcpu.folded" 2>/dev/null | awk '{ s += $NF } END { printf "%.0f", s }')
	awk -v on="${on:-0}" -v off="${off:-0}" 'BEGIN {
		t = on + off
		print "state\ttime_ms\tshare_pct"
		printf "on-cpu\t%.1f\t%.1f\n", on / 1e6, t ? 100 * on / t : 0
		printf "off-cpu\t%.1f\t%.1f\n", off / 1e6, t ? 100 * off / t : 0
	}' >"$OUT/offcpu.shares.tsv"
	[ "$QUIET" = 1 ] || column -t -s '	' "$OUT/offcpu.shares.tsv" >&2 2>/dev/null || cat "$OUT/offcpu.shares.tsv" >&2
}

# heap_processes MEMORY_D: the processes of profheap's files as a
# profrec-processes table (for exec_chain), in time order, and after a
# line "images" one line "TAG PID" per image. Each PID[.N].alloc.folded
# names its process (pid, ppid, start_ns: the fork or the exec of that
# image, exe): an image is an exec row, the first image of a process
# forked inside the run a fork row too.
heap_processes() {
	grep -m 1 -H '' "$1"/*.alloc.folded 2>/dev/null | LC_ALL=C awk '
	{
		at = index($0, ".alloc.folded:# ")
		if (!at) next
		tag = substr($0, 1, at - 1); sub(/.*\//, "", tag)
		n = split(substr($0, at + 16), kv, " ")
		T[++nt] = tag
		pid[tag] = ppid[tag] = start[tag] = 0
		exe[tag] = "?"
		for (i = 1; i <= n; i++) {
			eq = index(kv[i], "=")
			k = substr(kv[i], 1, eq - 1); v = substr(kv[i], eq + 1)
			if (k == "pid") pid[tag] = v + 0
			else if (k == "ppid") ppid[tag] = v + 0
			else if (k == "start_ns") start[tag] = v + 0
			else if (k == "exe") exe[tag] = v
		}
		seen[pid[tag]] = 1
	}
	END {
		for (i = 1; i <= nt; i++) {
			t = T[i]
			if (!index(t, ".") && ppid[t] in seen)
				printf "%.0f\tfork\t%d\t%d\t%s\n", start[t], pid[t], ppid[t], exe[t]
			printf "%.0f\texec\t%d\t\t%s\n", start[t], pid[t], exe[t]
		}
	}' | sort -t '	' -k1,1n -k2,2r >"$WORK/heap.processes"
}

# heap_bytes TAG...: the bytes the images allocated (their alloc.folded).
heap_bytes() {
	for _t; do
		cat "$OUT/memory.d/$_t.alloc.folded"
	done | awk '!/^#/ { s += $NF } END { printf "%.0f", s }'
}

mode_memory() {
	_py=
	# as cpu mode's --python: a CPython's allocations under its Python frames
	if [ "$PYTHON" = yes ] || { [ "$PYTHON" = auto ] && is_cpython "$1"; }; then
		_py=--python
		meta memory_stacks python
		[ "$PYTHON" = yes ] ||
			say "memory: $1 runs a CPython: its allocations are attributed to its Python frames (profheap --python, PYTHONMALLOC=malloc; --no-python: native stacks)"
	fi
	say "memory: recording $*"
	run_tee "$OUT/memory.log" profheap "$(tool profheap)" -u "$UNWIND" $_py -o "$OUT/memory.d" -- "$@"
	meta memory_wall_s "$WALL"
	dwarf_hint memory "$OUT/memory.log"
	set -- "$OUT"/memory.d/*.alloc.folded
	[ -f "$1" ] || { warn "memory: profheap wrote no profile"; return; }
	heap_processes "$OUT/memory.d"
	exec_chain "$WORK/heap.processes"
	# Each image: the program's or a launcher's (exec_chain); the timeline
	# is the command's last image's.
	final= fgen=0 prog= launch=
	for f in "$OUT"/memory.d/*.alloc.folded; do
		tag=${f##*/}
		tag=${tag%.alloc.folded}
		p=${tag%%.*}
		if [ -z "$CHAIN_T" ]; then
			role=program
		elif [ "$p" = "$CHAIN_ROOT" ]; then
			role=launcher
			g=0
			case $tag in *.*) g=${tag#*.} ;; esac
			if [ -z "$final" ] || [ "$g" -gt "$fgen" ]; then final=$tag fgen=$g; fi
		else
			case " $CHAIN_LAUNCHERS " in *" $p "*) role=launcher ;; *) role=program ;; esac
		fi
		if [ "$role" = program ]; then prog="$prog $tag"; else launch="$launch $tag"; fi
	done
	if [ -n "$CHAIN_T" ]; then
		# the command's last image is the program's, not a launcher's
		launch=$(printf '%s\n' $launch | grep -vx "$final" | tr '\n' ' ')
		prog="$prog $final"
		chain_keep memory "$(heap_bytes $prog)" "$(heap_bytes $launch)"
	fi
	if [ -n "$CHAIN_KEPT" ]; then
		prog="$prog $launch" launch=
		note="memory: $CHAIN_NOTE"
	elif [ -n "$CHAIN_T" ]; then
		note="memory: $CHAIN_NOTE: the graphs and the timeline are its own and its children's ($(set -- $prog; echo $#) process images); the launchers' $(set -- $launch; echo $#) are apart, in memory-launchers-*.folded"
	else
		note=
	fi
	# no chain: the timeline of the command's first image (the first
	# process profheap names)
	[ -n "$CHAIN_T" ] || final=$(sed -n 's/^profheap: \([0-9][0-9]*\): .*/\1/p' "$OUT/memory.log" | head -n 1)
	[ -n "$final" ] && [ -f "$OUT/memory.d/$final.timeline.tsv" ] &&
		cp "$OUT/memory.d/$final.timeline.tsv" "$OUT/memory.timeline.tsv"
	if [ -n "$note" ]; then
		say "$note"
		echo "$PROG: $note" >>"$OUT/memory.log"
	fi
	# count and temp (allocations, temporary ones) feed the report's
	# summary and its temporary allocations finding, and are drawn beside
	# the bytes (heaptrack's views): how often, not only how much
	for kind in alloc leak peak count temp; do
		for role in program launcher; do
			set --
			if [ "$role" = program ]; then tags=$prog; else tags=$launch; fi
			for tag in $tags; do
				[ ! -f "$OUT/memory.d/$tag.$kind.folded" ] || set -- "$@" "$OUT/memory.d/$tag.$kind.folded"
			done
			[ $# -gt 0 ] || continue
			if [ "$role" = launcher ]; then
				"$(tool proffold)" -q -o "$OUT/memory-launchers-$kind.folded" "$@"
				continue
			fi
			"$(tool proffold)" -q -o "$OUT/memory-$kind.folded" "$@" || continue
			case $kind in
			count) _unit=allocations _what=allocations ;;
			temp) _unit=allocations _what="temporary allocations" ;;
			*) _unit=bytes _what=$kind ;;
			esac
			if grep -qv '^#' "$OUT/memory-$kind.folded"; then
				"$(tool profflame)" --colors mem --countname "$_unit" --title "Memory ($_what): $CMDLINE" \
					-o "$OUT/memory-$kind.svg" "$OUT/memory-$kind.folded"
			fi
		done
	done
}

# kernel_track KERNELS_TSV: the kernel track of "Over time": per 100 ms
# (profgpu's interval) and device, the GPU time of its kernels in percent
# of the interval, summed over streams (so it may pass 100), idle
# intervals included.
kernel_track() {
	LC_ALL=C awk -F'\t' -v I=100000000 '
	NR > 1 && $9 == "kernel" && $2 > $1 && $1 >= 0 {
		dev[$6] = 1
		for (b = int($1 / I); b * I < $2; b++) {
			lo = b * I > $1 ? b * I : $1
			hi = (b + 1) * I < $2 ? (b + 1) * I : $2
			busy[$6, b] += hi - lo
			if (b > last) last = b
		}
	}
	END {
		print "time_ns\tgpu\tkernel_pct"
		for (b = 0; b <= last; b++)
			for (d in dev)
				# %.0f: in mawk %d stops at 2147483647 (2.1 s)
				printf "%.0f\t%s\t%.1f\n", b * I, d, 100 * busy[d, b] / I
	}' "$1"
}

mode_gpu() {
	say "gpu: sampling $*"
	host= kern=
	"$(tool profgpu)" --list-options 2>/dev/null | grep -qx -- '--host-output=' && host=1
	# CUDA kernels too (profgpu --kernels: a command that never uses CUDA
	# only gets "no CUDA activity" in gpu.log, and no kernel files)
	"$(tool profgpu)" --list-options 2>/dev/null | grep -qx -- '--kernel-stacks=' && kern=1
	# One word, whatever $OUT holds (spaces included).
	run_tee "$OUT/gpu.log" profgpu "$(tool profgpu)" -o "$OUT/gpu.tsv" \
		${host:+"--host-output=$OUT/host.tsv"} \
		${kern:+"--kernels=$WORK/kernels.tsv"} ${kern:+"--kernel-stacks=$OUT/gpu-kernels.folded"} \
		-- "$@"
	meta gpu_wall_s "$WALL"
	[ -n "$kern" ] || return 0
	if ! grep -q . "$OUT/gpu-kernels.folded" 2>/dev/null; then
		rm -f "$OUT/gpu-kernels.folded"
		return 0
	fi
	# Every kernel and copy, kept compressed (the report shows the rest)
	gzip -c "$WORK/kernels.tsv" >"$OUT/gpu-kernels.tsv.gz" || warn "gpu: cannot write gpu-kernels.tsv.gz"
	kernel_track "$WORK/kernels.tsv" >"$OUT/gpu-kernels.timeline.tsv"
	# The GPU flame graph, and the kernels ranked by GPU time (leaves: self time)
	"$(tool profflame)" --colors aqua --countname ns --title "GPU kernels: $CMDLINE" \
		-o "$OUT/gpu-kernels.svg" "$OUT/gpu-kernels.folded" || warn "gpu: the GPU flame graph failed"
	"$(tool proffold)" -q --top 25 -o "$OUT/gpu-kernels.top.tsv" "$OUT/gpu-kernels.folded" ||
		warn "gpu: ranking the kernels failed"
}

# more_runs MODE COMMAND...: runs 2 to RUNS of the command (--runs) for
# cpu and offcpu, each folded into runs/K/, so that compare can give
# profcmp every run of a side. RC: the first nonzero exit status.
more_runs() {
	_m=$1 _rc=$RC _k=2
	shift
	case $_m in cpu|offcpu) ;; *) return ;; esac
	_n=$#
	while [ "$_k" -le "$RUNS" ]; do
		mkdir -p "$OUT/runs/$_k" || die "cannot create $OUT/runs/$_k"
		say "$_m: run $_k of $RUNS"
		cpu_stacks "$1"
		if [ "$_m" = cpu ]; then
			set -- -F "$CPU_FREQ" "$CPU_STACKS" $CPU_NATIVE -o "$WORK/run.tsv.zst" -- "$@"
		else
			set -- -F "$FREQ" --call-graph "$UNWIND" -e cpu-clock --off-cpu -o "$WORK/run.tsv.zst" -- "$@"
		fi
		run_tee "$OUT/runs/$_k/$_m.log" profrec "$(tool profrec)" "$@"
		if [ "$_m" = cpu ]; then
			"$(tool proffold)" -q -o "$OUT/runs/$_k/cpu.folded" "$WORK/run.tsv.zst"
		else
			"$(tool proffold)" -q -e offcpu-time -o "$OUT/runs/$_k/offcpu.folded" "$WORK/run.tsv.zst" &&
				"$(tool proffold)" -q -e cpu-clock -o "$OUT/runs/$_k/offcpu-oncpu.folded" "$WORK/run.tsv.zst"
		fi || warn "$_m: run $_k: folding failed"
		shift $(($# - _n))	# the command alone again
		[ "$_rc" != 0 ] || _rc=$RC
		_k=$((_k + 1))
	done
	RC=$_rc
}

PROFILES="cpu offcpu offcpu-oncpu memory-alloc memory-leak memory-peak"

# profiles_of DIR: the profiles a run directory holds by its mode (run.meta);
# a directory without run.meta (put together by hand): those it has.
profiles_of() {
	_mode=$(sed -n 's/^# mode=//p' "$1/run.meta" 2>/dev/null | tail -n 1)
	case $_mode in
	cpu) echo cpu ;;
	offcpu) echo offcpu offcpu-oncpu ;;
	memory) echo memory-alloc memory-leak memory-peak ;;
	all) echo "$PROFILES" ;;
	gpu|compare) ;;
	*) for _n in $PROFILES; do [ ! -e "$1/$_n.folded" ] || echo "$_n"; done ;;
	esac
	# CUDA kernels (gpu, all): when the command used CUDA
	case $_mode in compare|cpu|offcpu|memory) ;; *) [ ! -e "$1/gpu-kernels.folded" ] || echo gpu-kernels ;; esac
}

# check_profile FILE: dies naming FILE unless it is a readable regular
# file of folded stacks; a CPU profile must hold samples, a memory one
# (profheap's header: zero bytes is a measurement, as "no leaks") may not.
# Sets SUM to the sum of its counts.
check_profile() {
	[ -e "$1" ] || die "$1: missing"
	[ -f "$1" ] || die "$1: not a regular file"
	[ -r "$1" ] || die "$1: cannot read it"
	[ -s "$1" ] || die "$1: empty"
	SUM=$(LC_ALL=C awk '
		/^#/ { if (/ tool=profheap /) heap = 1; next }
		/^[[:space:]]*$/ { next }
		!/^[^ ].* [0-9]+(\.[0-9]+)?$/ { bad = NR; exit }
		{ sum += $NF }
		END {
			if (bad) { printf "%s:%d: not a line of folded stacks (frames, a space, a count)\n", FILENAME, bad; exit 1 }
			if (sum == 0 && !heap) { printf "%s: no samples\n", FILENAME; exit 1 }
			printf "%.0f\n", sum
		}' "$1") || die "${SUM:-$1: unreadable}"
}

# check_compare_inputs A B: each profile both directories hold by their
# runs' modes is there and valid in both, before anything is written.
check_compare_inputs() {
	[ -d "$1" ] || die "$1: not a directory"
	[ -d "$2" ] || die "$2: not a directory"
	COMMON=
	_b=" $(profiles_of "$2" | tr '\n' ' ') "
	for _n in $(profiles_of "$1"); do
		case $_b in *" $_n "*) COMMON="$COMMON $_n" ;; esac
	done
	[ -n "$COMMON" ] || die "$1 and $2 have no profile in common (cpu, offcpu, memory-*.folded)"
	for _n in $COMMON; do
		check_profile "$1/$_n.folded"
		check_profile "$2/$_n.folded"
	done
}

mode_compare() {
	a=$1 b=$2
	: >"$OUT/run.meta"
	meta mode compare
	meta base "$a"
	meta new "$b"
	meta date "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	meta version "proftools $VERSION"
	gate=
	[ -n "$FAIL_ABOVE" ] && gate="--fail-above=$FAIL_ABOVE"
	RC=0
	: >"$OUT/compare.log"
	for name in $COMMON; do
		check_profile "$a/$name.folded"
		sum_a=$SUM
		check_profile "$b/$name.folded"
		sum_b=$SUM
		# A memory profile with nothing in it (no leaks): there are no
		# shares to compare; growth from nothing trips any gate.
		if [ "$sum_a" = 0 ] || [ "$sum_b" = 0 ]; then
			if [ "$sum_a" = "$sum_b" ]; then
				echo "$name: none in either run" >>"$OUT/compare.log"
			elif [ "$sum_a" = 0 ]; then
				echo "$name: none in $a, $sum_b bytes in $b" >>"$OUT/compare.log"
				[ -z "$gate" ] || RC=1
			else
				echo "$name: $sum_a bytes in $a, none in $b" >>"$OUT/compare.log"
			fi
			continue
		fi
		# every run of each side (--runs: runs/K/), "base ... -- new ..."
		set -- "$a/$name.folded"
		for _r in "$a"/runs/*/"$name.folded"; do [ ! -f "$_r" ] || set -- "$@" "$_r"; done
		set -- "$@" -- "$b/$name.folded"
		for _r in "$b"/runs/*/"$name.folded"; do [ ! -f "$_r" ] || set -- "$@" "$_r"; done
		# shellcheck disable=SC2086
		"$(tool profcmp)" $gate -o "$OUT/compare-$name.tsv" "$@" 2>>"$OUT/compare.log" || RC=1
		"$(tool profcmp)" --human -n 15 "$@" >"$OUT/compare-$name.txt" 2>/dev/null
		"$(tool profcmp)" --folded-diff "$a/$name.folded" "$b/$name.folded" |
			"$(tool profflame)" --diff --title "$name: $b against $a" -o "$OUT/compare-$name-diff.svg"
	done
	[ "$QUIET" = 1 ] || cat "$OUT/compare.log" >&2
}

# prepare_output: $OUT made ready and absolute. A new or empty directory
# is used as it is; in one holding an earlier run (its run.meta) the
# files that a run writes are removed first (by their kinds, so that the
# files of modes added later go too), so that none of that run passes
# for one of this run; any other directory is refused.
prepare_output() {
	CREATED=
	if [ ! -e "$OUT" ]; then
		mkdir -p "$OUT" || die "cannot create $OUT"
		CREATED=1
	elif [ ! -d "$OUT" ]; then
		die "$OUT: not a directory"
	elif [ -n "$(ls -A "$OUT")" ]; then
		if [ "$MODE" = compare ]; then
			for _in in "$1" "$2"; do
				case "$(cd "$_in" && pwd)/" in
				"$(cd "$OUT" && pwd)/"*) die "$OUT: holds the input $_in: choose another -o" ;;
				esac
			done
		fi
		[ -f "$OUT/run.meta" ] ||
			die "$OUT: not empty and not the directory of an earlier run (no run.meta): choose another -o"
		(cd "$OUT" && rm -rf -- index.html run.meta memory.d ./*.folded ./*.svg ./*.tsv ./*.tsv.zst \
			./*.log ./*.txt ./*.json) || die "$OUT: cannot remove the earlier run"
	fi
	OUT=$(cd "$OUT" && pwd)
}

# ---- options
[ $# -ge 1 ] || usage "no mode"
case $1 in
-h|--help) help ;;
--list-options) list_options ;;
esac
MODE=$1
shift
case $MODE in cpu|offcpu|memory|gpu|all|compare) ;; *) usage "unknown mode '$MODE'" ;; esac
OUT= FREQ=999 FREQ_SET= UNWIND=fp OPEN=0 QUIET=0 FAIL_ABOVE= RUNS=1 PYTHON=auto NATIVE=0
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage "-o needs a directory"; OUT=$2; shift ;;
	--output=*) OUT=${1#*=} ;;
	-F) [ $# -ge 2 ] || usage "-F needs a frequency"; FREQ=$2 FREQ_SET=1; shift ;;
	--freq=*) FREQ=${1#*=} FREQ_SET=1 ;;
	--dwarf) UNWIND=dwarf ;;
	--unwind=*|--call-graph=*) UNWIND=${1#*=} ;;
	--unwind|--call-graph) [ $# -ge 2 ] || usage "$1 needs fp or dwarf"; UNWIND=$2; shift ;;
	--open) OPEN=1 ;;
	--python) PYTHON=yes ;;
	--no-python) PYTHON=no ;;
	--native) NATIVE=1 ;;
	--fail-above=*) FAIL_ABOVE=${1#*=} ;;
	--fail-above) [ $# -ge 2 ] || usage "--fail-above needs a percentage"; FAIL_ABOVE=$2; shift ;;
	--runs=*) RUNS=${1#*=} ;;
	--runs) [ $# -ge 2 ] || usage "--runs needs a count"; RUNS=$2; shift ;;
	-q|--quiet) QUIET=1 ;;
	-h|--help) help ;;
	--list-options) list_options ;;
	--) shift; break ;;
	-*) usage "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done
case $FREQ in ''|*[!0-9]*) usage "bad frequency '$FREQ' (a number of samples per second)" ;; esac
if [ "$NATIVE" = 1 ]; then
	case $MODE in cpu|all) ;; *) usage "--native is for cpu and all (it changes the CPU profile's stacks)" ;; esac
	[ "$PYTHON" != no ] ||
		usage "--native merges Python stacks into native ones: not with --no-python (native stacks alone: drop --native)"
	# as profrec (and py-spy) would: a program that is not a CPython has
	# no Python frames to merge; --python says it is one all the same
	[ $# -eq 0 ] || [ "$PYTHON" = yes ] || is_cpython "$1" ||
		usage "--native: '$1' is not a CPython (python, python3, a script whose #! line names python): give --python as well if it runs one"
fi
# --native stops the thread at each sample: profrec's (and py-spy's) rate
CPU_FREQ=$FREQ
[ "$NATIVE" = 0 ] || [ -n "$FREQ_SET" ] || CPU_FREQ=99
case $UNWIND in fp|dwarf) ;; *) usage "bad stack walk '$UNWIND' (fp or dwarf)" ;; esac
case $RUNS in ''|*[!0-9]*|0*) usage "bad --runs '$RUNS' (a count, 1 or more)" ;; esac
[ "$RUNS" = 1 ] || case $MODE in cpu|offcpu|all) ;; *) usage "--runs is for cpu, offcpu and all" ;; esac
if [ -n "$FAIL_ABOVE" ]; then
	[ "$MODE" = compare ] || usage "--fail-above is for compare"
	case $FAIL_ABOVE in
	''|.|*[!0-9.]*|*.*.*) usage "bad --fail-above '$FAIL_ABOVE' (a percentage)" ;;
	esac
fi
if [ "$MODE" = compare ]; then
	[ $# -eq 2 ] || usage "compare needs two directories"
else
	[ $# -ge 1 ] || usage "no command"
fi
find_tools
case $MODE in
cpu|offcpu) need profrec proffold profflame profreport ;;
memory) need profheap proffold profflame profreport ;;
gpu) need profgpu proffold profflame profreport ;;
all) need profrec proffold profflame profheap profgpu profreport ;;
compare) need profcmp profflame profreport ;;
esac
[ -n "$OUT" ] || OUT=profile-$(date '+%Y%m%d-%H%M%S')
# A name starting with "-" would be read as an option by mkdir and cd.
case $OUT in -*) OUT=./$OUT ;; esac
if [ "$MODE" = compare ]; then
	check_compare_inputs "$1" "$2"
fi
prepare_output "$@"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/proftools-profile.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$WORK"' EXIT
trap 'on_signal 1 HUP' HUP
trap 'on_signal 2 INT' INT
trap 'on_signal 15 TERM' TERM
CMDLINE="$*"

# ---- the runs
STATUS=0
if [ "$MODE" = compare ]; then
	mode_compare "$1" "$2"
	STATUS=$RC
else
	write_run_meta "$MODE" "$@"
	start=$(date +%s)
	for m in cpu offcpu memory gpu; do
		[ "$MODE" = all ] || [ "$MODE" = "$m" ] || continue
		RC=0
		"mode_$m" "$@"
		[ "$RUNS" = 1 ] || more_runs "$m" "$@"
		[ "$STATUS" != 0 ] || STATUS=$RC
	done
	meta status "$STATUS"
	meta duration_s "$(($(date +%s) - start))"
fi
"$(tool profreport)" -q "$OUT" || warn "the report could not be written"
say "report: $OUT/index.html"
[ "$OPEN" = 1 ] && echo "file://$(pct_encode '^[A-Za-z0-9/._~-]$' "$OUT/index.html")"
exit "$STATUS"
