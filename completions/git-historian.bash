# bash completion for git-historian: `git historian <TAB>`.
# Generated from the command-line definition; do not edit.
# Source it after git's own completion (git-completion.bash), e.g. from ~/.bashrc.

_git_historian ()
{
	local subcommands="clean plan resume status abort install"
	local subcommand1="$(__git_find_on_cmdline "$subcommands")"
	if [ -z "$subcommand1" ]; then
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--quiet --color= --help --version"
			;;
		*)
			__gitcomp "$subcommands"
			;;
		esac
		return
	fi
	case "$subcommand1" in
	clean)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--base= --plan= --max-files= --max-lines= --json --verify-each= --stack --agent= --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	plan)
		case "$cur" in
		--format=*)
			__gitcomp "text html" "" "${cur##--format=}"
			return
			;;
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--base= --plan= --max-files= --max-lines= --json --explain --format= --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	resume)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--answer= --json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	status)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	abort)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	install)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--man --completions --prefix= --dry-run --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	esac
}

if declare -F __git_complete >/dev/null 2>&1; then
	__git_complete git-historian _git_historian
fi
