#!/usr/bin/env bash
# The shell completions complete scan's option values (issue 20 item 11): `-f <TAB>`,
# `--format <TAB>`, `--io <TAB>` (the value as the next word, which getopt accepts) and
# `--io=<TAB>`, in bash (the function driven as readline would call it) and in zsh (an
# interactive zsh in a pseudo-terminal, zsh/zpty, pressing TAB). Run by
# tests/test_completion.c.   usage: tests/completion.sh SEGSCAN
set -euo pipefail
bin=$1
fail() { echo "completion.sh: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${SEGSCAN_TEST_TMP:-/tmp}/completion.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/comp.bash" <<'EOS'
source completions/segscan.bash
COMP_LINE=$1; COMP_POINT=${#1}
read -ra COMP_WORDS <<<"$1"
[[ $1 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_segscan; printf '%s\n' "${COMPREPLY[@]}"
EOS
bash_offers() { bash "$tmp/comp.bash" "$1" | sort | paste -sd' '; }
check_bash() {
	local got
	got=$(bash_offers "$1")
	[ "$got" = "$2" ] || fail "bash: '$1<TAB>': got '$got', want '$2'"
}
check_bash "$bin scan -f " "json ndjson prom table"
check_bash "$bin scan -f nd" "ndjson"
check_bash "$bin scan --format " "json ndjson prom table"
check_bash "$bin scan --io " "mmap pread uring"
check_bash "$bin scan --io p" "pread"
check_bash "$bin scan --io=" "mmap pread uring"
check_bash "$bin scan -q --io-priority " "idle normal"
check_bash "$bin serve --io " "mmap pread uring"
# a flag takes no value: after it come log dirs, not values
got=$(bash_offers "$bin scan --verify ")
[[ " $got " == *" src "* ]] || fail "bash: 'scan --verify <TAB>' does not offer directories: '$got'"
# an option that takes free text offers nothing to pick from
[ -z "$(bash_offers "$bin scan --now ")" ] || fail "bash: 'scan --now <TAB>' offers something"
echo "completion.sh bash: ok"

command -v zsh >/dev/null || { echo "completion.sh zsh: skipped (no zsh)"; exit 0; }
# Press TAB in an interactive zsh and read what it lists, until the words appear or 60 s
# pass (zsh/zpty; no fixed sleep decides the verdict).
cat >"$tmp/comp.zsh" <<'EOS'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='> '; autoload -U compinit; compinit -u -D -d $TMPD/zcompdump; source $PWD/completions/_segscan; compdef _segscan segscan; zstyle ':completion:*' menu no; print -r -- RE''ADY"
out=''
start=$SECONDS
until [[ $out == *READY* ]] || (( SECONDS - start > 60 )); do zpty -r -t z line && out+=$line; done
[[ $out == *READY* ]] || { print -r -- "no prompt: $out"; exit 1; }
zpty -w -n z "$1"$'\t'
out=''
start=$SECONDS
want=(${=2})
done=0
until (( done )) || (( SECONDS - start > 60 )); do
  zpty -r -t z line && out+=$line
  done=1
  for w in $want; do [[ $out == *$w* ]] || done=0; done
done
zpty -d z
(( done )) || { print -r -- "zsh '$1<TAB>' listed: $(print -r -- $out | tr -d '\r' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g')"; exit 1; }
EOS
check_zsh() {
	TMPD=$tmp zsh -f "$tmp/comp.zsh" "$1" "$2" >"$tmp/zout" 2>&1 || fail "$(cat "$tmp/zout")"
}
check_zsh "$bin scan -f " "json ndjson prom table"
check_zsh "$bin scan --io " "mmap pread uring"
check_zsh "$bin scan --io=" "mmap pread uring"
echo "completion.sh zsh: ok"
