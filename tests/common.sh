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
	cp "$TMP/stdout" "$TMP/list"
	opts=$(grep '^--' "$TMP/list" | sed 's/=.*//')
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

if need "mandoc -Tlint" mandoc mandoc; then
	for m in "$TOP"/man/*.[157]; do
		[ -f "$m" ] || continue
		if out=$(mandoc -Tlint -W warning "$m" 2>&1) && [ -z "$out" ]; then
			pass "mandoc -Tlint $(basename "$m")"
		else
			fail "mandoc -Tlint $(basename "$m")" "$(printf '%s' "$out" | head -n 3 | tr '\n' '|')"
		fi
	done
fi

# complete TOOL WORD...: what the bash completion offers for the last WORD
# (COMP_WORDS as bash splits the line: "--colors=h" is "--colors" "=" "h").
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _proftools
		printf "%s\n" "${COMPREPLY[@]}"' sh "$TOP/completions/proftools.bash" "$@" 2>/dev/null | sort
}

# Enumerated arguments: every value list --list-options declares is
# offered after "--opt ", "--opt=" (and a prefix), and the short spelling.
for t in $tools; do
	"$BIN/$t" --list-options 2>/dev/null | grep -E '^--?[^=]+=.' >"$TMP/vals"
	while IFS= read -r line; do
		o=${line%%=*} want=$(printf '%s\n' "${line#*=}" | tr ',' '\n' | sort)
		first=$(printf '%s\n' "$want" | head -n 1)
		got1=$(complete_words "$BIN/$t" "$o" "")
		got2=$(complete_words "$BIN/$t" "$o" "=" "")
		got3=$(complete_words "$BIN/$t" "$o" "=" "${first%?}")
		want3=$(printf '%s\n' "$want" | grep -F -- "${first%?}" | grep -x -- "${first%?}.*")
		ok=0
		case $o in
		--*) [ "$got1" = "$want" ] && [ "$got2" = "$want" ] && [ "$got3" = "$want3" ] && ok=1 ;;
		*) [ "$got1" = "$want" ] && ok=1 ;;
		esac
		if [ "$ok" = 1 ]; then
			pass "$t: completion offers the values of $o"
		else
			fail "$t: completion offers the values of $o" \
				"$(printf 'want %s; got %s / %s / %s' "$want" "$got1" "$got2" "$got3" | tr '\n' ' ')"
		fi
	done <"$TMP/vals"
	# Options are offered as options, never the short value lines.
	if complete_words "$BIN/$t" "-" | grep -q '^-[^-]'; then
		fail "$t: completion of - offers only long options" "$(complete_words "$BIN/$t" "-" | grep '^-[^-]' | head -n 3 | tr '\n' ' ')"
	else
		pass "$t: completion of - offers only long options"
	fi
done

# The enumerated arguments issue 10 named have their values declared.
for spec in "profflame --colors hot" "profflame --format html" "proffold --format perf" \
	"profrec --call-graph dwarf" "profrec -e cpu-clock" "profheap -r peak" "profheap --unwind dwarf" \
	"profgpu --backend nvml" "proffold --sort total" "profflame --bgcolors grey" "profcompress --stat median"; do
	set -- $spec
	[ -x "$BIN/$1" ] || continue
	if complete_words "$BIN/$1" "$2" "" | grep -qx -- "$3"; then
		pass "$1: completion after $2 offers $3"
	else
		fail "$1: completion after $2 offers $3" "got: $(complete_words "$BIN/$1" "$2" "" | tr '\n' ' ')"
	fi
done

# getopt's own messages name the tool, not argv[0] as typed.
for t in $tools; do
	run "$BIN/$t" --no-such-option
	if grep -q "^$t: unrecognized option" "$TMP/stderr" && ! grep -q "^/" "$TMP/stderr"; then
		pass "$t: getopt message starts with the tool name"
	else
		fail "$t: getopt message starts with the tool name" "$(head -n 1 "$TMP/stderr")"
	fi
	run "$BIN/$t" -o
	if [ "$STATUS" = 2 ] && grep -q "^$t: option requires an argument" "$TMP/stderr"; then
		pass "$t: a missing argument is reported with the tool name"
	else
		fail "$t: a missing argument is reported with the tool name" "exit $STATUS: $(head -n 1 "$TMP/stderr")"
	fi
done

check_status "tsvcheck rejects an unknown schema" 2 "$TSVCHECK" no-such-schema /dev/null

# Counts of one take the singular ("1 frame", not "1 frames").
if [ -x "$BIN/profflame" ]; then
	check_error "profflame: 1 frame deeper than --max-depth (singular)" 0 \
		'^profflame: 1 frame deeper than 2 not drawn' \
		sh -c 'printf "a;b;c 1\n" | "$1" --max-depth 2 >/dev/null' sh "$BIN/profflame"
	check_error "profflame: 2 frames deeper than --max-depth (plural)" 0 \
		'^profflame: 2 frames deeper than 2 not drawn' \
		sh -c 'printf "a;b;c 1\na;b;d 1\n" | "$1" --max-depth 2 >/dev/null' sh "$BIN/profflame"
fi
printf 'rank\tfunction\tself\tself_pct\ttotal\ttotal_pct\tflag\nonefield\n' >"$TMP/one.tsv"
check_error "tsvcheck: a line of 1 field (singular)" 1 ':2: 1 field, expected 7' "$TSVCHECK" proffold-top "$TMP/one.tsv"

# Every man page names the same source (.Os) in its footer.
os=$(grep -h '^\.Os' "$TOP"/man/*.[157] | sort -u)
if [ "$(printf '%s\n' "$os" | wc -l)" = 1 ] && [ "$os" = ".Os proftools" ]; then
	pass "man pages: one .Os line (.Os proftools)"
else
	fail "man pages: one .Os line (.Os proftools)" "$(printf '%s' "$os" | tr '\n' '|')"
fi
