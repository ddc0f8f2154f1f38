# Bash completion for dyliberator's commands: dyliberator, dyl, dyl-speedup, dyl-trace,
# dyl-flow, dyl-model.  Source it (`source doc/completion/dyliberator.bash`), or let
# `make install` put it where bash-completion finds it
# (PREFIX/share/bash-completion/completions/, one link per command).
#
# What it completes, all read from the commands themselves (nothing here to keep in step):
#   subcommands  the words after the command in its --help's usage lines (dyl-trace summary)
#   options      every --option its --help names
#   -g NAME      the micro-generators of `dyliberator --list-microgens`
#   --device     the devices of models/devices/*.csv beside the command (or installed)
#   the rest     files

# The folder holding the shipped models/ for command $1: the checkout or the install.
_dyl_data_dir()
{
	local bin d
	bin=$(type -P "$1") || return 1
	bin=$(readlink -f "$bin")
	for d in "${bin%/*}/.." "${bin%/*}/../lib/dyliberator"; do
		[[ -d $d/models ]] && { echo "$d"; return 0; }
	done
	return 1
}

# The words of $1's --help: its --options, or (with $2 = sub) its subcommands.  Cached.
declare -gA _dyl_help_cache
_dyl_help_words()
{
	local key="$1:$2" help
	if [[ -z ${_dyl_help_cache[$key]+set} ]]; then
		help=$("$1" --help 2>/dev/null)
		if [[ $2 == sub ]]; then
			_dyl_help_cache[$key]=$(sed -nE "s/^(usage:)? +${1##*/} \\[?([a-z][a-z-]*)\\]?( .*)?\$/\\2/p" \
				<<<"$help" | sort -u | tr '\n' ' ')
		else
			_dyl_help_cache[$key]=$(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u | tr '\n' ' ')
		fi
	fi
	echo "${_dyl_help_cache[$key]}"
}

_dyl_complete()
{
	local cmd=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} data names subs i
	COMPREPLY=()
	case $prev in
	-g)
		names=$(dyliberator --list-microgens 2>/dev/null | sed -nE 's/^([^ ]+).*/\1/p')
		COMPREPLY=($(compgen -W "$names" -- "$cur"))
		return;;
	--device)
		if data=$(_dyl_data_dir "$cmd"); then
			names=$(cd "$data/models/devices" 2>/dev/null && ls *.csv 2>/dev/null | sed 's/\.csv$//')
		fi
		COMPREPLY=($(compgen -W "$names" -- "$cur") $(compgen -f -- "$cur"))
		return;;
	-o|--output|--header|--defs|--lib|--app|--svg|--plot|--html|-I|-M)
		COMPREPLY=($(compgen -f -- "$cur"))
		return;;
	esac
	# a subcommand first (dyl record, dyl-trace summary): complete it, then its own options
	subs=$(_dyl_help_words "$cmd" sub)
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ " $subs " == *" ${COMP_WORDS[i]} "* ]]; then
			[[ $cmd == dyl && -n $(type -P "dyl-${COMP_WORDS[i]}") ]] && cmd=dyl-${COMP_WORDS[i]}
			subs=
			break
		fi
	done
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_dyl_help_words "$cmd" opt)" -- "$cur"))
	elif ((COMP_CWORD == 1)) && [[ -n $subs ]]; then
		COMPREPLY=($(compgen -W "$subs" -- "$cur") $(compgen -f -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}

complete -o filenames -F _dyl_complete dyliberator dyl dyl-speedup dyl-trace dyl-flow dyl-model
