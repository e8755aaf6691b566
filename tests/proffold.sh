#!/bin/sh
# proffold: stack samples (perf script, profrec TSV, folded) -> folded stacks.
. "$(dirname "$0")/lib.sh"
F=$BIN/proffold

# ---- golden: byte-identical to stackcollapse-perf.pl ------------------------
# tests/data/flamegraph/stackcollapse.index: the reference script's output on every
# capture of tests/data, made once (tests/data/README).
D=$TESTS/data
grep -v '^#' "$D/flamegraph/stackcollapse.index" | while read -r ref cap st opts; do
	gzip -dc "$D/flamegraph/$ref" >"$TMP/ref.folded"
	# The Perl script does not demangle: the raw names of perf script
	# --no-demangle stay raw with --no-demangle (demangled below).
	case $cap in *nodemangle*) opts="${opts:+$opts }--no-demangle" ;; esac
	# shellcheck disable=SC2086
	check_file "same as stackcollapse-perf.pl: $cap${opts:+ $opts}" "$st" "$TMP/ref.folded" \
		"$F" -q --no-header $opts "$D/$cap"
done
gzip -dc "$D/perf-deep-dwarf.txt.gz" >"$TMP/dwarf.txt"
gzip -dc "$D/flamegraph/perf-deep-dwarf.folded.gz" >"$TMP/dwarf.folded"
gzip -dc "$D/perf-deep-fp.txt.gz" >"$TMP/fp.txt"
check_file "golden -j 3 identical" 0 "$TMP/dwarf.folded" "$F" -j 3 --no-header "$TMP/dwarf.txt"
check_file "golden from stdin" 0 "$TMP/dwarf.folded" sh -c "\"$F\" --no-header <\"$TMP/dwarf.txt\""
check_file "golden gzip input" 0 "$TMP/dwarf.folded" "$F" --no-header -j 2 "$D/perf-deep-dwarf.txt.gz"
if command -v zstd >/dev/null 2>&1; then
	zstd -q -c "$TMP/dwarf.txt" >"$TMP/dwarf.txt.zst"
	check_file "golden zstd input" 0 "$TMP/dwarf.folded" "$F" --no-header "$TMP/dwarf.txt.zst"
else
	skip "golden zstd input" "zstd not installed"
fi
"$F" "$TMP/fp.txt" >"$TMP/fp.out"
check "metadata header" 0 "# unit=ns event=cpu-clock:pppH source=perf-script" head -n 1 "$TMP/fp.out"
# folded output read back (folded input detected) gives the same
check_file "folded input round trip" 0 "$TMP/fp.out" "$F" "$TMP/fp.out"
# merging: the same profile twice doubles every count
# (the count replaced in place: a frame may end in a space, "<bool  N")
awk '{ n = $NF; sub(/[0-9]+$/, ""); printf "%s%.0f\n", $0, n * 2 }' "$TMP/dwarf.folded" >"$TMP/double.folded"
check_file "merge two inputs" 0 "$TMP/double.folded" "$F" --no-header "$TMP/dwarf.txt" "$TMP/dwarf.folded"
# line numbers of bad lines stay right when blocks go to several threads
{ cat "$TMP/dwarf.txt"; echo bogus1; cat "$TMP/dwarf.txt"; echo bogus2; } >"$TMP/bad2.txt"
n1=$(($(wc -l <"$TMP/dwarf.txt") + 1))
check_error "-j 3 reports input line numbers" 1 "bad2.txt:$n1: unrecognized line: bogus1" \
	"$F" -j 3 "$TMP/bad2.txt"
check_error "-j 3 reports input line numbers (2)" 1 "bad2.txt:$((n1 * 2)): unrecognized line: bogus2" \
	"$F" -j 3 "$TMP/bad2.txt"
# -o writes atomically, compressed by suffix
run "$F" -o "$TMP/out.folded.gz" "$TMP/dwarf.txt"
if [ "$STATUS" = 0 ] && gzip -dc "$TMP/out.folded.gz" | sed 1d | cmp -s - "$TMP/dwarf.folded"; then
	pass "-o compressed output"
else
	fail "-o compressed output" "exit $STATUS"
fi
# --top: valid proffold-top TSV; the capture's hottest function is the sort
"$F" --top 5 "$TMP/fp.txt" >"$TMP/top.tsv"
validate_tsv "--top TSV schema" proffold-top "$TMP/top.tsv"
check "--top ranks by self" 0 "1	deep::fib	hot" \
	awk -F '\t' 'NR == 3 { print $1 "\t" $2 "\t" $7 }' "$TMP/top.tsv"
run "$F" --top 3 --human "$TMP/fp.txt"
if [ "$STATUS" = 0 ] && grep -q '^hottest path' "$TMP/stdout" && grep -q 'hot (self >= 5%)' "$TMP/stdout"; then
	pass "--top --human"
else
	fail "--top --human" "$(head -c 300 "$TMP/stdout")"
fi

# ---- perf script rules (more in tests/unit/formats/test_perfscript.c) -------------
cat >"$TMP/snip.txt" <<'SNIP'
io worker 1  5197/5198 [002] 100.000003:     250000 cpu-clock: 
	1000 inner_fn+0x10 (/opt/app)
	1001 outer_fn->mid_fn+0x20 (/opt/app)
	1002 std::function<void (int)>::operator()(int) const+0x5 (/opt/app)
	1003 [unknown] (/usr/lib/libfoo.so.1)
	ffffffff8103ce3b native_safe_halt+0x1b ([kernel.kallsyms])

main 42/42 100.000004: 7 cycles: 
	2000 other (/opt/app)

main 42/42 100.500000: 250000 cpu-clock: 
	2001 f2 (/opt/app)
bogus line

main 42/42 101.000000: 250000 cpu-clock: 
	2002 f3 (/opt/app)
SNIP
check "perf rules" 1 "io_worker;native_safe_halt;[libfoo.so.1];std::function<void ;outer_fn;mid_fn_[i];inner_fn 250000
main;f2 250000
main;f3 250000" "$F" --no-header "$TMP/snip.txt"
check_error "unrecognized line reported with its number" 1 "snip.txt:13: unrecognized line: bogus line" \
	"$F" "$TMP/snip.txt"
check_error "note names the skipped events" 1 "skipped 1 sample of: cycles" "$F" "$TMP/snip.txt"
check "--pid --kernel" 1 "io_worker-?;native_safe_halt_[k];[libfoo.so.1];std::function<void ;outer_fn;mid_fn_[i];inner_fn 250000
main-42;f2 250000
main-42;f3 250000" "$F" --no-header --pid --kernel "$TMP/snip.txt"
check "--event-filter --counts" 1 "# unit=samples event=cycles source=perf-script
main;other 1" "$F" -q --counts -e cycles "$TMP/snip.txt"
check "--cpp-names" 1 "io_worker;native_safe_halt;[libfoo.so.1];std::function<void (int)>::operator();outer_fn;mid_fn_[i];inner_fn 1" \
	"$F" -q --no-header --cpp-names --counts --time-to 0.1 "$TMP/snip.txt"
check "--time-from/--time-to" 1 "main;f2 250000" "$F" -q --no-header --time-from 0.2 --time-to 900ms "$TMP/snip.txt"
check "empty time window: header only, exit 1" 1 "# unit=ns event=cpu-clock:ppp source=perf-script" \
	"$F" --time-from 0.5s "$TESTS/data/perf-nog.txt.gz"
check_error "empty time window: what it was, what the profile spans" 1 \
	"^proffold: no samples in the window 0.5s\.\.end; the profile spans 0s\.\.0\.038748s$" \
	"$F" --time-from 0.5s "$TESTS/data/perf-nog.txt.gz"
check "-q silences notes" 1 "" sh -c "\"$F\" -q \"$TMP/snip.txt\" 2>&1 >/dev/null | grep -v unrecognized"

# ---- real perf script captures (tests/data/README says how they were made)
D=$TESTS/data
gzip -dc "$D/perf-g.txt.gz" >"$TMP/g.txt"
"$F" -q --no-header "$TMP/g.txt" >"$TMP/g.folded"
check "perf record without -g: comm;symbol with its period" 0 "# unit=ns event=cpu-clock:ppp source=perf-script
work;__GI___getppid 1001001
work;__rcu_read_unlock 1001001
work;__task_pid_nr_ns 1001001
work;calc::Acc<unsigned long>::sum 27027027
work;do_syscall_64 6006006
work;sys 1001001" "$F" "$D/perf-nog.txt.gz"
check "perf record without -g, --kernel --pid" 0 "work-?;__GI___getppid 1001001
work-?;__rcu_read_unlock_[k] 1001001
work-?;__task_pid_nr_ns_[k] 1001001
work-?;calc::Acc<unsigned long>::sum 27027027
work-?;do_syscall_64_[k] 6006006
work-?;sys 1001001" "$F" --no-header --kernel --pid "$D/perf-nog.txt.gz"
check_file "without -g, -j 3 (one thread: no empty lines)" 0 "$TMP/stdout" "$F" --no-header --kernel --pid -j 3 "$D/perf-nog.txt.gz"
"$F" -q --no-header --counts "$D/perf-nog.txt.gz" >"$TMP/nog-counts.folded"
check_file "-F comm,tid,ip,sym,dso without -g (no time, no event)" 0 "$TMP/nog-counts.folded" \
	"$F" -q --no-header "$D/perf-nog-fields.txt.gz"
"$F" -q --no-header "$D/perf-nog.txt.gz" >"$TMP/nog.folded"
check_file "-F comm,tid,period,ip,sym,dso without -g (period, no event)" 0 "$TMP/nog.folded" \
	"$F" -q --no-header "$D/perf-nog-period.txt.gz"
check_file "-F +srcline: source lines after frames skipped" 0 "$TMP/g.folded" \
	"$F" --no-header "$D/perf-g-srcline.txt.gz"
check_file "--show-mmap-events --show-task-events: records skipped" 0 "$TMP/g.folded" \
	"$F" --no-header "$D/perf-g-sideband.txt.gz"
# -G hides the call chains of a -g recording: each sample is its comm and leaf
awk '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";"); w[f[1] ";" f[n]] += c }
	END { for (k in w) print k " " w[k] }' "$TMP/g.folded" | sort >"$TMP/g-leaves.folded"
check_file "perf script -G: the leaves of the -g profile" 0 "$TMP/g-leaves.folded" \
	"$F" -q --no-header "$D/perf-g-hidden.txt.gz"
# -F without dso: frames "pc symbol"; kernel frames known by their address
"$F" -q --no-header --counts --kernel "$TMP/g.txt" >"$TMP/g-counts.folded"
check_file "-F comm,pid,tid,time,event,ip,sym (frames without dso)" 0 "$TMP/g-counts.folded" \
	"$F" -q --no-header --kernel "$D/perf-g-fields.txt.gz"
sed 's/_ZN4calc3AccImE3sumEm/calc::Acc<unsigned long>::sum/; s/_ZL3sysi/sys/' "$TMP/g.folded" >"$TMP/g-mangled.folded"
LC_ALL=C sort -o "$TMP/g-mangled.folded" "$TMP/g-mangled.folded"
# perf script --no-demangle: raw C++ names are demangled as perf does it
check_file "perf script --no-demangle: raw names fold as perf's demangled ones" 0 "$TMP/g.folded" \
	"$F" -q --no-header "$D/perf-g-nodemangle.txt.gz"
run "$F" -q --no-header --no-demangle "$D/perf-g-nodemangle.txt.gz"
if [ "$STATUS" = 0 ] && grep -q '^work;__libc_start_call_main;main;_ZN4calc3AccImE3sumEm [0-9]' "$TMP/stdout" &&
	sed 's/_ZN4calc3AccImE3sumEm/calc::Acc<unsigned long>::sum/; s/_ZL3sysi/sys/' "$TMP/stdout" |
	LC_ALL=C sort | cmp -s - "$TMP/g-mangled.folded"; then
	pass "--no-demangle: the same stacks, mangled"
else
	fail "--no-demangle: the same stacks, mangled" "exit $STATUS: $(head -c 300 "$TMP/stdout")"
fi
# Rust (issue 17): a perf recording of tests/tools/shapes.rs, printed with
# raw names (legacy for the program, v0 for std) and demangled by perf,
# folds to the same stacks, with no hash, escape or mangled name left
if ! have perf; then
	skip "perf script --no-demangle, Rust" "perf not installed (package linux-perf)"
elif rust_shapes "perf script --no-demangle, Rust" "$TMP/shapes"; then
	if perf record -q -g -o "$TMP/rs.data" -- "$TMP/shapes" 0.3 >"$TMP/perf.err" 2>&1 &&
		perf script -i "$TMP/rs.data" >"$TMP/rs-dem.txt" 2>/dev/null &&
		perf script --no-demangle -i "$TMP/rs.data" >"$TMP/rs-raw.txt" 2>/dev/null &&
		grep -q '_ZN40_$LT$main..Sq$u20$as$u20$main..Shape$GT$4area17h' "$TMP/rs-raw.txt"; then
		"$F" -q --no-header "$TMP/rs-dem.txt" >"$TMP/rs-dem.folded"
		run "$F" -q --no-header "$TMP/rs-raw.txt"
		raw=$(sed 's/ [0-9]*$//' "$TMP/stdout" | tr ';' '\n' | sort -u | rust_raw_names | head -n 3 | tr '\n' '|')
		if [ "$STATUS" = 0 ] && [ -z "$raw" ] && cmp -s "$TMP/stdout" "$TMP/rs-dem.folded" &&
			grep -q ';main::total::{{closure}};<main::Sq as main::Shape>::area' "$TMP/stdout" &&
			grep -q ';std::rt::lang_start_internal;' "$TMP/stdout"; then
			pass "perf script --no-demangle, Rust: the stacks of perf's demangled output, <main::Sq as main::Shape>::area"
		else
			fail "perf script --no-demangle, Rust" "exit $STATUS, raw: $raw; $(diff "$TMP/rs-dem.folded" "$TMP/stdout" | head -n 4 | tr '\n' '|')"
		fi
	else
		skip "perf script --no-demangle, Rust" "perf cannot record here: $(head -c 200 "$TMP/perf.err" | tr '\n' ' ')"
	fi
fi
# samples with and without call chains in one file: the first event is the default
check "events with and without call chains: first event" 0 "# unit=events event=page-faults/call-graph=no/ source=perf-script
work;_copy_to_user 1
work;_dl_setup_hash 45
work;_start 5
work;elf_load 2" "$F" -q "$D/perf-mixed.txt.gz"
check_error "events with and without call chains: note" 0 "skipped 25 samples of: cpu-clock/call-graph=fp/" \
	"$F" "$D/perf-mixed.txt.gz"
check "events with and without call chains: -e the other" 0 "# unit=ns event=cpu-clock/call-graph=fp/ source=perf-script
work;__libc_start_call_main;main;__GI___getppid;entry_SYSCALL_64_after_hwframe;do_syscall_64 2002002
work;__libc_start_call_main;main;__GI___getppid;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_getppid 1001001
work;__libc_start_call_main;main;__GI___getppid;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_getppid;__task_pid_nr_ns 1001001
work;__libc_start_call_main;main;calc::Acc<unsigned long>::sum 21021021" \
	"$F" -q -e cpu-clock/call-graph=fp/ "$D/perf-mixed.txt.gz"
# difffolded.pl's output on two files with metadata lines (tests/data/README), read back
check "difffolded.pl output of files with metadata" 0 "work;__GI___getppid 1001001 4004004
work;__rcu_read_lock 0 1001001
work;__rcu_read_unlock 1001001 4004004
work;__task_pid_nr_ns 1001001 0
work;calc::Acc<unsigned long>::sum 27027027 64064064
work;do_syscall_64 6006006 8008008
work;sys 1001001 1001001" "$F" "$D/flamegraph/perf-nog.perf-g-hidden.difffolded.gz"

# FlameGraph's own test suite, when FLAMEGRAPH_DIR names a checkout:
# test/*.txt folded with each option, against
# the results committed beside them. stackcollapse-perf.pl drops a last
# sample that no empty line ends (proffold keeps it), so each input is cut
# at its last empty line. The --pid/--tid results of the Java profiles
# predate the script's rule that drops the 'L' of Java class names for
# "java-PID" too (today's script differs from them the same way): they are
# compared without those 'L's.
FG=${FLAMEGRAPH_DIR:-}
if [ -n "$FG" ] && [ -d "$FG/test/results" ]; then
	total=0 same=0 stale=0 failed=
	for t in "$FG"/test/*.txt; do
		b=$(basename "$t" .txt)
		awk '{ l[NR] = $0 } /^[ \t\r]*$/ { last = NR } END { for (i = 1; i <= last; i++) print l[i] }' \
			"$t" >"$TMP/fg.txt"
		for o in pid tid kernel jit all addrs; do
			exp=$FG/test/results/$b-collapsed-$o.txt
			[ -f "$exp" ] || continue
			total=$((total + 1))
			"$F" -q --no-header "--$o" "$TMP/fg.txt" >"$TMP/fg.out" 2>/dev/null
			if cmp -s "$exp" "$TMP/fg.out"; then
				same=$((same + 1))
			elif case $o in pid|tid) true ;; *) false ;; esac &&
				sed 's/;L\([A-Za-z_$]*\/\)/;\1/g' "$exp" | sort | cmp -s - "$TMP/fg.out"; then
				stale=$((stale + 1))
			else
				failed="$failed $b:$o"
			fi
		done
	done
	if [ -z "$failed" ] && [ "$total" -gt 0 ]; then
		pass "FlameGraph test suite: $same of $total results identical, $stale stale Java --pid/--tid results equal without 'L'"
	else
		fail "FlameGraph test suite" "$same of $total identical, $stale stale; differ:$failed"
	fi
else
	skip "FlameGraph test suite" "no FlameGraph checkout (FLAMEGRAPH_DIR)"
fi

# ---- profrec sample TSV -----------------------------------------------------
printf '# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp\n' >"$TMP/s.tsv"
printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n' >>"$TMP/s.tsv"
printf '100\t10\t11\tmy app\t0\tcpu-clock\t1000\t1\tmain;work;leaf\n' >>"$TMP/s.tsv"
printf '200\t10\t11\tmy app\t1\tcpu-clock\t1000\t1\t\n' >>"$TMP/s.tsv"
printf '300\t10\t12\tmy app\t0\tcycles\t5\t2\tmain;other\n' >>"$TMP/s.tsv"
printf '400\t10\t12\tmy app\t0\tcpu-clock\t1000\t2\t\n' >>"$TMP/s.tsv"
check "profrec TSV" 0 "# source=profrec event=cpu-clock unit=ns freq=999 call_graph=fp
my_app;main;other 1000
my_app;main;work;leaf 2000" "$F" -q "$TMP/s.tsv"
validate_tsv "profrec TSV fixture valid" profrec-samples "$TMP/s.tsv"
check_error "profrec empty time window" 1 \
	"^proffold: no samples in the window 0.000001s\.\.0\.000002s; the profile spans 0\.0000001s\.\.0\.0000004s$" \
	"$F" --time-from 1us --time-to 2us "$TMP/s.tsv"
check "profrec --tid --counts --time" 0 "my_app-10/11;main;work;leaf 1
my_app-10/12;main;other 1" "$F" -q --no-header --tid --counts --time-from 150ns --time-to 450ns "$TMP/s.tsv"
# a second file concatenated: ids start over
sed 1d "$TMP/s.tsv" | sed 's/main;work;leaf/x;y/; s/main;other/z/' >"$TMP/s2.tsv"
check "profrec concatenated files" 0 "my_app;main;other 1000
my_app;main;work;leaf 2000
my_app;x;y 2000
my_app;z 1000" sh -c "cat \"$TMP/s.tsv\" \"$TMP/s2.tsv\" | \"$F\" -q --no-header"
printf '500\t10\t12\tmy app\t0\tcpu-clock\t1000\t7\t\n600\t1\t1\ta\t0\tcpu-clock\tx\t1\t\n' >>"$TMP/s.tsv"
check_error "profrec undefined stack id" 1 "s.tsv:7: stack_id not defined by an earlier row" "$F" "$TMP/s.tsv"
check_error "profrec bad number" 1 "s.tsv:8: bad number" "$F" "$TMP/s.tsv"

# several events: the default is the header's first event whatever the
# first row is; the unit written is the folded event's
printf '# source=profrec event=cpu-clock,page-faults unit=ns,count freq=999\n' >"$TMP/ev.tsv"
printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n' >>"$TMP/ev.tsv"
printf '100\t10\t10\tapp\t0\tpage-faults\t3\t1\tmain;fault\n' >>"$TMP/ev.tsv"
printf '200\t10\t10\tapp\t0\tcpu-clock\t1000\t2\tmain;work\n' >>"$TMP/ev.tsv"
check "several events: the header's first is the default" 0 "# source=profrec event=cpu-clock unit=ns freq=999
app;main;work 1000" "$F" -q "$TMP/ev.tsv"
check "-e: the unit is the event's" 0 "# source=profrec event=page-faults unit=count freq=999
app;main;fault 3" "$F" -q -e page-faults "$TMP/ev.tsv"
check "-e: --top --human prints the event's unit" 0 "top 1 function by self weight (total 3 count)" \
	sh -c "\"$F\" -q -e page-faults --top 1 --human \"$TMP/ev.tsv\" | head -n 1"

# merged inputs: the metadata all inputs agree on, source=merged when
# they differ; kernel frames named the profrec way (_[k]) on both sides
printf '# unit=ns event=cpu-clock source=perf-script\napp;main;f 5\n' >"$TMP/m1.folded"
printf '# source=profrec event=cpu-clock unit=ns command=app freq=999\napp;main;f 7\n' >"$TMP/m2.folded"
check "merged metadata: what all inputs agree on" 0 "# unit=ns event=cpu-clock source=merged
app;main;f 12" "$F" -j 2 "$TMP/m1.folded" "$TMP/m2.folded"
sed 's/command=app/command=other/' "$TMP/m2.folded" >"$TMP/m3.folded"
check "merged metadata: same source kept, differing keys dropped" 0 "# source=profrec event=cpu-clock unit=ns freq=999
app;main;f 14" "$F" "$TMP/m2.folded" "$TMP/m3.folded"
printf 'app;main;f 1\n' >"$TMP/m4.folded"
check "merged metadata: an input without any" 0 "# source=merged
app;main;f 8" "$F" "$TMP/m2.folded" "$TMP/m4.folded"
printf 'app 42/42 1.0: 1000 cpu-clock: \n\tffffffff821ef666 do_syscall_64+0x46 ([kernel.kallsyms])\n\t11cc main+0x2b (/opt/app)\n\n' >"$TMP/k.txt"
printf '# source=profrec event=cpu-clock unit=ns\ntime_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n' >"$TMP/k.tsv"
printf '5\t42\t42\tapp\t0\tcpu-clock\t2000\t0\tmain;do_syscall_64_[k]\n' >>"$TMP/k.tsv"
check "merged with profrec: perf script kernel frames get _[k]" 0 "# source=merged event=cpu-clock unit=ns
app;main;do_syscall_64_[k] 3000" "$F" -q "$TMP/k.tsv" "$TMP/k.txt"
check "merged with profrec: perf script first, folded" 0 "app;main;do_syscall_64_[k] 3000" \
	"$F" -q --no-header "$TMP/k.txt" "$TMP/k.tsv"
check_error "merged with profrec: a note says so" 0 "kernel frames marked _\[k\]" "$F" "$TMP/k.txt" "$TMP/k.tsv"
check "perf script alone: kernel frames as stackcollapse-perf.pl names them" 0 "app;main;do_syscall_64 1000" \
	"$F" -q --no-header "$TMP/k.txt"

# ---- transformations (folded input) -----------------------------------------
printf 'app;main;f;f;f;leaf 1\napp;main;g;leaf 2\napp;main;h;x 4\nother;main;f 8\n' >"$TMP/t.folded"
check "--focus" 0 "app;main;f;f;f;leaf 1
other;main;f 8" "$F" --no-header --focus '^f$' "$TMP/t.folded"
check "--exclude" 0 "app;main;g;leaf 2
app;main;h;x 4" "$F" --no-header --exclude '^f$' "$TMP/t.folded"
check "--collapse-recursion" 0 "app;main;f;leaf 1
app;main;g;leaf 2
app;main;h;x 4
other;main;f 8" "$F" --no-header --collapse-recursion "$TMP/t.folded"
check "--strip-comm merges" 0 "main;f 8
main;f;f;f;leaf 1
main;g;leaf 2
main;h;x 4" "$F" --no-header --strip-comm "$TMP/t.folded"
check "--skip-after" 0 "app;main;h;x 4
f 8
f;leaf 1" "$F" --no-header --skip-after f --exclude '^g$' "$TMP/t.folded"
check "--max-depth" 0 "app;main 7
other;main 8" "$F" --no-header --max-depth 2 "$TMP/t.folded"
check "--reverse" 0 "f;main;other 8
leaf;f;f;f;main;app 1
leaf;g;main;app 2
x;h;main;app 4" "$F" --no-header --reverse "$TMP/t.folded"
printf 'a;b 3 5\na;c 1 0\n' >"$TMP/diff.folded"
check "two-count folded kept" 0 "b 3 5
c 1 0" "$F" --no-header --strip-comm "$TMP/diff.folded"
# difffolded.pl turns "# ..." lines into " 0 0", first or anywhere
printf ' 0 0\na;b 3 5\n 0 0\na;c 1 0\n' >"$TMP/mangled.folded"
check "difffolded.pl's ' 0 0' lines are skipped" 0 "a;b 3 5
a;c 1 0" "$F" --no-header "$TMP/mangled.folded"
printf ' 5\n' >"$TMP/nostack.folded"
check_error "an empty stack with a count is still malformed" 1 "nostack.folded:1: empty stack" "$F" "$TMP/nostack.folded"
printf 'a;b 3\nno count here\na;c x\n' >"$TMP/bad.folded"
check_error "malformed folded line" 1 "bad.folded:2: missing count" "$F" "$TMP/bad.folded"
printf 'a;b 5\n' >"$TMP/notime.folded"
check_error "--time-from on folded stacks (no times): said, exit 1" 1 \
	"notime.folded: folded input has no sample times: --time-from/--time-to cannot select" \
	"$F" --time-from 1 "$TMP/notime.folded"
printf 'a;b 5.\na;c 3\n' >"$TMP/dot.folded"
check_error "a count ending in a point (5.) is no count: named, exit 1" 1 "dot.folded:1: missing count" "$F" "$TMP/dot.folded"
check "malformed folded: rest kept" 1 "a;b 3" "$F" --no-header "$TMP/bad.folded"

# ---- threads merged (issue 24): roots are threads' names ----------------------
# Three threads run work;hot, 30 each, the main thread idle 10: per thread
# the hottest path holds 30%; merged, 90%.
printf '# source=profrec unit=ns\nworker-0;start_thread;work;hot 30\nworker-1;start_thread;work;hot 30
worker-2;start_thread;work;hot 30\napp;main;idle 10\n' >"$TMP/thr.folded"
check "--merge-threads: one tower per function" 0 "main;idle 10
start_thread;work;hot 90" "$F" --no-header --merge-threads "$TMP/thr.folded"
"$F" --top 2 --human "$TMP/thr.folded" >"$TMP/thr.top"
check "--top --human: hottest path with the threads merged" 0 \
	"hottest path, threads merged (90.00%): start_thread > work > hot" grep '^hottest' "$TMP/thr.top"
"$F" --top 2 "$TMP/thr.folded" >"$TMP/thr.top"
check "--top TSV: hot_path of the merged threads, said" 0 \
	"hot_path=start_thread;work;hot hot_path_pct=90.00 hot_path_threads=merged" \
	sh -c "head -n 1 '$TMP/thr.top' | grep -o 'hot_path=.*'"
# roots that are not threads (no source=profrec or perf-script): kept
sed 1d "$TMP/thr.folded" >"$TMP/thr-plain.folded"
"$F" --top 2 --human "$TMP/thr-plain.folded" >"$TMP/thr.top"
check "--top: roots of other inputs are not merged" 0 \
	"hottest path (30.00%): worker-0 > start_thread > work > hot" grep '^hottest' "$TMP/thr.top"
# ---- sandwich (issue 24): the callers and the callees of one function -------
# F's total is 20 (10 + 5 + 3 + 2): its callers a 10, b 8 and itself 2 (the
# recursive stack, from its innermost F); its callees x 10, y;z 5, F;x 2
# (from the outermost F) and 3 in F itself. main;c never calls F.
printf 'main;a;F;x 10\nmain;b;F;y;z 5\nmain;b;F 3\nmain;c 7\nmain;F;F;x 2\n' >"$TMP/sw.folded"
check "--callers: who calls F, rooted at F" 0 "F;F;main 2
F;a;main 10
F;b;main 8" "$F" --no-header --callers F "$TMP/sw.folded"
check "--callees: what F calls, rooted at F" 0 "F 3
F;F;x 2
F;x 10
F;y;z 5" "$F" --no-header --callees F "$TMP/sw.folded"
"$F" --callees F --top 3 --human "$TMP/sw.folded" >"$TMP/sw.top"
check "--callees --top: where F's time goes, of its 20" 0 "   1          12  60.00%          12  60.00%  x  <- hot (self >= 5%)" \
	sed -n 3p "$TMP/sw.top"
# rooted at F, the roots are no longer threads: the path starts at F
printf '# source=profrec unit=ns\nworker-0;start_thread;F;hot 30\nworker-1;start_thread;F;hot 30\nworker-2;start_thread;F;cold 20\n' >"$TMP/cf.folded"
"$F" --callees F --top 2 --human "$TMP/cf.folded" >"$TMP/cf.top"
check "--callees of a profrec profile: the hottest path starts at F, not below it" 0 \
	"hottest path (75.00%): F > hot" tail -n 1 "$TMP/cf.top"
check_error "--callers of a function no stack holds: said, exit 1" 1 "no stack contains 'nope'" \
	"$F" --callers nope "$TMP/sw.folded"
check_error "--callers and --callees together: usage" 2 "one at a time" \
	"$F" --callers F --callees F "$TMP/sw.folded"
check_error "--callees --reverse: usage" 2 "--callers draws who calls it" \
	"$F" --callees F --reverse "$TMP/sw.folded"
# a real program: three named threads recorded by profrec
if [ ! -r /proc/sys/kernel/perf_event_paranoid ] || ! command -v "${CC:-cc}" >/dev/null 2>&1; then
	skip "threads merged on a profrec recording" "no perf_event support or no C compiler"
elif ! "${CC:-cc}" -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/threads3" "$D/threads3.c"; then
	fail "threads merged on a profrec recording" "cannot build tests/data/threads3.c"
elif ! "$BIN/profrec" -q -F 499 -o "$TMP/thr.tsv" -- "$TMP/threads3" 2>"$TMP/rec.err"; then
	skip "threads merged on a profrec recording" "profrec cannot record: $(head -c 200 "$TMP/rec.err")"
else
	run "$F" --top 3 --human "$TMP/thr.tsv"
	# hot: about 0.9 s of 1.25 s in three threads, 0.3 s each
	pct=$(sed -n 's/^hottest path, threads merged (\([0-9.]*\)%): start_thread > worker > hot$/\1/p' "$TMP/stdout")
	towers=$("$F" --no-header "$TMP/thr.tsv" | grep -c '^worker-[0-2];start_thread;worker;hot ')
	merged=$("$F" --no-header --merge-threads "$TMP/thr.tsv" | grep -c '^start_thread;worker;hot ')
	if [ -n "$pct" ] && awk -v p="$pct" 'BEGIN { exit !(p > 50) }' && [ "$towers" = 3 ] && [ "$merged" = 1 ]; then
		pass "threads merged on a profrec recording ($pct%, 3 towers -> 1)"
	else
		fail "threads merged on a profrec recording" "towers $towers, merged $merged: $(tr '\n' '|' <"$TMP/stdout")"
	fi
fi

# ---- --top --human on a terminal (issue 24 point 5): rows fit its width, never in a pipe ----
if python3 -c 'import pty, termios' 2>/dev/null; then
	long=a_function_name_much_longer_than_any_terminal_would_show_on_one_line_of_the_report
	printf 'main;outer_frame_one;outer_frame_two;%s 10\nmain;short 5\n' "$long" >"$TMP/long.folded"
	python3 "$TESTS/tools/on-tty.py" 80 1 "$F" --top 3 --human "$TMP/long.folded" >"$TMP/tty.out"
	"$F" --top 3 --human "$TMP/long.folded" >"$TMP/pipe.out"
	COLUMNS=60 "$F" --top 3 --human "$TMP/long.folded" >"$TMP/pipe2.out"
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/tty.out")
	if [ "$w" -le 80 ] && grep -q '^   1 .*  a_function_name_much_lon.*~  <- hot$' "$TMP/tty.out" &&
		grep -q '^   2 .*  short  <- hot (self >= 5%)$' "$TMP/tty.out" &&
		grep -q '^hottest path (66.67%): main > \.\.\. > a_function' "$TMP/tty.out" &&
		grep -q "  $long  <- hot (self >= 5%)\$" "$TMP/pipe.out" && cmp -s "$TMP/pipe.out" "$TMP/pipe2.out"; then
		pass "--top --human: rows cut to an 80-column terminal ($w), whole in a pipe (COLUMNS or not)"
	else
		fail "--top --human on a terminal" "widest $w: $(tr '\n' '|' <"$TMP/tty.out")"
	fi
else
	skip "--top --human on a terminal" "no python3 with pty and termios"
fi

# ---- input formats (lib/formats/profile.h; more in tests/unit/formats/test_profile.c)
printf '# unit=bytes\na;b 1 4\na;c 3 0\n' >"$TMP/diff.folded"
check "differential folded input keeps both counts" 0 "# unit=bytes
a;b 1 4
a;c 3 0" "$F" "$TMP/diff.folded"
check_error "a one-count line in differential input" 1 "diff2.folded:2: expected two counts" \
	sh -c "printf 'a;b 1 4\na;c 3\n' >\"$TMP/diff2.folded\"; \"$F\" \"$TMP/diff2.folded\""
printf '# tool=profheap report=alloc unit=bytes pid=7\napp;main;malloc 4096\napp;main;f;malloc 1024\n' \
	>"$TMP/7.alloc.folded"
check "profheap folded output: its unit kept" 0 "# tool=profheap report=alloc unit=bytes pid=7
app;main;f;malloc 1024
app;main;malloc 4096" "$F" "$TMP/7.alloc.folded"
check "profheap folded output: --top --human in bytes" 0 "top 1 function by self weight (total 5120 bytes)" \
	sh -c "\"$F\" --top 1 --human \"$TMP/7.alloc.folded\" | head -n 1"
gzip -c "$TMP/ev.tsv" >"$TMP/ev.tsv.gz"
check "compressed profrec TSV detected" 0 "app;main;fault 3" "$F" -q --no-header -e page-faults "$TMP/ev.tsv.gz"
check "-f perf-script names perf script input" 0 "app;main;do_syscall_64 1000" \
	"$F" -q --no-header -f perf-script "$TMP/k.txt"
check_error "-f profrec on folded input: the header is missing" 1 "7.alloc.folded:2: missing profrec-samples header" \
	"$F" -f profrec "$TMP/7.alloc.folded"
check_error "-f folded on perf script: malformed lines with their numbers" 1 "k.txt:1: missing count" \
	"$F" -f folded "$TMP/k.txt"
check_error "unknown --format" 2 "unknown format 'svg'" "$F" -f svg "$TMP/k.txt"

# ---- other profilers' output (lib/formats/import.h): one section each ------
# Captures in tests/data (README there: eu-stack, gdb and perf report run on
# stacks-work.c here; DTrace and bpftrace hand-written to their documented
# form); FlameGraph's scripts' outputs on them in tests/data/flamegraph.
D=$TESTS/data
FG=${FLAMEGRAPH_DIR:-}
# compare_fg NAME SCRIPT INPUT REFERENCE [OPTIONS]: the committed reference
# output of a FlameGraph script, remade from FLAMEGRAPH_DIR when it is set
compare_ref() {
	_n=$1 _script=$2 _in=$3 _ref=$4
	shift 4
	gzip -dc "$D/flamegraph/$_ref" >"$TMP/ref.folded"
	check_file "$_n: same as $_script (committed)" 0 "$TMP/ref.folded" "$F" -q --no-header "$@" "$_in"
	if [ -n "$FG" ] && [ -f "$FG/$_script" ] && command -v perl >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		perl "$FG/$_script" $_OPTS "$_in" >"$TMP/fgnow.folded" 2>/dev/null
		if cmp -s "$TMP/fgnow.folded" "$TMP/ref.folded"; then
			pass "$_n: $_script of FLAMEGRAPH_DIR gives the committed reference"
		else
			fail "$_n: $_script of FLAMEGRAPH_DIR gives the committed reference" \
				"$(diff "$TMP/ref.folded" "$TMP/fgnow.folded" | head -n 5 | tr '\n' '|')"
		fi
	else
		skip "$_n: $_script remade" "no FlameGraph checkout (FLAMEGRAPH_DIR) or perl"
	fi
}

# -- DTrace (stackcollapse.pl's input): byte-identical to stackcollapse.pl
_OPTS= compare_ref "dtrace" stackcollapse.pl "$D/dtrace.txt" dtrace.folded.gz
check "dtrace: detected, metadata" 0 "# source=dtrace" sh -c "\"$F\" \"$D/dtrace.txt\" | head -n 1"
if [ -n "$FG" ] && [ -f "$FG/example-dtrace-stacks.txt" ] && command -v perl >/dev/null 2>&1; then
	perl "$FG/stackcollapse.pl" "$FG/example-dtrace-stacks.txt" >"$TMP/fgd.folded"
	check_file "dtrace: FlameGraph's example-dtrace-stacks.txt as stackcollapse.pl" 0 "$TMP/fgd.folded" \
		"$F" -q --no-header "$FG/example-dtrace-stacks.txt"
else
	skip "dtrace: FlameGraph's example-dtrace-stacks.txt" "no FlameGraph checkout (FLAMEGRAPH_DIR) or perl"
fi
# a Java class prefix "L" is dropped only before a class path (stackcollapse.pl drops any)
printf '  Ljava/lang/Thread;.run+0x10\n  Lock::take+0x8\n  1\n' >"$TMP/java.d"
check "dtrace: the L of Java class names only" 0 "Lock::take;java/lang/Thread:.run 1" \
	"$F" -q --no-header -f dtrace "$TMP/java.d"
printf '  a`f+0x1\n  2\n\n  a`g+0x1\n  a`h\n\n' >"$TMP/nocount.d"
check_error "dtrace: frames without a count line" 1 "nocount.d:4: stack without a count line" \
	"$F" "$TMP/nocount.d"
printf '  a`f+0x1\n  99999999999999999999\n' >"$TMP/big.d"
check_error "dtrace: a count above 2^64-1" 1 "big.d:2: count above 2\\^64-1" "$F" -f dtrace "$TMP/big.d"
# issue 25: what was dropped silently is an error naming file:line
printf '  a`f+0x1\n  a`main\n\n  a`g\n  a`main\n  3\n' >"$TMP/first-nocount.d"
check_error "dtrace: the first stack without a count line (not a header)" 1 "first-nocount.d:1: stack without a count line" \
	"$F" -f dtrace "$TMP/first-nocount.d"
printf '  a`f+0x1\n  a`main\n  -5\n\n  a`g\n  a`main\n  3\n' >"$TMP/neg.d"
check_error "dtrace: a negative count" 1 "neg.d:3: negative count -5" "$F" -f dtrace "$TMP/neg.d"
printf 'hello world\nthis is not a profile\n' >"$TMP/garbage.txt"
for fmt in dtrace bpftrace gdb eu-stack; do
	check_error "-f $fmt on text that is none: exit 1, named" 1 "garbage.txt(:[0-9]+)?: (no .* in the input|stack without a count|not an eu-stack line)" \
		"$F" -f "$fmt" "$TMP/garbage.txt"
done

# -- bpftrace: as stackcollapse-bpftrace.pl, offsets cut and stacks added up
gzip -dc "$D/flamegraph/bpftrace.folded.gz" | sed 's/+[0-9]*;/;/g; s/+[0-9]* / /' >"$TMP/bpf.ref"
"$F" -q --no-header "$TMP/bpf.ref" >"$TMP/bpf.want"
check_file "bpftrace: stackcollapse-bpftrace.pl's stacks, offsets cut, added up" 0 "$TMP/bpf.want" \
	"$F" -q --no-header "$D/bpftrace.txt"
check "bpftrace: metadata, comm key as the root" 0 "# source=bpftrace
mysqld;main;0x7f1c2a3b4c5d;__write 7" sh -c "\"$F\" \"$D/bpftrace.txt\" | sed -n '1p;3p'"
cat >"$TMP/bpf2.txt" <<'BPF'
@stacks[sshd, 
	7f0b2a5c8e4b __GI___libc_write+20 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	55d1c2a3b4c5 ([unknown])
	55d1c2a3b4d6 main+42 (/usr/sbin/sshd)
]: 4
@[bash]: 2
@[
    vfs_read+5
BPF
check "bpftrace: ustack(perf) frames, leading key elements, one-line keys" 1 "bash 2
sshd;main;[unknown];__GI___libc_write 4" "$F" -q --no-header "$TMP/bpf2.txt"
check_error "bpftrace: an entry cut short" 1 'bpf2.txt:8: input cut short inside a bpftrace entry' \
	"$F" "$TMP/bpf2.txt"

# -- eu-stack: three snapshots of stacks-work, as stackcollapse-elfutils.pl
_OPTS= compare_ref "eu-stack" stackcollapse-elfutils.pl "$D/eustack.txt" eustack.folded.gz
_OPTS="--pid --tid" compare_ref "eu-stack --tid" stackcollapse-elfutils.pl "$D/eustack.txt" \
	eustack.pid-tid.folded.gz --tid
check "eu-stack -v (activation, module, source, inlines): the same functions" 0 "# unit=samples source=eu-stack
__clone3;start_thread;busy;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib 1
__clone3;start_thread;reader;__GI___libc_read;__GI___libc_read 1
__clone3;start_thread;sleeper;nap;__GI___nanosleep;__GI___clock_nanosleep 1
_start;__libc_start_main_impl;__libc_start_call_main;main;__sleep;__GI___nanosleep;__GI___clock_nanosleep 1" \
	"$F" "$D/eustack-v.txt"
printf 'PID 7 - process\nTID 7:\n#0  0x00007f0000001000\n#1  0x00007f0000002000 - /usr/lib/libx.so.1\n#2  0x0000555500001000 main - /opt/app\nTID 8:\nbogus\n' >"$TMP/eu.txt"
check "eu-stack: frames without a symbol" 1 "main;[libx.so.1];[unknown] 1" "$F" -q --no-header "$TMP/eu.txt"
check_error "eu-stack: a line that is not eu-stack's" 1 "eu.txt:7: not an eu-stack line: bogus" "$F" "$TMP/eu.txt"
printf '#0  0x00007f0000001000 f\n#1  0x0000555500001000 main\nTID 8:\n#0  0x0000555500001000 g\n' >"$TMP/eu-notid.txt"
check_error "eu-stack: frames before any TID line: named" 1 "eu-notid.txt:1: frame before any TID line" \
	"$F" -f eu-stack "$TMP/eu-notid.txt"
# a live process, when eu-stack can attach here
if command -v eu-stack >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 &&
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o "$TMP/stacks-work" "$D/stacks-work.c" 2>/dev/null; then
	"$TMP/stacks-work" 20 &
	live=$!
	sleep 0.5
	eu-stack -p "$live" >"$TMP/live.eu" 2>"$TMP/live.err"
	run "$F" --no-header "$TMP/live.eu"
	if [ "$STATUS" = 0 ] && grep -q ';busy;fib' "$TMP/stdout" && grep -q ';sleeper;nap;' "$TMP/stdout" &&
		[ "$(awk '{ s += $NF } END { print s }' "$TMP/stdout")" = 4 ]; then
		pass "eu-stack of a live stacks-work: its four threads"
	elif grep -qi 'operation not permitted\|ptrace' "$TMP/live.err"; then
		skip "eu-stack of a live stacks-work" "cannot attach here: $(head -c 100 "$TMP/live.err")"
	else
		fail "eu-stack of a live stacks-work" "exit $STATUS: $(head -c 300 "$TMP/stdout" "$TMP/live.err")"
	fi
	kill "$live" 2>/dev/null
	wait "$live" 2>/dev/null
else
	skip "eu-stack of a live stacks-work" "eu-stack or cc missing"
fi

# -- gdb "thread apply all bt" (poor man's profiler): stackcollapse-gdb.pl's
# stacks under each thread's name
gzip -dc "$D/flamegraph/gdb-bt.folded.gz" >"$TMP/gdb.ref"
"$F" -q --no-header --strip-comm "$D/gdb-bt.txt" >"$TMP/gdb.out"
if cmp -s "$TMP/gdb.ref" "$TMP/gdb.out"; then
	pass "gdb: same stacks as stackcollapse-gdb.pl (committed), thread names apart"
else
	fail "gdb: same stacks as stackcollapse-gdb.pl" "$(diff "$TMP/gdb.ref" "$TMP/gdb.out" | head -n 5 | tr '\n' '|')"
fi
check "gdb: thread names are the roots" 0 "# unit=samples source=gdb
napper 3
stacks-work 9" sh -c "\"$F\" --max-depth 1 \"$D/gdb-bt.txt\""
cat >"$TMP/gdb.txt" <<'GDB'
Thread 2 (Thread 0x7f00 (LWP 12) "io worker"):
#0  0x00007f0000001000 in ?? () from /usr/lib/libfoo.so.1
#1  <signal handler called>
#2  0x0000555500001000 in std::vector<int, std::allocator<int> >::push_back (this=0x1, x=@0x2: 3) at v.h:10
        __x = 3
#3  Foo::operator() (this=0x3) at f.cc:2
#4  0x0000555500002000 in ?? ()
#5  0x0000555500003000 in main () at m.cc:1
Backtrace stopped: previous frame inner to this frame (corrupt stack?)
#0  0x00007f0000009000 in poll () from /lib/libc.so.6
GDB
check "gdb: ??, signal frames, C++ names, bt full locals, a bt without Thread line" 0 "io worker;main;[unknown];Foo::operator();std::vector<int, std::allocator<int> >::push_back;<signal handler called>;[libfoo.so.1] 1
poll 1" "$F" -q --no-header "$TMP/gdb.txt"
if command -v gdb >/dev/null 2>&1 && [ -x "$TMP/stacks-work" ]; then
	"$TMP/stacks-work" 20 &
	live=$!
	sleep 0.5
	for i in 1 2; do gdb -batch -ex 'thread apply all bt' -p "$live" 2>&1; done >"$TMP/live.gdb"
	run "$F" --no-header --max-depth 1 "$TMP/live.gdb"
	if [ "$STATUS" = 0 ] && [ "$(cat "$TMP/stdout")" = "napper 2
stacks-work 6" ]; then
		pass "gdb batch backtraces of a live stacks-work: 2 x its four threads"
	elif grep -qi 'ptrace\|not permitted' "$TMP/live.gdb"; then
		skip "gdb batch backtraces of a live stacks-work" "cannot attach here"
	else
		fail "gdb batch backtraces of a live stacks-work" "exit $STATUS: $(head -c 300 "$TMP/stdout")"
	fi
	kill "$live" 2>/dev/null
	wait "$live" 2>/dev/null
else
	skip "gdb batch backtraces of a live stacks-work" "gdb or cc missing"
fi

# -- perf report --stdio --no-children -g folded: the stacks perf script
# folding gives (no comm root), in caller or callee order
"$F" -q --no-header --counts --strip-comm "$D/perf-report.script.txt.gz" >"$TMP/pr.want"
check_file "perf report -g folded,0,caller,count = perf script folded --counts" 0 "$TMP/pr.want" \
	"$F" -q --no-header "$D/perf-report-count.txt"
check "perf report: metadata, unit samples" 0 "# unit=samples event=cpu-clock:ppp source=perf-report" \
	sh -c "\"$F\" \"$D/perf-report-count.txt\" | head -n 1"
check "perf report -g folded (callee order, percent): root first, unit percent" 0 "# unit=percent event=cpu-clock:ppp source=perf-report
start_thread;busy;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib;fib 1.65" \
	sh -c "\"$F\" \"$D/perf-report-callee.txt\" | head -n 2"
# two events (cpu-clock and page-faults), counts and periods: the first is
# folded unless -e names another; counts add up to the header's samples
check "perf report, two events: the first folded, unit samples" 0 "# unit=samples event=cpu-clock source=perf-report" \
	sh -c "\"$F\" -q \"$D/perf-report-two.txt\" | head -n 1"
check_error "perf report, two events: a note names the other" 0 "skipped the samples of: page-faults" \
	"$F" "$D/perf-report-two.txt"
check "perf report -e page-faults: its 15 samples" 0 "# unit=samples event=page-faults source=perf-report 15" \
	sh -c "\"$F\" -e page-faults \"$D/perf-report-two.txt\" | awk 'NR == 1 { h = \$0 } NR > 1 { s += \$NF } END { print h, s }'"
check "perf report -e page-faults, periods: its event count, in page-faults" 0 "# unit=page-faults event=page-faults source=perf-report 62" \
	sh -c "\"$F\" -e page-faults \"$D/perf-report-two-period.txt\" | awk 'NR == 1 { h = \$0 } NR > 1 { s += \$NF } END { print h, s }'"
check "perf report, periods of cpu-clock: ns" 0 "# unit=ns event=cpu-clock source=perf-report" \
	sh -c "\"$F\" -q \"$D/perf-report-two-period.txt\" | head -n 1"
check_error "perf report -e an event it does not have" 1 "no samples of event 'cycles'" \
	"$F" -e cycles "$D/perf-report-two.txt"
check_error "perf report with children: refused, with the option" 1 \
	"perf-report-children.txt:9: perf report with children: .*--no-children" "$F" "$D/perf-report-children.txt"

# -- speedscope JSON: sampled and evented profiles
check "speedscope: sampled (us) and evented (ms) profiles in ns" 0 "# unit=ns source=speedscope
main 6001500
main;café 😀 3000000
main;work 20000
main;work;leaf:odd name 5000" "$F" "$D/speedscope.json"
check "speedscope: --counts (an evented profile: 1 per interval)" 0 "main 3
main;café 😀 1
main;work 2
main;work;leaf:odd name 1" "$F" -q --no-header --counts "$D/speedscope.json"
# a one-line document (as most exporters write it) is not a line over the cap
tr -d '\n' <"$D/speedscope.json" >"$TMP/one.json"
"$F" -q --no-header "$D/speedscope.json" >"$TMP/ss.want"
check_file "speedscope: one line longer than PROFTOOLS_MAX_LINE is read whole" 0 "$TMP/ss.want" \
	env PROFTOOLS_MAX_LINE=256 "$F" -q --no-header "$TMP/one.json"
head -c 300 "$D/speedscope.json" >"$TMP/cut.json"
check_error "speedscope: cut short, with line:column and byte offset" 1 \
	"cut.json:4:67: unterminated string \\(input cut short\\?\\) \\(byte offset 298\\)" "$F" "$TMP/cut.json"
sed 's/\[0, 1, 2\]/[0, 1, 7]/; s/"milliseconds"/"ms"/; s/"weights": \[10, 5, 1.5, 10\]/"weights": [10, "5", 1.5, 10]/' \
	"$D/speedscope.json" >"$TMP/shape.json"
run "$F" --no-header "$TMP/shape.json"
if [ "$STATUS" = 1 ] && [ ! -s "$TMP/stdout" ] &&
	grep -q 'shape.json:5:65: profiles\[0\].weights\[1\]: expected a non-negative number, found a string' "$TMP/stderr" &&
	grep -q 'shape.json:6:51: profiles\[1\].unit: unknown unit "ms"' "$TMP/stderr"; then
	pass "speedscope: values of the wrong shape, each with line:column and where in the file"
else
	fail "speedscope: values of the wrong shape" "exit $STATUS: $(tr '\n' '|' <"$TMP/stderr" | head -c 400)"
fi
sed 's/"frame": 3, "at": 5/"frame": 0, "at": 5/' "$D/speedscope.json" >"$TMP/nest.json"
check_error "speedscope: events not nested" 1 "nest.json:8:15: profiles\[1\].events\[2\]: closes a frame that is not the innermost open one" \
	"$F" "$TMP/nest.json"
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0,1e300]],"weights":[1e5000]}]}' >"$TMP/huge.json"
run "$F" "$TMP/huge.json"
if [ "$STATUS" = 1 ] && grep -q 'huge.json:1:114: profiles\[0\].weights\[0\]: expected a non-negative number, found one out of range' "$TMP/stderr"; then
	pass "speedscope: a weight beyond any number is refused"
else
	fail "speedscope: a weight beyond any number is refused" "exit $STATUS: $(head -c 300 "$TMP/stderr")"
fi
sed 's/1e5000/1/' "$TMP/huge.json" >"$TMP/huge2.json"
check_error "speedscope: a frame index beyond any array" 1 "huge2.json:1:95: profiles\[0\].samples\[0\]\[1\]: expected a frame index, found a number that is not one" \
	"$F" "$TMP/huge2.json"
printf '{"shared": {"frames": []}, "profiles": {"type": "sampled"}}' >"$TMP/obj.json"
check_error "speedscope: profiles not an array" 1 "obj.json:1:40: file.profiles: expected an array, found an object" \
	"$F" "$TMP/obj.json"
check_error "speedscope named on JSON of another kind" 1 "arr.json:1:1: expected a speedscope file" \
	sh -c "echo '[1, 2]' >\"$TMP/arr.json\"; \"$F\" -f speedscope \"$TMP/arr.json\""
# over the 1 GiB cap of a JSON document: a plain file is refused by its
# size, before any of it is held (it was read whole first: 1 GB of RSS).
# A sparse file: no disk used.
if need "speedscope over 1 GiB: refused by its size" /usr/bin/time time; then
	printf '{"$schema": "https://www.speedscope.app/file-format-schema.json", "profiles": [' >"$TMP/big.json"
	truncate -s 1100M "$TMP/big.json"
	run /usr/bin/time -f "rss=%M" "$F" "$TMP/big.json"
	rss=$(sed -n 's/^rss=//p' "$TMP/stderr")
	if [ "$STATUS" = 1 ] && grep -q "big.json: larger than 1073741824 bytes" "$TMP/stderr" &&
		[ -n "$rss" ] && [ "$rss" -lt 100000 ]; then
		pass "speedscope over 1 GiB: refused by its size, peak RSS $rss KiB (< 100000)"
	else
		fail "speedscope over 1 GiB: refused by its size" "exit $STATUS, rss ${rss:-?} KiB: $(head -c 300 "$TMP/stderr")"
	fi
	rm -f "$TMP/big.json"
fi

# proffold's own speedscope export read back: with --tid, the profile
# names (threads) are the roots again
if "$F" --list-options | grep -q '^--output-format'; then
	"$F" -q --no-header --tid "$D/perf-deep-dwarf.txt.gz" >"$TMP/rt.want"
	"$F" -q --tid -o "$TMP/rt.speedscope.json" "$D/perf-deep-dwarf.txt.gz"
	check_file "speedscope: proffold's export read back with --tid, the same stacks" 0 "$TMP/rt.want" \
		"$F" -q --no-header --tid "$TMP/rt.speedscope.json"
else
	skip "speedscope: proffold's export read back" "no --output-format in this proffold"
fi

# -- detection: each capture is read as its format, never as folded stacks
for c in dtrace.txt:dtrace bpftrace.txt:bpftrace eustack.txt:eu-stack eustack-v.txt:eu-stack \
	gdb-bt.txt:gdb perf-report-count.txt:perf-report speedscope.json:speedscope; do
	check "detected: ${c%%:*} as ${c#*:}" 0 "source=${c#*:}" \
		sh -c "\"$F\" -q \"$D/${c%%:*}\" | head -n 1 | grep -o 'source=[a-z-]*'"
done
# the other readers of profiles (profflame, profcmp) read them through the same entry
# (--compact-width 0: every frame an element, the 5 us leaf is under a pixel)
run "$BIN/profflame" --compact-width 0 "$D/speedscope.json"
if [ "$STATUS" = 0 ] && grep -q '<title>leaf:odd name (5,000 ns' "$TMP/stdout" && grep -q '<title>main (9,026,500 ns' "$TMP/stdout"; then
	pass "profflame draws a speedscope file"
else
	fail "profflame draws a speedscope file" "exit $STATUS: $(grep -o '<title>[^<]*' "$TMP/stdout" | head -n 5 | tr '\n' '|')"
fi
check "profcmp compares eu-stack with gdb snapshots" 0 "clock_nanosleep@GLIBC_2.2.5	6	0	6	0	-6	-100	0	noise" \
	sh -c "\"$BIN/profcmp\" \"$D/eustack.txt\" \"$D/gdb-bt.txt\" | sed -n 3p | cut -f1-9"
check "--input-format names a format" 0 "a;b 3" sh -c "printf '  b\n  a\n  3\n' | \"$F\" -q --no-header --input-format dtrace"

# ---- usage and errors ----------------------------------------------------
check_error "missing file" 1 "proffold: $TMP/nope: No such file" "$F" "$TMP/nope"
# -o and what is at the path (issue 10 item 1): a file keeps its mode and
# group, a symlink stays a link, a FIFO and device nodes are written in
# place, a full device fails. Nodes are made in $TMP, never in /dev.
mkdir -p "$TMP/o"
printf 'a;b 3\na;c 4\n' >"$TMP/o/in.folded"
"$F" --no-header "$TMP/o/in.folded" >"$TMP/o/want" 2>/dev/null
echo old >"$TMP/o/perm"
chmod 0640 "$TMP/o/perm"
[ "$(id -u)" = 0 ] && chgrp 65534 "$TMP/o/perm"
run "$F" --no-header -o "$TMP/o/perm" "$TMP/o/in.folded"
got=$(stat -c '%a %g' "$TMP/o/perm")
want="640 $( [ "$(id -u)" = 0 ] && echo 65534 || id -g)"
if [ "$STATUS" = 0 ] && [ "$got" = "$want" ] && cmp -s "$TMP/o/perm" "$TMP/o/want"; then
	pass "-o replaces a file keeping its mode and group"
else
	fail "-o replaces a file keeping its mode and group" "exit $STATUS, '$got' (want '$want')"
fi
echo old >"$TMP/o/target"
ln -s target "$TMP/o/link"
run "$F" --no-header -o "$TMP/o/link" "$TMP/o/in.folded"
if [ "$STATUS" = 0 ] && [ -L "$TMP/o/link" ] && cmp -s "$TMP/o/target" "$TMP/o/want"; then
	pass "-o through a symlink replaces its target, the link stays"
else
	fail "-o through a symlink replaces its target, the link stays" "exit $STATUS, $(ls -l "$TMP/o/link")"
fi
mkfifo "$TMP/o/fifo"
cat "$TMP/o/fifo" >"$TMP/o/fifo.out" &
reader=$!
run "$F" --no-header -o "$TMP/o/fifo" "$TMP/o/in.folded"
wait "$reader"
if [ "$STATUS" = 0 ] && [ -p "$TMP/o/fifo" ] && cmp -s "$TMP/o/fifo.out" "$TMP/o/want"; then
	pass "-o to a FIFO writes into it"
else
	fail "-o to a FIFO writes into it" "exit $STATUS, $(ls -l "$TMP/o/fifo")"
fi
if mknod "$TMP/o/null" c 1 3 2>/dev/null && mknod "$TMP/o/full" c 1 7 2>/dev/null; then
	run "$F" -o "$TMP/o/null" "$TMP/o/in.folded"
	if [ "$STATUS" = 0 ] && [ -c "$TMP/o/null" ] && [ ! -s "$TMP/o/null" ]; then
		pass "-o to a null device node leaves it a device"
	else
		fail "-o to a null device node leaves it a device" "exit $STATUS, $(ls -l "$TMP/o/null")"
	fi
	check_error "-o to a full device fails" 1 "proffold: $TMP/o/full: No space left on device" \
		"$F" -o "$TMP/o/full" "$TMP/o/in.folded"
	[ -c "$TMP/o/full" ] || fail "-o to a full device fails" "no longer a device: $(ls -l "$TMP/o/full")"
else
	skip "-o to device nodes" "mknod not permitted"
fi
[ -z "$(ls -A "$TMP/o" | grep '^\.')" ] || fail "-o leaves no temporary files" "$(ls -A "$TMP/o")"

# Counts are exact integers up to 2^64-1 (issue 10 item 3): no exponent
# form, read back byte for byte; a sum above it saturates with a warning.
printf 'a;b 18446744073709551615\na;c 9007199254740993\n' >"$TMP/big.folded"
check "2^64-1 and 2^53+1 written back byte for byte" 0 "$(cat "$TMP/big.folded")" \
	"$F" --no-header "$TMP/big.folded"
printf 'a;b 1\na;c 1\n' >"$TMP/one.folded"
for j in 1 2; do
	check "-j $j: a sum above 2^64-1 saturates" 0 "a;b 18446744073709551615
a;c 9007199254740994" "$F" -j $j --no-header "$TMP/big.folded" "$TMP/one.folded"
	if [ "$(grep -c 'counts add up to more than 18446744073709551615 (2^64-1) for a;b; kept at 18446744073709551615' "$TMP/stderr")" = 1 ]; then
		pass "-j $j: saturation said once"
	else
		fail "-j $j: saturation said once" "$(head -c 300 "$TMP/stderr")"
	fi
done
printf 'a;b 18446744073709551616\na;c 2\n' >"$TMP/over.folded"
check_error "a count above 2^64-1 is an error" 1 "over.folded:1: count above 18446744073709551615" \
	"$F" "$TMP/over.folded"
check "--top total of 2^64-1 exact" 0 "# total=18446744073709551615" \
	sh -c "\"$F\" --top 1 \"$TMP/big.folded\" | head -n 1 | cut -d' ' -f1,2"

check_error "bad option" 2 "usage: proffold" "$F" --bogus
check_error "bad regex" 2 "bad regex" "$F" --focus '(' "$TMP/t.folded"
check_error "bad jobs" 2 "--jobs" "$F" -j 0 "$TMP/t.folded"
check_error "--human without --top" 2 "needs --top" "$F" --human "$TMP/t.folded"
run "$F" --help
if [ "$STATUS" = 0 ] && grep -q "^usage: proffold \[-ahqv\]" "$TMP/stdout"; then
	pass "--help"
else
	fail "--help" "exit $STATUS"
fi
run "$F" --list-options
if [ "$STATUS" = 0 ] && grep -qx -- "--focus=" "$TMP/stdout" && grep -qx -- "--reverse" "$TMP/stdout"; then
	pass "--list-options"
else
	fail "--list-options" "exit $STATUS"
fi
if command -v mandoc >/dev/null 2>&1; then
	assert "man page lint" mandoc -Tlint -W warning "$TOP/man/proffold.1"
	# every long option is documented in the man page and in --help
	missing=
	for o in $("$F" --list-options | grep '^--' | sed 's/=.*//; s/^--//'); do
		grep -q -- "Fl -$o\b" "$TOP/man/proffold.1" || missing="$missing man:$o"
		"$F" --help | grep -q -- "--$o\b" || missing="$missing help:$o"
	done
	if [ -z "$missing" ]; then pass "options documented"; else fail "options documented" "$missing"; fi
	syn=$(mandoc -Tascii "$TOP/man/proffold.1" 2>/dev/null | col -bx | awk '/^SYNOPSIS/ { getline; while ($0 ~ /[^ ]/) { s = s " " $0; getline } print s }' | tr -s ' ' | sed 's/^ //')
	check "usage line equals man SYNOPSIS" 0 "usage: $syn" sh -c "\"$F\" --help | head -n 1"
else
	skip "man page lint" "mandoc not installed"
fi

# ---- profrec TSV: a negative weight (also "-0") is malformed, not folded ----
printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\n1\t1\t1\tapp\t0\tcpu-clock\t-5\t0\tmain;work\n2\t1\t1\tapp\t0\tcpu-clock\t10\t0\t\n3\t1\t1\tapp\t0\tcpu-clock\t-0\t0\t\n' >"$TMP/neg.tsv"
run "$F" --no-header "$TMP/neg.tsv"
if [ "$STATUS" = 1 ] && [ "$(cat "$TMP/stdout")" = "app;main;work 10" ] &&
	grep -q 'neg.tsv:2: negative weight' "$TMP/stderr" && grep -q 'neg.tsv:4: negative weight' "$TMP/stderr"; then
	pass "profrec TSV: negative weights (-5, -0) reported with file:line, the stack they define still used"
else
	fail "profrec TSV: negative weights" "exit $STATUS: $(cat "$TMP/stdout") | $(head -c 300 "$TMP/stderr")"
fi

# ---- a closed standard output: said once, exit 1 ----
printf 'main;a 5\n' >"$TMP/one.folded"
STATUS=0
"$F" "$TMP/one.folded" >&- 2>"$TMP/stderr" || STATUS=$?
if [ "$STATUS" = 1 ] && [ "$(wc -l <"$TMP/stderr")" = 1 ] && grep -q 'Bad file descriptor' "$TMP/stderr"; then
	pass "closed stdout: one error line, exit 1"
else
	fail "closed stdout" "exit $STATUS: $(tr '\n' '|' <"$TMP/stderr")"
fi

# ---- lines ended by CR alone: refused with the way out, CRLF read ----
printf 'main;a 5\rmain;b 3\r' >"$TMP/cr.folded"
check_error "CR-only line endings: refused, with how to convert" 1 'cr.folded:1: lines end in a carriage return alone' \
	"$F" "$TMP/cr.folded"
printf 'main;a 5\r\nmain;b 3\r\n' >"$TMP/crlf.folded"
check "CRLF line endings are read" 0 "$(printf 'main;a 5\nmain;b 3')" "$F" --no-header "$TMP/crlf.folded"

# ---- a compressed input cut inside a count: the cut line is left out ----
printf 'main;a 5\nmain;b 123456789\n' | gzip -c >"$TMP/whole.gz"
head -c $(($(wc -c <"$TMP/whole.gz") - 12)) "$TMP/whole.gz" >"$TMP/cut.gz"
if gzip -dc "$TMP/cut.gz" 2>/dev/null | grep -q 'main;b 1'; then
	run "$F" --no-header "$TMP/cut.gz"
	if [ "$STATUS" = 1 ] && [ "$(cat "$TMP/stdout")" = "main;a 5" ] &&
		grep -q 'cut.gz: the input is cut short: its incomplete last line is left out' "$TMP/stderr"; then
		pass "cut compressed input: the incomplete last line (a count cut short) is left out and said"
	else
		fail "cut compressed input" "exit $STATUS: $(cat "$TMP/stdout" | tr '\n' '|') $(head -c 200 "$TMP/stderr")"
	fi
else
	skip "cut compressed input" "this gzip leaves no partial line at the cut"
fi

# ---- --heatmap: the subsecond heat map (schema proffold-heatmap) ----
# (%.0f: mawk's %d stops at 2^31.) 3 s alternating 100 ms busy (a 1 ms sample each ms) and 100 ms asleep
# (one "wait" sample at 150 ms of each idle phase), and an offcpu-time row.
awk 'BEGIN {
	print "# source=profrec event=cpu-clock,offcpu-time unit=ns,ns"
	print "time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack"
	for (ms = 0; ms < 3000; ms++) {
		if (int(ms / 100) % 2 == 0) {
			printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t1000000\t1\t%s\n", ms * 1000000, b++ ? "" : "main;work"
		} else if (ms % 100 == 50) {
			printf "%.0f\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\t%s\n", ms * 1000000, w++ ? "" : "main;wait"
			printf "%.0f\t7\t7\tapp\t0\toffcpu-time\t99000000\t2\t\n", ms * 1000000
		}
	}
}' >"$TMP/stripes.tsv"
run "$F" -q --heatmap -o "$TMP/hm.tsv" "$TMP/stripes.tsv"
check "heatmap: header and first cells" 0 "# source=profrec event=cpu-clock unit=ns bucket_ms=20
second	offset_ms	event	samples	weight
0	0	cpu-clock	20	20000000
0	20	cpu-clock	20	20000000" head -n 4 "$TMP/hm.tsv"
validate_tsv "heatmap: valid proffold-heatmap TSV" proffold-heatmap "$TMP/hm.tsv"
# every cell: 3 s x 50 buckets; busy 20 samples, idle 0 (1 where "wait" is)
check "heatmap: the stripes, every cell present" 0 "150 cells, 75 busy=20, 15 wait=1, 60 idle=0" awk -F'\t' '
	NR > 2 { n++; ph = int($2 / 100) % 2
		if (ph == 0 && $4 == 20 && $5 == 20000000) busy++
		else if (ph == 1 && $2 % 100 == 40 && $4 == 1) wt++
		else if (ph == 1 && $4 == 0 && $5 == 0) idle++ }
	END { printf "%d cells, %d busy=20, %d wait=1, %d idle=0\n", n, busy, wt, idle }' "$TMP/hm.tsv"
check "heatmap: --bucket 100ms, seconds x buckets" 0 "0	0	cpu-clock	100	100000000
0	100	cpu-clock	1	1000000
2	900	cpu-clock	1	1000000" sh -c "\"$F\" -q --heatmap --bucket 100ms --no-header \"$TMP/stripes.tsv\" | sed -n '2p;3p;\$p'"
check "heatmap: -e picks the event" 0 "0	100	offcpu-time	1	99000000" sh -c \
	"\"$F\" --heatmap --bucket 0.1s -e offcpu-time --no-header \"$TMP/stripes.tsv\" | sed -n 3p"
# a range's cells hold what --time-from/--time-to folds for it
for range in "200ms 700ms" "0.98 2.02" "140ms 160ms"; do
	set -- $range
	want=$("$F" -q --no-header --time-from "$1" --time-to "$2" "$TMP/stripes.tsv" | awk '{ s += $NF } END { print s + 0 }')
	got=$("$F" -q --heatmap --no-header "$TMP/stripes.tsv" | awk -F'\t' -v a="$1" -v b="$2" '
		function ms(v) { return v ~ /ms$/ ? v + 0 : v * 1000 }
		NR > 1 { t = $1 * 1000 + $2; if (t >= ms(a) && t < ms(b)) s += $5 } END { print s + 0 }')
	if [ "$want" = "$got" ] && [ "$want" != 0 ]; then
		pass "heatmap: cells of $1..$2 = --time-from/--time-to ($got)"
	else
		fail "heatmap: cells of $1..$2" "heat map $got, --time-from/--time-to $want"
	fi
done
check "heatmap: --time-from/--time-to keep their cells only" 0 "24 404000000" sh -c \
	"\"$F\" -q --heatmap --no-header --time-from 200ms --time-to 1s \"$TMP/stripes.tsv\" | awk -F'\t' 'NR > 1 && \$4 { n++; s += \$5 } END { print n, s }'"
# perf script text with times: seconds from the first sample, all samples placed
for f in perf-nog perf-g; do
	want=$("$F" --no-header --counts "$TESTS/data/$f.txt.gz" | awk '{ s += $NF } END { print s }')
	run "$F" --heatmap -o "$TMP/$f.hm.tsv" "$TESTS/data/$f.txt.gz"
	got=$(awk -F'\t' 'NR > 2 { s += $4 } END { print s }' "$TMP/$f.hm.tsv")
	if [ "$STATUS" = 0 ] && [ "$want" = "$got" ] && "$TSVCHECK" proffold-heatmap "$TMP/$f.hm.tsv" >/dev/null 2>&1; then
		pass "heatmap of perf script $f: all $got samples, valid TSV"
	else
		fail "heatmap of perf script $f" "exit $STATUS, $got samples, folding counts $want"
	fi
done
for b in 7ms 0 2s abc -20ms 0.5ms; do
	check_error "heatmap: --bucket $b is a usage error" 2 "--bucket: (expected a duration|bad time)" \
		"$F" --heatmap --bucket "$b" "$TMP/stripes.tsv"
done
check_error "--bucket needs --heatmap" 2 "--bucket needs --heatmap" "$F" --bucket 20ms "$TMP/stripes.tsv"
# the largest bucket is the whole second, however written (one row per second)
check_error "heatmap: --bucket 300ms (not dividing a second) is a usage error" 2 "--bucket: expected a duration" \
	"$F" --heatmap --bucket 300ms "$TMP/stripes.tsv"
"$F" -q --heatmap --bucket 1s "$TMP/stripes.tsv" >"$TMP/hm-1s.tsv"
check_file "heatmap: --bucket 1000ms is 1s, the largest bucket" 0 "$TMP/hm-1s.tsv" \
	"$F" -q --heatmap --bucket 1000ms "$TMP/stripes.tsv"
check_error "--heatmap takes no --top" 2 "takes no --top" "$F" --heatmap --top 3 "$TMP/stripes.tsv"
check_error "--heatmap of folded stacks: no times" 1 "no sample times" "$F" --heatmap "$TMP/one.folded"

# a real recording of a program alternating 100 ms of work and 100 ms asleep
# tests/tools/stripes: 100 ms of work, 100 ms asleep, fifteen times
if [ -x "$BUILD/tests/tools/stripes" ] &&
	"$BIN/profrec" -q -o "$TMP/rec.tsv" -- "$BUILD/tests/tools/stripes" 2>"$TMP/rec.err" &&
	[ "$(awk 'END { print NR }' "$TMP/rec.tsv")" -gt 100 ]; then
	run "$F" --heatmap --bucket 20ms -o "$TMP/rec.hm.tsv" "$TMP/rec.tsv"
	# the program's 200 ms period starts when it does, some ms after the
	# recording: of the ten 20 ms phases of the period, the busiest holds
	# far more than the idlest, wherever the period starts
	res=$(awk -F'\t' '!/^#/ && $1 != "second" { p = int(($1 * 1000 + $2) % 200 / 20); s[p] += $4; n++ }
		END { hi = -1; lo = -1; for (p = 0; p < 10; p++) { if (hi < 0 || s[p] > hi) hi = s[p]; if (lo < 0 || s[p] < lo) lo = s[p] }
		      print (hi >= 3 * lo && hi > 0 ? "stripes" : "flat " hi "/" lo), n }' "$TMP/rec.hm.tsv")
	if [ "$STATUS" = 0 ] && [ "${res%% *}" = stripes ]; then
		pass "heatmap of a real recording (profrec): the stripes ($res cells)"
	else
		fail "heatmap of a real recording" "exit $STATUS: $res"
	fi
else
	skip "heatmap of a real recording" "profrec could not record here: $(head -c 200 "$TMP/rec.err" 2>/dev/null | tr '\n' ' ')"
fi

# ---- pprof and speedscope export, pprof import (issue 16) ----
# a differential profile (two counts) kept its first count alone: refused
printf 'a;b 3 5\na;c 2 1\n' >"$TMP/two.folded"
for x in pb.gz speedscope.json; do
	check_error "export of a differential profile to .$x: refused, exit 1" 1 \
		"a differential profile \(two counts per stack\) has no (pprof|speedscope) form" "$F" -o "$TMP/two.$x" "$TMP/two.folded"
	[ -e "$TMP/two.$x" ] && fail "no .$x written for a differential profile" || pass "no .$x written for a differential profile"
done
# A profrec recording of two threads and two events, with sampled addresses.
{
	printf '# source=profrec event=cpu-clock,offcpu-time unit=ns,ns freq=1000 call_graph=fp start_time=2026-01-02T03:04:05Z\n'
	printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\tip\tmap_id\tmap\n'
	printf '1000\t7\t7\tapp\t0\tcpu-clock\t1000000\t0\tmain;work;leaf\t401136\t0\t0x400000 0x0 abcd /bin/app\n'
	printf '2000000\t7\t8\tapp\t1\tcpu-clock\t1000000\t0\t\t401138\t0\t\n'
	printf '3000000\t7\t8\tapp\t1\tcpu-clock\t1000000\t1\tmain;work;sys_[k]\tffffffff81000000\t\t\n'
	printf '4000000\t7\t7\tapp\t0\toffcpu-time\t5000000\t2\tmain;wait;schedule_[k]\t\t\t\n'
	printf '5000000\t7\t7\tapp\t0\tcpu-clock\t1000000\t3\tmain;work;leaf;main;work\t401140\t0\t\n'
} >"$TMP/x.tsv"
validate_tsv "export: profrec fixture valid" profrec-samples "$TMP/x.tsv"
for ev in cpu-clock offcpu-time; do
	"$F" -q --no-header -e "$ev" "$TMP/x.tsv" >"$TMP/x.$ev.folded"
	"$F" -q -e "$ev" -o "$TMP/x.$ev.pb.gz" "$TMP/x.tsv"
	check_file "pprof round trip: profrec TSV -e $ev" 0 "$TMP/x.$ev.folded" "$F" -q --no-header "$TMP/x.$ev.pb.gz"
done
# time_nanos and duration_nanos (the last sample's time) as the interval
# from/until (proftools-push sends it as the profile's).
check "pprof import metadata" 0 "# source=pprof event=off_cpu unit=ns start_time=2026-01-02T03:04:05Z from=1767323045.000 until=1767323045.004" \
	sh -c "\"$F\" -q \"$TMP/x.offcpu-time.pb.gz\" | head -n 1"
# Names that are not UTF-8 (symbols are bytes): written as U+FFFD, so that
# decoders holding to proto3's strings (protoc, python-protobuf) take it.
if need "pprof: invalid UTF-8 written as U+FFFD" python3 python3; then
	printf 'main;bad\377\376name 3\nmain;caf\303\251 1\n' | "$F" -q -o "$TMP/utf.pb.gz"
	check "pprof: invalid UTF-8 written as U+FFFD, valid kept" 0 "$(printf 'bad\357\277\275\357\277\275name\ncaf\303\251\nmain')" \
		sh -c "python3 \"$TESTS/tools/pprof_dump.py\" \"$TMP/utf.pb.gz\" | awk '\$1 == \"function\" { print \$3 }' | sort"
fi
# Names holding the folded text's separators (';', a line break): made
# ':' and blanks on reading, so that proffold reads back what it wrote.
if need "pprof: names with ';' and line breaks read back" python3 python3; then
	python3 - "$TMP/semi.pb.gz" <<'PY'
import gzip, sys
def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7f) | (0x80 if n > 0x7f else 0))
        n >>= 7
        if not n:
            return bytes(out)
def field(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload
p = field(1, 2, field(1, 0, 1) + field(2, 0, 2))                      # samples/count
p += field(2, 2, field(1, 2, varint(1) + varint(2)) + field(2, 2, varint(5)))
for i in (1, 2):                                                      # location i -> function i
    p += field(4, 2, field(1, 0, i) + field(4, 2, field(1, 0, i)))
    p += field(5, 2, field(1, 0, i) + field(2, 0, i + 2))
for s in (b"", b"samples", b"count", b"std::map<a;b>::find", b"main\nfake 99"):
    p += field(6, 2, s)
open(sys.argv[1], "wb").write(gzip.compress(p))
PY
	"$F" -q --no-header "$TMP/semi.pb.gz" >"$TMP/semi.folded"
	check "pprof: names with ';' and line breaks: one frame each, one line" 0 "main fake 99;std::map<a:b>::find 5" cat "$TMP/semi.folded"
	check_file "pprof: names with ';' and line breaks: proffold reads its output back" 0 "$TMP/semi.folded" \
		"$F" -q --no-header "$TMP/semi.folded"
fi
check "pprof -e samples" 0 "app;main;work;leaf 2
app;main;work;leaf;main;work 1
app;main;work;sys_[k] 1" "$F" -q --no-header -e samples "$TMP/x.cpu-clock.pb.gz"
check "pprof --counts" 0 "app;main;work;leaf 2
app;main;work;leaf;main;work 1
app;main;work;sys_[k] 1" "$F" -q --no-header --counts "$TMP/x.cpu-clock.pb.gz"
check "pprof -e cpu-clock finds cpu" 0 "app;main;work;leaf 2000000
app;main;work;leaf;main;work 1000000
app;main;work;sys_[k] 1000000" "$F" -q --no-header -e cpu-clock "$TMP/x.cpu-clock.pb.gz"
check_error "pprof -e of no sample type" 1 "x.cpu-clock.pb.gz: no sample type 'bytes' in the profile \(it has: samples, cpu\)" \
	"$F" -q -e bytes "$TMP/x.cpu-clock.pb.gz"
# the name: .pb.gz wins over .gz; --output-format pprof gzips whatever the name
"$F" -q -o "$TMP/n.pb.gz" "$TMP/x.tsv"
"$F" -q --output-format pprof -o "$TMP/n.raw" "$TMP/x.tsv"
"$F" -q --output-format pprof "$TMP/x.tsv" >"$TMP/n.stdout"
gzip -dc "$TMP/n.pb.gz" >"$TMP/n.pb" 2>/dev/null
if [ "$(od -An -tx1 -N1 "$TMP/n.pb" | tr -d ' ')" = 0a ] &&
	gzip -dc "$TMP/n.raw" | cmp -s - "$TMP/n.pb" && gzip -dc "$TMP/n.stdout" | cmp -s - "$TMP/n.pb"; then
	pass "pprof: .pb.gz implies pprof, gzip'd whatever the name"
else
	fail "pprof: .pb.gz implies pprof, gzip'd whatever the name" "$(od -An -tx1 -N4 "$TMP/n.pb.gz")"
fi
check_file "pprof raw (not gzip'd) input" 0 "$TMP/x.cpu-clock.folded" "$F" -q --no-header "$TMP/n.pb"
check_file "pprof from stdin" 0 "$TMP/x.cpu-clock.folded" sh -c "\"$F\" -q --no-header <\"$TMP/n.pb.gz\""
"$F" -q -o "$TMP/n.folded.gz" "$TMP/x.tsv"
check "plain .gz stays folded" 0 "# source=profrec event=cpu-clock unit=ns freq=1000 call_graph=fp start_time=2026-01-02T03:04:05Z" \
	sh -c "gzip -dc \"$TMP/n.folded.gz\" | head -n 1"
check_error "--output-format takes no --top" 2 "no --top or --heatmap" "$F" --top 3 -o "$TMP/t.pb.gz" "$TMP/x.tsv"
check_error "--output-format: unknown" 2 "expected folded, pprof or speedscope, got 'svg'" \
	"$F" --output-format svg "$TMP/x.tsv"
# bad inputs: errors with byte offsets
size=$(wc -c <"$TMP/n.pb")
head -c $((size - 3)) "$TMP/n.pb" >"$TMP/cut.pb"
check_error "truncated protobuf: byte offset" 1 "cut.pb: byte [0-9]+: truncated" "$F" -q "$TMP/cut.pb"
head -c $((size / 2)) "$TMP/n.pb" | gzip -c >"$TMP/cut.pb.gz"
check_error "truncated protobuf, gzip'd: byte offset" 1 "cut.pb.gz: byte [0-9]+: truncated" "$F" -q "$TMP/cut.pb.gz"
size=$(wc -c <"$TMP/n.pb.gz")
head -c $((size - 10)) "$TMP/n.pb.gz" >"$TMP/badgz.pb.gz"
check_error "cut gzip stream: an error, not a profile" 1 "badgz.pb.gz" "$F" -q "$TMP/badgz.pb.gz"
# the corpus captures: pprof round trip; an independent decoder agrees with --top
for cap in "$D"/perf-*.txt.gz; do
	c=$(basename "$cap" .txt.gz)
	"$F" -q --no-header "$cap" >"$TMP/$c.folded"
	"$F" -q -o "$TMP/$c.pb.gz" "$cap"
	check_file "pprof round trip: $c" 0 "$TMP/$c.folded" "$F" -q --no-header "$TMP/$c.pb.gz"
done
if need_npm "pprof-format decodes our pprof: totals per function = --top"; then
	for cap in "$D"/perf-*.txt.gz "$TMP/x.tsv"; do
		c=$(basename "$cap" .txt.gz)
		"$F" -q -o "$TMP/$c.pb.gz" "$cap"
		"$F" -q --top 1000000 "$cap" | awk -F'\t' 'NR > 2 { print $2 "\t" $3 "\t" $5 }' | sort >"$TMP/$c.top"
		check_file "pprof-format decodes $c: self/total per function = --top" 0 "$TMP/$c.top" \
			sh -c "node \"$TESTS/tools/pprof_totals.js\" \"$NPM_DIR\" \"$TMP/$c.pb.gz\" 2>\"$TMP/$c.types\" | sort"
	done
	check_error "pprof-format: sample types, period, times" 0 \
		"types=samples/count,cpu/nanoseconds default=cpu samples=4 period=1000000 period_type=cpu/nanoseconds time_nanos=1767323045000000000 duration_nanos=5000000" \
		node "$TESTS/tools/pprof_totals.js" "$NPM_DIR" "$TMP/x.tsv.pb.gz"
fi
# profrec input: the leaf frames' file mappings (ip, map_id, map) become pprof
# Mappings, each leaf address sampled a Location (and a Sample) of its own
# (4 samples: leaf at 401136 and 401138, work at 401140, the kernel stack)
if need_npm "pprof of profrec TSV: mappings with file and build-id"; then
	check_error "pprof of profrec TSV: mappings with file and build-id, a Location per leaf address" 0 \
		"mappings=/bin/app@abcd:leaf@401136\+leaf@401138\+work@401140$" \
		node "$TESTS/tools/pprof_totals.js" "$NPM_DIR" "$TMP/x.tsv.pb.gz"
fi
# profrec --lines frames ("NAME FILE:LINE"): pprof Functions with their
# file, Lines with their line (go tool pprof -list), one Function for all
# lines of a function, a Location per leaf address (-disasm); read back as
# they were.
{
	printf '# source=profrec event=cpu-clock unit=ns freq=1000 call_graph=fp start_time=2026-01-02T03:04:05Z\n'
	printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\tip\tmap_id\tmap\n'
	printf '1000\t7\t7\tapp\t0\tcpu-clock\t1000000\t0\tmain app.c:10;work app.c:20;leaf app.c:31\t401136\t0\t0x400000 0x0 abcd /bin/app\n'
	printf '2000\t7\t7\tapp\t0\tcpu-clock\t1000000\t1\tmain app.c:10;work app.c:20;leaf app.c:32\t401138\t0\t\n'
	printf '3000\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\tmain app.c:10;work app.c:21;inl app.h:5_[i];leaf app.c:31\t401136\t0\t\n'
	printf '4000\t7\t7\tapp\t0\tcpu-clock\t1000000\t0\t\t401136\t0\t\n'
} >"$TMP/lines.tsv"
"$F" -q -o "$TMP/lines.pb.gz" "$TMP/lines.tsv"
check "pprof of --lines frames: read back as they were" 0 "$("$F" -q --no-header "$TMP/lines.tsv")" \
	"$F" -q --no-header "$TMP/lines.pb.gz"
if need "pprof of --lines frames: functions with files, lines, addresses" python3 python3; then
	check "pprof of --lines frames: functions with files, lines, addresses" 0 "app -:0 -
function app -
function inl_[i] app.h
function leaf app.c
function main app.c
function work app.c
inl_[i] app.h:5 -
leaf app.c:31 0x401136
leaf app.c:32 0x401138
main app.c:10 -
mapping 1 0x400000 0x401139 /bin/app
work app.c:20 -
work app.c:21 -" sh -c "python3 \"$TESTS/tools/pprof_dump.py\" \"$TMP/lines.pb.gz\" | awk '
		\$1 == \"mapping\" { print; next }
		\$1 == \"function\" { print \"function\", \$3, \$4; name[\$2] = \$3; file[\$2] = \$4; next }
		\$5 != \"-\" { split(\$5, l, \":\"); print name[l[1]] \" \" file[l[1]] \":\" l[2] \" \" (\$3 == \"0x0\" ? \"-\" : \$3) }' | sort"
fi
# profrec 0.5's addrs column: every frame's Location at its address in its
# Mapping, a caller's at its return address - 1 (inside its call, as
# profile.proto and Go's profiles have it), a function and the call inlined
# into it at one address one Location of two Lines (inlined first); two
# call sites of the same stack, two Samples; the same folded stacks.
{
	printf '# source=profrec event=cpu-clock unit=ns freq=1000 call_graph=fp\n'
	printf 'time_ns\tpid\ttid\tcomm\tcpu\tevent\tweight\tstack_id\tstack\tip\tmap_id\tmap\taddrs\n'
	printf '1000\t7\t7\tapp\t0\tcpu-clock\t1000000\t0\tstart;main;inl_[i];leaf\t401136\t0\t0x401000 0x1000 abcd /bin/app\t'
	printf '7f0010@0=0x7f0000 0x0 - /lib/x%%3by.so;401210@1=0x401000 0x1000 abcd /bin/app;401210@1\n'
	printf '2000\t7\t7\tapp\t0\tcpu-clock\t1000000\t0\t\t401138\t0\t\t\n'
	printf '3000\t7\t7\tapp\t0\tcpu-clock\t1000000\t1\tstart;main;inl_[i];leaf\t401136\t0\t\t7f0010@0;401220@1;401220@1\n'
	printf '4000\t7\t7\tapp\t0\tcpu-clock\t1000000\t2\tstart;main;sys_[k]\tffffffff81000000\t\t\t7f0010@0;401230@1\n'
} >"$TMP/addrs.tsv"
"$F" -q -o "$TMP/addrs.pb.gz" "$TMP/addrs.tsv"
check "pprof of the addrs column: read back as folded" 0 "$("$F" -q --no-header "$TMP/addrs.tsv")" \
	"$F" -q --no-header "$TMP/addrs.pb.gz"
if need "pprof of the addrs column: callers at their addresses, in their mappings" python3 python3; then
	check "pprof of the addrs column: callers at their addresses, in their mappings" 0 "0x0 - app
0x0 - sys_[k]
0x401136 1 leaf
0x401138 1 leaf
0x40120f 1 inl_[i],main
0x40121f 1 inl_[i],main
0x40122f 1 main
0x7f000f 2 start
mapping 1 0x401000 0x401230 /bin/app
mapping 2 0x7f0000 0x7f0010 /lib/x;y.so" sh -c "python3 \"$TESTS/tools/pprof_dump.py\" \"$TMP/addrs.pb.gz\" | awk '
		\$1 == \"mapping\" { print; next }
		\$1 == \"function\" { name[\$2] = \$3; next }
		{ n = split(\$5, l, \",\"); s = \"\"; for (i = 1; i <= n; i++) { split(l[i], f, \":\"); s = s (i > 1 ? \",\" : \"\") name[f[1]] }
		  print \$3, (\$4 == 0 ? \"-\" : \$4), s }' | sort"
fi
sed 's/0x400000 0x0 abcd \/bin\/app/0x400000 zz/' "$TMP/x.tsv" >"$TMP/badmap.tsv"
check_error "pprof of profrec TSV: a malformed map column" 1 "badmap.tsv:3: bad map" \
	"$F" -q -o "$TMP/badmap.pb.gz" "$TMP/badmap.tsv"
# speedscope: schema-valid, a profile per thread, self weights = --top's
check "speedscope: a profile per thread, shared frames" 0 \
	'{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"main"},{"name":"work"},{"name":"leaf"},{"name":"sys_[k]"}]},"profiles":[{"type":"sampled","name":"app-7/7","unit":"nanoseconds","startValue":0,"endValue":2000000,"samples":[[0,1,2],[0,1,2,0,1]],"weights":[1000000,1000000]},{"type":"sampled","name":"app-7/8","unit":"nanoseconds","startValue":0,"endValue":2000000,"samples":[[0,1,2],[0,1,3]],"weights":[1000000,1000000]}],"name":"proftools","activeProfileIndex":0,"exporter":"proftools"}' \
	"$F" -q --output-format speedscope "$TMP/x.tsv"
printf 'a;b 3\na;c\\"x 2.5\n' >"$TMP/q.folded"
check "speedscope: folded input, one profile, JSON escaped" 0 \
	'{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"},{"name":"c\\\"x"}]},"profiles":[{"type":"sampled","name":"proftools","unit":"none","startValue":0,"endValue":5.5,"samples":[[0,1],[0,2]],"weights":[3,2.5]}],"name":"proftools","activeProfileIndex":0,"exporter":"proftools"}' \
	"$F" -q --output-format speedscope "$TMP/q.folded"
if need_npm "speedscope export valid against speedscope's schema"; then
	for cap in "$D"/perf-*.txt.gz "$TMP/x.tsv"; do
		c=$(basename "$cap" .txt.gz)
		"$F" -q -o "$TMP/$c.speedscope.json" "$cap"
		"$F" -q --top 1000000 "$cap" | awk -F'\t' 'NR > 2 && $3 > 0 { print $2 "\t" $3 }' | sort >"$TMP/$c.self"
		{ echo valid; cat "$TMP/$c.self"; } >"$TMP/$c.want"
		check_file "speedscope $c: schema-valid, self per function = --top" 0 "$TMP/$c.want" \
			sh -c "node \"$TESTS/tools/speedscope_check.js\" \"$NPM_DIR\" \"$TMP/$c.speedscope.json\" | { read -r v; echo \"\$v\"; sort; }"
	done
	printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[]},"profiles":[{"type":"sampled"}]}' >"$TMP/bad.json"
	check_status "speedscope validator rejects a bad document" 1 node "$TESTS/tools/speedscope_check.js" "$NPM_DIR" "$TMP/bad.json"
fi

# ---- inputs that expand: memory stays bounded (issue 25) ----
# A pprof sample naming one location 20,000 times, the location holding
# 20,000 inline lines (a few hundred bytes gzipped): 400 million frames,
# 10.9 GB in profflame. Stacks built by expansion keep their innermost
# PROF_STACKS_MAX_EXPANDED_DEPTH (4096) frames, said on stderr.
if need "expanding inputs: pprof and speedscope built here" python3 && need "expanding inputs: peak RSS" /usr/bin/time time; then
	python3 - "$TMP/bomb.pb.gz" <<'PY'
import gzip, sys
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if not n:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)
def field(num, wt, payload):
    if wt == 0:
        return varint(num << 3) + varint(payload)
    return varint(num << 3 | 2) + varint(len(payload)) + payload
p = field(1, 2, field(1, 0, 1) + field(2, 0, 2))                 # sample_type samples/count
p += field(2, 2, field(1, 2, varint(1) * 20000) + field(2, 2, varint(1)))  # one sample
p += field(4, 2, field(1, 0, 1) + field(4, 2, field(1, 0, 1) + field(2, 0, 7)) * 20000)
p += field(5, 2, field(1, 0, 1) + field(2, 0, 3))                 # function 1 "f"
for s in (b"", b"samples", b"count", b"f"):
    p += field(6, 2, s)
open(sys.argv[1], "wb").write(gzip.compress(p, 9))
PY
	# 2 GB of address space, so that the old reader failed fast (ASan
	# reserves terabytes of shadow: no limit then, a larger RSS bound)
	limit_as() { [ -n "$SANITIZE" ] || ulimit -v 2000000; }
	[ -n "$SANITIZE" ] && rss_max=400000 || rss_max=100000
	for t in proffold profflame; do
		STATUS=0
		( limit_as; /usr/bin/time -f "rss=%M" "$BIN/$t" "$TMP/bomb.pb.gz" >"$TMP/stdout" 2>"$TMP/stderr" ) || STATUS=$?
		rss=$(sed -n 's/^rss=//p' "$TMP/stderr")
		if [ "$STATUS" = 0 ] && [ -n "$rss" ] && [ "$rss" -lt $rss_max ] &&
			grep -q "bomb.pb.gz: 1 stack deeper than 4096 frames cut to its innermost 4096" "$TMP/stderr"; then
			pass "$t: a $(wc -c <"$TMP/bomb.pb.gz")-byte pprof of 400M frames: cut, said, peak RSS $rss KiB (< $rss_max)"
		else
			fail "$t: pprof expanding to 400M frames" "exit $STATUS, rss ${rss:-?} KiB: $(head -c 300 "$TMP/stderr")"
		fi
	done
	if [ "$( (limit_as; "$F" -q --no-header "$TMP/bomb.pb.gz" 2>/dev/null) | tr ';' '\n' | grep -c '^f')" = 4096 ]; then
		pass "pprof: the cut stack holds 4096 frames"
	else
		fail "pprof: the cut stack holds 4096 frames"
	fi
	# speedscope: 5,000 events nested (every interval adds the whole open
	# stack): the stacks deeper than 4096 keep their innermost frames
	python3 - "$TMP/nest.json" 5000 <<'PY'
import json, sys
n = int(sys.argv[2])
ev = [{"type": "O", "frame": i, "at": i} for i in range(n)]
ev += [{"type": "C", "frame": i, "at": 2 * n - i} for i in reversed(range(n))]
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
       "shared": {"frames": [{"name": "f%d" % i} for i in range(n)]},
       "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0,
                     "endValue": 2 * n, "events": ev}]}
open(sys.argv[1], "w").write(json.dumps(doc))
PY
	run "$F" -q --no-header -o "$TMP/nest.folded" "$TMP/nest.json"
	# the stack open when all 5,000 are: f904 (5000 - 4096) to f4999
	deepest=$(awk '$1 ~ /;f4999$/ { print gsub(/;/, ";") + 1, substr($1, 1, index($1, ";") - 1) }' "$TMP/nest.folded")
	if [ "$STATUS" = 0 ] && grep -q "nest.json: 1807 stacks deeper than 4096 frames cut to their innermost 4096" "$TMP/stderr" &&
		[ "$deepest" = "4096 f904" ] && [ "$(awk 'END { print NR }' "$TMP/nest.folded")" = 5000 ]; then
		pass "speedscope: 5,000 nested events: the stacks deeper than 4096 cut to their innermost frames, said"
	else
		fail "speedscope: nested events cut" "exit $STATUS, deepest '$deepest': $(head -c 300 "$TMP/stderr")"
	fi
fi

# speedscope JSON is held whole and parsed into values: 32 bytes a value
# (64 before; a file of small frame indices took ~17 times its size, now
# ~10): peak RSS under 13 times the file on 50,000 samples
if [ -z "$SANITIZE" ] && have python3 && have /usr/bin/time; then
	python3 - "$TMP/sampled.json" <<'PY'
import json, random, sys
random.seed(1)
samples = [[random.randint(0, 1999) for _ in range(random.randint(5, 40))] for _ in range(50000)]
weights = [random.randint(1, 100000) for _ in samples]
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json",
       "shared": {"frames": [{"name": "f%d" % i} for i in range(2000)]},
       "profiles": [{"type": "sampled", "name": "p", "unit": "nanoseconds", "startValue": 0,
                     "endValue": sum(weights), "samples": samples, "weights": weights}]}
open(sys.argv[1], "w").write(json.dumps(doc, separators=(",", ":")))
PY
	size=$(($(wc -c <"$TMP/sampled.json") / 1024))
	run /usr/bin/time -f "rss=%M" "$F" -q -o /dev/null "$TMP/sampled.json"
	rss=$(sed -n 's/^rss=//p' "$TMP/stderr")
	if [ "$STATUS" = 0 ] && [ -n "$rss" ] && [ "$rss" -lt $((size * 13)) ]; then
		pass "speedscope: a $size KiB file read in $rss KiB peak RSS (< 13 times its size)"
	else
		fail "speedscope: memory per byte of JSON" "exit $STATUS, rss ${rss:-?} KiB for $size KiB"
	fi
fi
