# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_historian_global_optspecs
    string join \n q/quiet color= h/help V/version
end

function __fish_git_historian_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_historian_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_historian_using_subcommand
    set -l cmd (__fish_git_historian_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-historian -n "__fish_git_historian_needs_command" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_needs_command" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_needs_command" -s V -l version -d 'Print version'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "clean" -d 'Build a clean branch of logical commits beside the branch'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "plan" -d 'Print the commit plan `clean` would build, writing nothing'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "resume" -d 'Answer the pending QUESTION and continue'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "status" -d 'Show the pending sessions and their questions'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "abort" -d 'Drop the pending session and its partial clean branch'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "help" -d 'Show a command\'s manual page, or its full built-in help when no manual page is installed'
complete -c git-historian -n "__fish_git_historian_needs_command" -f -a "install" -d 'Install the man pages and shell completions this binary carries'
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l base -d 'Start the clean branch at the merge base of this revision and the branch (default: historian.base, else origin/HEAD, origin/main, origin/master, main or master; a local main ahead of origin/main whose unpushed commits the branch forked from is preferred to it, and the plan says so)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l plan -d 'Build exactly this commit plan (YAML or JSON, the shape `plan --json` prints) instead of planning' -r -F
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l max-files -d 'Ask before making a commit of more files than this (historian.maxFiles, 15)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l max-lines -d 'Ask before making a commit of more changed lines than this (historian.maxLines, 500)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l verify-each -d 'Check out each new commit in a temporary worktree and run this command there (sh -c); the first failing commit is an ERROR naming it, with the tail of the command\'s output. The worktree (<git-common-dir>/historian/verify-<pid>) goes on every way out; one a killed run left is removed, with a warning, by the next clean, resume or abort' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l agent -d 'Ask this coding agent for the grouping and messages (validated; the deterministic plan when its answer does not hold). Its program and extra arguments: ultraplan.<agent>.path and ultraplan.<agent>.args' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l json -d 'Print JSON instead of text'
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -l stack -d 'Also create one branch per clean commit, for stacked review'
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand clean" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l base -d 'Start the clean branch at the merge base of this revision and the branch (default: historian.base, else origin/HEAD, origin/main, origin/master, main or master; a local main ahead of origin/main whose unpushed commits the branch forked from is preferred to it, and the plan says so)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l plan -d 'Build exactly this commit plan (YAML or JSON, the shape `plan --json` prints) instead of planning' -r -F
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l max-files -d 'Ask before making a commit of more files than this (historian.maxFiles, 15)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l max-lines -d 'Ask before making a commit of more changed lines than this (historian.maxLines, 500)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l format -d 'text, or html: a page with the commits side by side (implies --explain)' -r -f -a "text\t'The plan as lines of text (the default)'
html\t'One self-contained page: the commits side by side, each hunk and why'"
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l json -d 'Print JSON instead of text'
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -l explain -d 'Also say why each item is in its commit'
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_using_subcommand resume" -l answer -d 'The option chosen: its number (`2`), or its text or a unique part of it (`keep`)' -r
complete -c git-historian -n "__fish_git_historian_using_subcommand resume" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand resume" -l json -d 'Print JSON instead of the RESULT block'
complete -c git-historian -n "__fish_git_historian_using_subcommand resume" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_using_subcommand status" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand status" -l json -d 'Print JSON instead of text'
complete -c git-historian -n "__fish_git_historian_using_subcommand status" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_using_subcommand abort" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand abort" -l json -d 'Print what was removed as JSON'
complete -c git-historian -n "__fish_git_historian_using_subcommand abort" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand abort" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_using_subcommand help" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand help" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -l prefix -d 'Install under DIR (default: the prefix the binary is installed under, `<prefix>/bin/git-<program>`; else ~/.local)' -r -f -a "(__fish_complete_directories)"
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -l man -d 'Install the man pages'
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -l completions -d 'Install the bash, zsh and fish completions'
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -l dry-run -d 'Print where each file would go, writing nothing'
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-historian -n "__fish_git_historian_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
