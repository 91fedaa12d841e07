# bash completion for git-ultraplan: `git ultraplan <TAB>`.
# Generated from the command-line definition; do not edit.
# Source it after git's own completion (git-completion.bash), e.g. from ~/.bashrc.

_git_ultraplan ()
{
	local subcommands="run check status log show result clean stats export report import sync work agents hook outcome install"
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
	run)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--fg --resume --dry-run --step= --again --session= --executor= --max-attempts= --allow-unverified --yes --tag= --skip-optional --answer= --jobs= --distribute= --json --summary-file= --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	check)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--json --executor= --allow-unverified --tag= --skip-optional --quiet --color= --help"
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
	log)
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
	show)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--step= --session= --attempt= --json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	result)
		local subcommands="check"
		local subcommand2="$(__git_find_on_cmdline "$subcommands")"
		if [ -z "$subcommand2" ]; then
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--quiet --color= --help"
				;;
			*)
				__gitcomp "$subcommands"
				;;
			esac
			return
		fi
		case "$subcommand2" in
		check)
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--plan= --json --quiet --color= --help"
				return
				;;
			esac
			compopt -o filenames +o nospace 2>/dev/null
			COMPREPLY=( $(compgen -f -- "$cur") )
			;;
		esac
		;;
	clean)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--force-unlock --json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	stats)
		case "$cur" in
		--by=*)
			__gitcomp "day plan phase agent run" "" "${cur##--by=}"
			return
			;;
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--since= --until= --by= --state-md= --json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	export)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--all --transcripts --output= --logs= --force --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	report)
		case "$cur" in
		--format=*)
			__gitcomp "html markdown" "" "${cur##--format=}"
			return
			;;
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--format= --output= --commit-url= --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	import)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--force --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	sync)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--dry-run --json --setup --unset --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	work)
		case "$cur" in
		--color=*)
			__gitcomp "always never auto" "" "${cur##--color=}"
			return
			;;
		-*)
			__gitcomp "--once --jobs= --plan= --executor= --max-attempts= --allow-unverified --yes --json --quiet --color= --help"
			return
			;;
		esac
		compopt -o filenames +o nospace 2>/dev/null
		COMPREPLY=( $(compgen -f -- "$cur") )
		;;
	agents)
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
	hook)
		local subcommands="pre-push install"
		local subcommand2="$(__git_find_on_cmdline "$subcommands")"
		if [ -z "$subcommand2" ]; then
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--quiet --color= --help"
				;;
			*)
				__gitcomp "$subcommands"
				;;
			esac
			return
		fi
		case "$subcommand2" in
		pre-push)
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--quiet --color= --help"
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
				__gitcomp "--force --uninstall --quiet --color= --help"
				return
				;;
			esac
			compopt -o filenames +o nospace 2>/dev/null
			COMPREPLY=( $(compgen -f -- "$cur") )
			;;
		esac
		;;
	outcome)
		local subcommands="log list show search stats extract"
		local subcommand2="$(__git_find_on_cmdline "$subcommands")"
		if [ -z "$subcommand2" ]; then
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--quiet --color= --help"
				;;
			*)
				__gitcomp "$subcommands"
				;;
			esac
			return
		fi
		case "$subcommand2" in
		log)
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--task= --agent= --success --failure --step= --result= --error= --time= --context= --no-extract --json --quiet --color= --help"
				return
				;;
			esac
			compopt -o filenames +o nospace 2>/dev/null
			COMPREPLY=( $(compgen -f -- "$cur") )
			;;
		list)
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--agent= --success --failure --since= --json --quiet --color= --help"
				return
				;;
			esac
			compopt -o filenames +o nospace 2>/dev/null
			COMPREPLY=( $(compgen -f -- "$cur") )
			;;
		show)
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
		search)
			case "$cur" in
			--color=*)
				__gitcomp "always never auto" "" "${cur##--color=}"
				return
				;;
			-*)
				__gitcomp "--agent= --success --failure --limit= --json --quiet --color= --help"
				return
				;;
			esac
			compopt -o filenames +o nospace 2>/dev/null
			COMPREPLY=( $(compgen -f -- "$cur") )
			;;
		stats)
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
		extract)
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
		esac
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
	__git_complete git-ultraplan _git_ultraplan
fi
