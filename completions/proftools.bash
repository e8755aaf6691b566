# bash completion for the proftools programs.
# Options come from each program's hidden --list-options, so they follow
# the program's own option table and never go stale. A line such as
# "--colors=hot,mem" or "-r=alloc,peak" also gives the words the option's
# argument can be; they are offered after "--colors ", "--colors=" and "-r ".
# proftools-profile's first word is a mode (cpu, offcpu, memory, gpu, all,
# compare).
_proftools()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} prev= opt= list line vals=
	local -a opts=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# The wrapper's first word is its mode.
	if [[ ${prog##*/} == proftools-profile ]] && ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "cpu offcpu memory gpu all compare" -- "$cur"))
		return
	fi
	list=$("$prog" --list-options 2>/dev/null)
	# The option whose argument is being typed: "--opt VAL", "-o VAL",
	# "--opt=VAL" (COMP_WORDBREAKS splits it into "--opt" "=" "VAL").
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*} cur=${cur#*=}
	elif [[ $cur == = && $prev == -* ]]; then
		opt=$prev cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $prev == -* && $cur != -* ]]; then
		opt=$prev
	fi
	if [[ -n $opt ]]; then
		while IFS= read -r line; do
			if [[ ${line%%=*} == "$opt" && $line == *=?* ]]; then
				vals=${line#*=}
				break
			fi
		done <<<"$list"
		if [[ -n $vals ]]; then
			COMPREPLY=($(compgen -W "${vals//,/ }" -- "$cur"))
			return
		fi
	fi
	if [[ $cur == -* ]]; then
		while IFS= read -r line; do
			[[ $line == --* ]] || continue
			[[ $line == *=* ]] && line=${line%%=*}=
			opts+=("$line")
		done <<<"$list"
		COMPREPLY=($(compgen -W "${opts[*]}" -- "$cur"))
		if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
			compopt -o nospace 2>/dev/null
		fi
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o default -F _proftools proffold profflame profrec profheap profgpu profcmp profcompress \
	profreport profannotate proftools-profile proftools-push
