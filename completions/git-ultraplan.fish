# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_git_ultraplan_global_optspecs
    string join \n q/quiet color= h/help V/version
end

function __fish_git_ultraplan_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_git_ultraplan_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_git_ultraplan_using_subcommand
    set -l cmd (__fish_git_ultraplan_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -s q -l quiet -d 'Only print errors and the primary output (no progress, notes or hints)'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -s V -l version -d 'Print version'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "check" -d 'Parse, validate and preview a plan, writing nothing'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "result" -d 'Work with executor result files'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l json -d 'Print the report as one JSON object instead'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -s q -l quiet -d 'Only print errors and the primary output (no progress, notes or hints)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -s q -l quiet -d 'Only print errors and the primary output (no progress, notes or hints)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -f -a "check" -d 'Validate a result YAML file against the schema rules'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -l plan -d 'The plan the result reports on: its task names and file lists are checked' -r -F
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -l json -d 'Print the validation as one JSON object instead'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Only print errors and the primary output (no progress, notes or hints)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
