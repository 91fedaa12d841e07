# bash completion for git-historian: `git historian <TAB>`.
# Generated from the command-line definition; do not edit.
# Source it after git's own completion (git-completion.bash), e.g. from ~/.bashrc.

_git_historian ()
{
	case "$cur" in
	--color=*)
		__gitcomp "always never auto" "" "${cur##--color=}"
		return
		;;
	-*)
		__gitcomp "--quiet --color= --help --version"
		return
		;;
	esac
	compopt -o filenames +o nospace 2>/dev/null
	COMPREPLY=( $(compgen -f -- "$cur") )
}

if declare -F __git_complete >/dev/null 2>&1; then
	__git_complete git-historian _git_historian
fi
