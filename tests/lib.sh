# Shared helpers for the tool tests (tests/NAME.sh). Source it first.
#
# Environment (set by tests/run.sh; defaults for running a file by hand):
#   BIN     directory of the tools under test        (default: bin); make
#           check points it at an installed tree (DESTDIR/usr/bin)
#   BUILD   build directory (tests/tools helpers)    (default: build)
#   CORPUS  a directory of extra captures (perf-fp.txt, perf-dwarf.txt and
#           their .folded references) for optional tests; unset: they skip.
#           Everything else the tests need is in the repository.
#   SANITIZE  non-empty in the sanitizer pass: keep workloads small
# Each test prints one line: "PASS name", "FAIL name: why" or
# "SKIP name: reason"; tests/run.sh counts them.

set -u
: "${BIN:=bin}"
: "${BUILD:=build}"
: "${SANITIZE:=}"
TOP=$(cd "$(dirname "$0")/.." && pwd)
case $BIN in /*) ;; *) BIN=$TOP/$BIN ;; esac
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
: "${CORPUS:=}"
TESTS=$TOP/tests
TMP=$(mktemp -d "${TMPDIR:-/tmp}/proftest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
TSVCHECK=$BUILD/tests/tools/tsvcheck
# profheap's preloaded shim: beside the tools in a build directory, in
# ../lib/proftools in an installed tree (make check tests that one).
SHIM=$BIN/libprofheap.so
[ -f "$SHIM" ] || [ ! -f "$BIN/../lib/proftools/libprofheap.so" ] ||
	SHIM=$(cd "$BIN/../lib/proftools" && pwd)/libprofheap.so
# profgpu's CUPTI injection library, found the same way.
CUPTI_INJ=$BIN/libprofgpu-cupti.so
[ -f "$CUPTI_INJ" ] || [ ! -f "$BIN/../lib/proftools/libprofgpu-cupti.so" ] ||
	CUPTI_INJ=$(cd "$BIN/../lib/proftools" && pwd)/libprofgpu-cupti.so
SUITE=$(basename "$0" .sh)
export LC_ALL=C
unset DEBUGINFOD_URLS

pass() { echo "PASS $SUITE: $1"; }
fail() { echo "FAIL $SUITE: $1${2:+: $2}"; }
skip() { echo "SKIP $SUITE: $1: $2"; }

# run CMD...: run it; stdout in $TMP/stdout, stderr in $TMP/stderr,
# exit status in $STATUS.
run() {
	STATUS=0
	"$@" >"$TMP/stdout" 2>"$TMP/stderr" || STATUS=$?
}

# check NAME STATUS EXPECTED_STDOUT CMD...: stdout and exit status exact.
check() {
	_name=$1 _want=$2 _expect=$3
	shift 3
	run "$@"
	printf '%s' "$_expect" >"$TMP/expected"
	[ -n "$_expect" ] && printf '\n' >>"$TMP/expected"
	if [ "$STATUS" != "$_want" ]; then
		fail "$_name" "exit $STATUS, expected $_want; stderr: $(head -c 400 "$TMP/stderr")"
	elif ! cmp -s "$TMP/expected" "$TMP/stdout"; then
		fail "$_name" "stdout differs: $(diff "$TMP/expected" "$TMP/stdout" | head -n 10 | tr '\n' '|')"
	else
		pass "$_name"
	fi
}

# check_file NAME STATUS EXPECTED_FILE CMD...: stdout equals a file.
check_file() {
	_name=$1 _want=$2 _file=$3
	shift 3
	run "$@"
	if [ "$STATUS" != "$_want" ]; then
		fail "$_name" "exit $STATUS, expected $_want; stderr: $(head -c 400 "$TMP/stderr")"
	elif ! cmp -s "$_file" "$TMP/stdout"; then
		fail "$_name" "stdout differs from $(basename "$_file"): $(diff "$_file" "$TMP/stdout" | head -n 10 | tr '\n' '|')"
	else
		pass "$_name"
	fi
}

# check_status NAME STATUS CMD...: only the exit status matters.
check_status() {
	_name=$1 _want=$2
	shift 2
	run "$@"
	if [ "$STATUS" = "$_want" ]; then
		pass "$_name"
	else
		fail "$_name" "exit $STATUS, expected $_want; stderr: $(head -c 400 "$TMP/stderr")"
	fi
}

# check_error NAME STATUS REGEX CMD...: fails with STATUS, stderr matches
# REGEX (grep -E), and nothing crashed (no sanitizer report).
check_error() {
	_name=$1 _want=$2 _re=$3
	shift 3
	run "$@"
	if [ "$STATUS" != "$_want" ]; then
		fail "$_name" "exit $STATUS, expected $_want; stderr: $(head -c 400 "$TMP/stderr")"
	elif ! grep -Eq -- "$_re" "$TMP/stderr"; then
		fail "$_name" "stderr does not match /$_re/: $(head -c 400 "$TMP/stderr")"
	elif grep -q 'Sanitizer' "$TMP/stderr"; then
		fail "$_name" "sanitizer report: $(head -c 400 "$TMP/stderr")"
	else
		pass "$_name"
	fi
}

# assert NAME CMD...: passes when CMD exits 0.
assert() {
	_name=$1
	shift
	if "$@" >"$TMP/assert.out" 2>&1; then
		pass "$_name"
	else
		fail "$_name" "$(head -c 400 "$TMP/assert.out" | tr '\n' '|')"
	fi
}

# validate_tsv NAME SCHEMA FILE: FILE is valid TSV of SCHEMA (prof-formats.5).
validate_tsv() {
	assert "$1" "$TSVCHECK" "$2" "$3"
}

# need_corpus NAME: true if the corpus is present, else reports a skip.
need_corpus() {
	[ -n "$CORPUS" ] && [ -f "$CORPUS/perf-fp.txt" ] && return 0
	skip "$1" "no corpus (CORPUS names a directory with perf-fp.txt)"
	return 1
}

# have CMD: CMD is installed (in PATH).
have() {
	command -v "$1" >/dev/null 2>&1
}

# need NAME CMD [PACKAGE]: true if CMD is installed, else reports NAME as
# skipped ("CMD not installed (package PACKAGE)") and is false:
#   if need "man page lint" mandoc; then ...; fi
need() {
	have "$2" && return 0
	skip "$1" "$2 not installed${3:+ (package $3)}"
	return 1
}

# check_sigstate NAME TOOL [ARG...]: the command that "TOOL ARG... command"
# runs starts with the signal dispositions (SigIgn) and mask (SigBlk) it
# gets without the tool, both as is and when the tool is itself started
# with signals blocked and ignored (tests/tools/sigstate).
# sigstate_public: SigIgn/SigBlk lines without signals 32 and 33, which
# glibc keeps for itself (SIGCANCEL, SIGSETXID; its sigaction refuses them)
# and hands a handler as soon as a process has a second thread, as the heap
# shim's does: a CI runner that starts jobs with them ignored would
# otherwise see a difference no program can observe.
sigstate_public() {
	while read -r _key _hex; do
		printf '%s %016x\n' "$_key" $((0x$_hex & ~0x180000000))
	done
}

check_sigstate() {
	_name=$1
	shift
	for _st in "" "-b 10,12 -i 1,2,3"; do
		# shellcheck disable=SC2086
		_want=$("$BUILD/tests/tools/sigstate" $_st grep -E '^Sig(Ign|Blk)' /proc/self/status |
			sigstate_public)
		# shellcheck disable=SC2086
		_got=$("$BUILD/tests/tools/sigstate" $_st "$@" grep -E '^Sig(Ign|Blk)' /proc/self/status 2>&1 |
			grep -E '^Sig(Ign|Blk)' | sigstate_public)
		if [ -z "$_want" ] || [ "$_want" != "$_got" ]; then
			fail "$_name${_st:+ (started with sigstate $_st)}" \
				"$(printf 'expected %s, got %s' "$_want" "$_got" | tr '\n\t' '| ')"
			return
		fi
	done
	pass "$_name"
}

# rustc_path: the path of rustc, from PATH or else ~/.cargo/bin (rustup
# installs it there, and CI's PATH may lack it); nothing and false without.
rustc_path() {
	command -v rustc 2>/dev/null && return 0
	[ -x "${HOME:-/nonexistent}/.cargo/bin/rustc" ] && echo "$HOME/.cargo/bin/rustc"
}

# rust_shapes NAME OUT: build tests/tools/shapes.rs (the Rust demangling
# workload) into OUT with frame pointers and debug info; true on success.
# Without rustc (rustc_path), NAME is reported as skipped; a failed build
# fails NAME. False in both cases.
rust_shapes() {
	if ! _rustc=$(rustc_path); then
		skip "$1" "rustc not installed (not in PATH nor in ~/.cargo/bin)"
		return 1
	fi
	if ! "$_rustc" -g -C force-frame-pointers=yes --crate-name main -o "$2" \
		"$TESTS/tools/shapes.rs" >"$TMP/rustc.err" 2>&1; then
		fail "$1" "rustc cannot build tests/tools/shapes.rs: $(head -c 300 "$TMP/rustc.err")"
		return 1
	fi
}

# rust_raw_names: the frames, one per line on stdin, that are not
# demangled as rustc-demangle's short form prints them: a hash segment
# (::h + 16 hex), legacy escapes ($LT$, $u20$, ...), mangled _ZN/_R names.
rust_raw_names() {
	grep -E '::h[0-9a-f]{16}($|[^0-9a-f])|\$(LT|GT|u[0-9a-f]+|C|RF|BP|SP|LP|RP)\$|^_ZN|^_R[A-Z]'
}

# need_npm NAME: the npm packages that check exported profiles
# independently of proftools (pprof-format: a pprof decoder; speedscope:
# its file format's JSON schema; ajv: a JSON schema validator), installed
# once into $NPM_DIR (under $BUILD) at pinned versions. True when they
# are there; else NAME is reported skipped with the reason and false.
NPM_DIR=$BUILD/npm
need_npm() {
	if [ ! -f "$NPM_DIR/.installed" ] && [ ! -f "$TMP/npm.failed" ]; then
		if ! have node || ! have npm; then
			echo "node or npm not installed" >"$TMP/npm.failed"
		else
			mkdir -p "$NPM_DIR"
			# test files run in parallel: one installs, the others wait
			(
				flock 9 2>/dev/null || true
				[ -f "$NPM_DIR/.installed" ] ||
					{ npm install --prefix "$NPM_DIR" --no-audit --no-fund \
						pprof-format@2.3.2 speedscope@1.25.0 ajv@8.20.0 \
						>"$NPM_DIR/install.log" 2>&1 && touch "$NPM_DIR/.installed"; }
			) 9>"$NPM_DIR.lock"
			[ -f "$NPM_DIR/.installed" ] ||
				echo "npm could not install pprof-format, speedscope and ajv: $(tail -n 1 "$NPM_DIR/install.log" 2>/dev/null)" >"$TMP/npm.failed"
		fi
	fi
	[ -f "$NPM_DIR/.installed" ] && return 0
	skip "$1" "$(cat "$TMP/npm.failed")"
	return 1
}
