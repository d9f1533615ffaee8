# bash completion for segscan (installed as share/bash-completion/completions/segscan).
#
# Nothing here lists an option: commands come from `segscan --help` and the options of a
# command from `segscan CMD --help`, which prints the option table of src/lib/options.c
# (plus the command's own options), so completion cannot drift from the binary it
# completes. A value is completed from the help's metavar: a|b|c lists the words,
# FILE/PATH files, DIR directories; after '=' (--io=<TAB>) or as the next word
# (--io <TAB>, -f <TAB>). tests/operate.sh checks every option of every
# command against this function.

# _segscan_help BIN CMD: "--name" or "--name=METAVAR" per option of CMD, cached.
_segscan_help()
{
	local key="$1 $2" out
	if [[ -z ${_segscan_cache[$key]+set} ]]; then
		out=$("$1" $2 --help 2>/dev/null | grep -oE '^ +(-[a-zA-Z], +)?--[a-z0-9.-]+(=[^ ]+)?' |
			sed -E 's/^ +(-[a-zA-Z], +)?//')
		_segscan_cache[$key]=$out
	fi
	printf '%s\n' "${_segscan_cache[$key]}"
}

# _segscan_meta BIN CMD OPT: the metavar of OPT ("-f" or "--io") in CMD's help, empty
# for a flag or an option CMD does not have.
_segscan_meta()
{
	local re
	if [[ $3 == --* ]]; then
		re="^ +(-[a-zA-Z], +)?${3//./\\.}="
	else
		re="^ +${3}, +--[a-z0-9.-]+="
	fi
	"$1" $2 --help 2>/dev/null | grep -E -- "$re" | head -1 | sed -E 's/^[^=]*=([^ ]+).*/\1/'
}

# _segscan_values META CUR: COMPREPLY for a value of that metavar (a|b|c: the words,
# FILE/PATH: files, DIR: directories); 1 when the metavar completes nothing.
_segscan_values()
{
	case $1 in
	*'|'*) COMPREPLY=($(compgen -W "${1//|/ }" -- "$2")) ;;
	*FILE* | *PATH*) COMPREPLY=($(compgen -f -- "$2")) ;;
	*DIR*) COMPREPLY=($(compgen -d -- "$2")) ;;
	*) return 1 ;;
	esac
	return 0
}

_segscan_commands()
{
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
}

_segscan()
{
	declare -gA _segscan_cache 2>/dev/null || declare -A _segscan_cache
	local bin=${COMP_WORDS[0]} line cur cmd spec opt val meta
	COMPREPLY=()
	# the token under the cursor, with "--opt=value" whole (COMP_WORDBREAKS splits at '=')
	line=${COMP_LINE:0:COMP_POINT}
	cur=${line##*[[:space:]]}
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "$(_segscan_commands "$bin") --help --version" -- "$cur"))
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*}
		val=${cur#*=}
		spec=$(_segscan_help "$bin" "$cmd" | grep -F -- "$opt=" | grep -E "^${opt//./\\.}=" | head -1)
		meta=${spec#*=}
		[[ -n $meta && $meta != "$spec" ]] || return 0
		_segscan_values "$meta" "$val" || return 0
		# with '=' a word break, bash replaces only the part after it
		if [[ $COMP_WORDBREAKS != *=* ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		fi
		return 0
	fi
	# "-f <TAB>", "--io <TAB>": the value of the option before the cursor, given as the
	# next word (getopt takes both forms)
	local prev=${line%"$cur"}
	prev=${prev%"${prev##*[![:space:]]}"}
	prev=${prev##*[[:space:]]}
	if [[ $prev == -?* && $prev != *=* ]]; then
		meta=$(_segscan_meta "$bin" "$cmd" "$prev")
		if [[ -n $meta ]]; then
			_segscan_values "$meta" "$cur" || COMPREPLY=()
			return 0
		fi
	fi
	if [[ $cur == -* ]]; then
		local words=() s
		while IFS= read -r s; do
			[[ -n $s ]] || continue
			if [[ $s == *=* ]]; then words+=("${s%%=*}="); else words+=("$s"); fi
		done < <(_segscan_help "$bin" "$cmd")
		[[ " ${words[*]} " == *" --help "* ]] || words+=(--help)
		COMPREPLY=($(compgen -W "${words[*]}" -- "$cur"))
		# an option that takes a value: no space after its '='
		if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
			compopt -o nospace 2>/dev/null
		fi
		return 0
	fi
	case $cmd in
	dump) COMPREPLY=($(compgen -f -- "$cur")) ;;
	*) COMPREPLY=($(compgen -d -- "$cur")) ;;
	esac
	return 0
}
complete -F _segscan segscan
