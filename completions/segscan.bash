# bash completion for segscan (installed as share/bash-completion/completions/segscan).
#
# Nothing here lists an option: commands come from `segscan --help` and the options of a
# command from `segscan CMD --help`, which prints the option table of src/lib/options.c
# (plus the command's own options), so completion cannot drift from the binary it
# completes. A value is completed from the help's metavar: a|b|c lists the words,
# FILE/PATH files, DIR directories. tests/operate.sh checks every option of every
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
		case $meta in
		"" | "$spec") return 0 ;;
		*'|'*) COMPREPLY=($(compgen -W "${meta//|/ }" -- "$val")) ;;
		*FILE* | *PATH*) COMPREPLY=($(compgen -f -- "$val")) ;;
		*DIR*) COMPREPLY=($(compgen -d -- "$val")) ;;
		*) return 0 ;;
		esac
		# with '=' a word break, bash replaces only the part after it
		if [[ $COMP_WORDBREAKS != *=* ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		fi
		return 0
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
