# bash completion for segscan (installed as share/bash-completion/completions/segscan).
#
# Nothing here lists an option: commands come from `segscan --help` and the options of a
# command from `segscan CMD --help`, which prints the option table of src/lib/options.c
# (plus the command's own options), so completion cannot drift from the binary it
# completes. A value is completed from the help's metavar: a|b|c lists the words,
# FILE/PATH files, DIR directories, after "--opt=" or as the next word ("-f json",
# "--decode auto"). tests/operate.sh checks every option of every command against this
# function; tests/test_dump.c checks dump's values.

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

# _segscan_spec_of BIN CMD OPT: "--name=METAVAR" of OPT ("-x" or "--name") if it takes a
# value, else nothing.
_segscan_spec_of()
{
	local o=$3
	if [[ $o == -[a-zA-Z] ]]; then
		"$1" $2 --help 2>/dev/null | grep -oE "^ +$o, +--[a-z0-9.-]+=[^ ]+" | sed -E 's/^ +-[a-zA-Z], +//' | head -1
	else
		_segscan_help "$1" "$2" | grep -E -- "^${o//./\\.}=" | head -1
	fi
}

# _segscan_values METAVAR VALUE: COMPREPLY for an option's value, from its metavar.
_segscan_values()
{
	case $1 in
	*'|'*) COMPREPLY=($(compgen -W "${1//|/ }" -- "$2")) ;;
	*FILE* | *PATH*) COMPREPLY=($(compgen -f -- "$2")) ;;
	*DIR*) COMPREPLY=($(compgen -d -- "$2")) ;;
	esac
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
		spec=$(_segscan_spec_of "$bin" "$cmd" "$opt")
		[[ -n $spec ]] || return 0
		_segscan_values "${spec#*=}" "$val"
		# with '=' a word break, bash replaces only the part after it
		if [[ $COMP_WORDBREAKS != *=* ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
		fi
		return 0
	fi
	# "-f VALUE", "--format VALUE": the word before the cursor's is an option that takes one
	local before=${line%"$cur"} prev
	before=${before%"${before##*[![:space:]]}"}
	prev=${before##*[[:space:]]}
	if [[ $cur != -* && $prev == -* && $prev != *=* ]]; then
		spec=$(_segscan_spec_of "$bin" "$cmd" "$prev")
		if [[ -n $spec ]]; then
			_segscan_values "${spec#*=}" "$cur"
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
	dump | merge) COMPREPLY=($(compgen -f -- "$cur")) ;;
	*) COMPREPLY=($(compgen -d -- "$cur")) ;;
	esac
	return 0
}
complete -F _segscan segscan
