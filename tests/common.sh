# Conventions every tool shares (STYLE.md): --help, usage errors, the
# hidden --list-options, and every long option documented in the man page,
# in --help and offered by the bash completion.
. "$(dirname "$0")/lib.sh"

tools=
for f in "$TOP"/cmd/*.c; do
	t=$(basename "$f" .c)
	[ -x "$BIN/$t" ] && tools="$tools $t"
done
[ -n "$tools" ] || { fail "tools built" "no tool in $BIN"; exit 0; }

for t in $tools; do
	run "$BIN/$t" --help
	if [ "$STATUS" = 0 ] && grep -q "^usage: $t" "$TMP/stdout" && [ ! -s "$TMP/stderr" ]; then
		pass "$t --help: usage on stdout, exit 0"
	else
		fail "$t --help: usage on stdout, exit 0" "exit $STATUS"
	fi
	check_error "$t: unknown option is a usage error" 2 "^usage: $t" "$BIN/$t" --no-such-option
	run "$BIN/$t" --list-options
	opts=$(sed 's/=$//' "$TMP/stdout")
	if [ "$STATUS" != 0 ] || [ -z "$opts" ]; then
		fail "$t --list-options" "exit $STATUS"
		continue
	fi
	pass "$t --list-options"
	man=$TOP/man/$t.1
	if [ ! -f "$man" ]; then
		fail "$t: man page exists" "no man/$t.1"
		continue
	fi
	missing_man= missing_help= missing_comp=
	"$BIN/$t" --help >"$TMP/help" 2>&1
	comps=$(COMP_WORDS="$BIN/$t --" COMP_CWORD=1 bash -c '
		. "$1"; COMP_WORDS=("$2" --); COMP_CWORD=1; _proftools; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$TOP/completions/proftools.bash" "$BIN/$t" 2>/dev/null)
	for o in $opts; do
		name=${o#--}
		# mdoc writes "--name" as "Fl \-name" or "Fl -name".
		grep -Eq "Fl (\\\\-|-)$name([^a-z0-9-]|\$)" "$man" || missing_man="$missing_man $o"
		grep -Eq -- "$o([^a-z0-9-]|\$)" "$TMP/help" || missing_help="$missing_help $o"
		printf '%s\n' "$comps" | sed 's/=$//' | grep -qx -- "$o" || missing_comp="$missing_comp $o"
	done
	if [ -z "$missing_man" ]; then pass "$t: every option in the man page"
	else fail "$t: every option in the man page" "missing:$missing_man"; fi
	if [ -z "$missing_help" ]; then pass "$t: every option in --help"
	else fail "$t: every option in --help" "missing:$missing_help"; fi
	if [ -z "$missing_comp" ]; then pass "$t: bash completion offers every option"
	else fail "$t: bash completion offers every option" "missing:$missing_comp"; fi
done

if command -v mandoc >/dev/null 2>&1; then
	for m in "$TOP"/man/*.[15]; do
		[ -f "$m" ] || continue
		if out=$(mandoc -Tlint -W warning "$m" 2>&1) && [ -z "$out" ]; then
			pass "mandoc -Tlint $(basename "$m")"
		else
			fail "mandoc -Tlint $(basename "$m")" "$(printf '%s' "$out" | head -n 3 | tr '\n' '|')"
		fi
	done
else
	skip "mandoc -Tlint" "mandoc not installed"
fi

check_status "tsvcheck rejects an unknown schema" 2 "$TSVCHECK" no-such-schema /dev/null
