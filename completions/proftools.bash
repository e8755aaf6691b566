# bash completion for the proftools programs.
# Options come from each program's hidden --list-options, so they follow
# the program's own option table and never go stale.
_proftools()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} opts
	if [[ $cur == -* ]]; then
		opts=$("$prog" --list-options 2>/dev/null)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
			compopt -o nospace 2>/dev/null
		fi
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o default -F _proftools proffold profflame profrec profheap profgpu profcmp profcompress
