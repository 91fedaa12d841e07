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
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -s V -l version -d 'Print version'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "run" -d 'Execute a plan step by step, verifying and committing each step'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "check" -d 'Parse, validate and preview a plan, writing nothing'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "status" -d 'Show the progress of one plan, or of every plan with state in this repository'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "log" -d 'List every step attempt of every run: status, duration and commit'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "show" -d 'Show the recorded result (YAML) of a step, or of a checkpoint commit'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "result" -d 'Work with executor result files'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "clean" -d 'Remove what killed runs left: stale locks, session worktrees and branches, the places of killed workers, and git\'s own lock files whose writer is gone'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "stats" -d 'Count, rate and time the recorded step executions'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "export" -d 'Write the recorded runs out, to move them to another repository'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "report" -d 'Show a plan\'s latest run as an HTML page or as Markdown'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "import" -d 'Recreate the run states and notes of an export in this repository'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "sync" -d 'Exchange results, run states and outcomes with a remote; nothing is overwritten'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "work" -d 'Run sessions of plans published on a remote by \'run --distribute\''
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "agents" -d 'List the coding-agent CLIs ultraplan runs as executors'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "hook" -d 'The pre-push gate over the results of pushed checkpoints'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "outcome" -d 'Record and search what executions did and the plans behind them'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "help" -d 'Show a command\'s manual page, or its full built-in help when no manual page is installed'
complete -c git-ultraplan -n "__fish_git_ultraplan_needs_command" -f -a "install" -d 'Install the man pages and shell completions this binary carries'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l step -d 'Run only step N' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l session -d 'Run only session N\'s steps, inside its scope fence, in this worktree (with --resume: continue session N\'s recorded run)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l executor -d 'The executor: shell, manual, an agent (claude, codex, gemini, opencode, cursor, aider, goose, qwen, amp) or a command line (default: ultraplan.executor, else shell)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l max-attempts -d 'Attempts per step (default: ultraplan.maxAttempts, else 3)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l tag -d 'Taskmaster: run the tasks of this tag (default: the tag `.taskmaster/state.json` names as current, else `master`)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l answer -d 'With --resume: the answer to the check or decision the run waits at (an option id or name of a decision, or any text, such as "approved"). For an end-of-phase review, `N=TEXT` answers check N and a bare answer every open check; repeat --answer to answer several' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -s j -l jobs -d 'Run at most N sessions of a wave at once (default: ultraplan.jobs, else all)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l distribute -d 'Run the sessions on other clones: publish each wave on the remote (default origin), wait for workers (\'git ultraplan work\') to run its sessions, then merge their branches here one at a time. With --jobs N, also run up to N sessions here' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l summary-file -d 'Also write the machine summary, as one line of JSON, to FILE (for headless runs whose report goes to a log a program reads later)' -r -F
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l fg -d 'Run every step here, one after another, ignoring the Execution Strategy'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l resume -d 'Continue the recorded run at its first step not passed or skipped (an escalated or waiting step is verified first)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l dry-run -d 'Validate and preview the plan, running nothing (the report of \'git ultraplan check\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l again -d 'Run every step again as a new run, though the recorded run of the plan completed (without it, running a completed plan says so and does nothing)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l allow-unverified -d 'Let a step without a Verify command (or with a prose one) pass on the executor\'s word'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -s y -l yes -d 'Do not ask: accept API billing when an API key that bills per token is set for the agent (ANTHROPIC_API_KEY, OPENAI_API_KEY, …)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l skip-optional -d 'Kiro: skip the optional tasks (`- [ ]*`); they are reported as skipped'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -l json -d 'Print only the machine summary (`{"ultraexecute_summary": …}`), as JSON, instead of the report'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l executor -d 'The executor the verdict assumes (default: ultraplan.executor, else shell): for the shell executor, a step whose Changes has no fenced sh, bash or diff block is a problem, as `run` would stop it blocked' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l tag -d 'Taskmaster: run the tasks of this tag (default: the tag `.taskmaster/state.json` names as current, else `master`)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l json -d 'Print the report as one JSON object instead'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l allow-unverified -d 'Check the plan as \'run --allow-unverified\' runs it: steps without a Verify command pass on the executor\'s word (a warning), rather than being a problem that makes run refuse the plan'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -l skip-optional -d 'Kiro: skip the optional tasks (`- [ ]*`); they are reported as skipped'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand status" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand status" -l json -d 'Print one JSON object instead'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand status" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand log" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand log" -l json -d 'Print one JSON object instead'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand log" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -l step -d 'The step whose result to show' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -l session -d 'Read session N\'s state instead of the plan\'s run' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -l attempt -d 'The attempt to show (default: the latest)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -l json -d 'Print the result as JSON instead of YAML'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and not __fish_seen_subcommand_from check" -f -a "check" -d 'Validate a result YAML file against the schema rules'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -l plan -d 'The plan the result reports on: its task names and file lists are checked' -r -F
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -l json -d 'Print the validation as one JSON object instead'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand result; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand clean" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand clean" -l force-unlock -d 'Remove locks even when their holder seems alive'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand clean" -l json -d 'Print what was removed as JSON'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand clean" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand clean" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -l since -d 'Only what was logged at or after DATE (2026-11-01, 2.weeks.ago, …)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -l until -d 'Only what was logged at or before DATE (2026-11-30, yesterday, …)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -l by -d 'The table to show besides the totals' -r -f -a "day\t''
plan\t''
phase\t''
agent\t'By executor: what each agent did and cost'
run\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -l state-md -d 'Rewrite the `## Performance Metrics` section of FILE (default STATE.md), leaving every other byte of it as it is' -r -F
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -l json -d 'Print the metrics as one JSON object'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -s o -l output -d 'Write the document to FILE instead of stdout' -r -F
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -l logs -d 'Write the result capture protocol\'s log layout into DIR instead of the document' -r -f -a "(__fish_complete_directories)"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -l all -d 'Every plan with state here'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -l transcripts -d 'Also the transcripts: executor and Verify output of every attempt'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -l force -d 'With --logs: write into a directory that is not empty (files of the same name are replaced)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand report" -l format -d 'html or markdown (default: html when FILE ends in .html, else markdown)' -r -f -a "html\t'One self-contained page: inline style and SVG, no script, nothing fetched'
markdown\t'GitHub-flavoured Markdown (a pull request, `$GITHUB_STEP_SUMMARY`)'"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand report" -s o -l output -d 'Write to FILE instead of stdout' -r -F
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand report" -l commit-url -d 'Link commits to this address followed by the commit id' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand report" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand report" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand import" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand import" -l force -d 'Replace states and notes that exist here with other content'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand import" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -l dry-run -d 'Report what would be fetched, merged and pushed; write nothing'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -l json -d 'Print the report as one JSON object'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -l setup -d 'Configure the remote\'s notes fetch refspec, notes.rewriteRef and notes.displayRef (idempotent) instead of syncing'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -l unset -d 'Remove what --setup configured'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand sync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -s j -l jobs -d 'Run up to N sessions at once (N workers)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l plan -d 'Only the plan with this name (its file name without extension)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l executor -d 'The executor: shell, manual, an agent (claude, codex, gemini, opencode, cursor, aider, goose, qwen, amp) or a command line (default: ultraplan.executor, else shell)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l max-attempts -d 'Attempts per step (default: ultraplan.maxAttempts, else 3)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l once -d 'Take one session (or none) and exit'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l allow-unverified -d 'Let a step without a Verify command (or with a prose one) pass on the executor\'s word'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -s y -l yes -d 'Do not ask: accept API billing when an API key that bills per token is set for the agent (ANTHROPIC_API_KEY, OPENAI_API_KEY, …)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -l json -d 'Print what was worked on as JSON'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand work" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand agents" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand agents" -l json -d 'Print the list as JSON'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand agents" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand agents" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and not __fish_seen_subcommand_from pre-push install" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and not __fish_seen_subcommand_from pre-push install" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and not __fish_seen_subcommand_from pre-push install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and not __fish_seen_subcommand_from pre-push install" -f -a "pre-push" -d 'Check the results of the commits a push adds (what a pre-push hook runs)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and not __fish_seen_subcommand_from pre-push install" -f -a "install" -d 'Install the pre-push gate into the hooks directory git uses'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from pre-push" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from pre-push" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from pre-push" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from install" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from install" -l force -d 'Replace a hook kept by an earlier install with the current pre-push hook'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from install" -l uninstall -d 'Remove the gate, restoring the hook it chained'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from install" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand hook; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -f -a "log" -d 'Record an outcome: from flags, or one JSON object on stdin'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -f -a "list" -d 'List recorded outcomes, newest first'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -f -a "show" -d 'Show one outcome and the plan extracted from it'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -f -a "search" -d 'Search outcomes and their plans, ranked by BM25'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -f -a "stats" -d 'Count outcomes, extracted plans and training examples, per agent'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and not __fish_seen_subcommand_from log list show search stats extract" -f -a "extract" -d 'Extract the plan of a stored outcome again, and store it'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l task -d 'What was being done' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l agent -d 'The agent that did it (a folder name: letters, digits, \'-\', \'_\', \'.\')' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l step -d 'A step or tool of the execution path, in order (repeatable)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l result -d 'The result, as a JSON object' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l error -d 'What went wrong' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l time -d 'How long it took, in seconds' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l context -d 'More about it, as a JSON object' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l success -d 'It succeeded'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l failure -d 'It failed'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l no-extract -d 'Do not extract a plan, even from a success (beats ultraplan.outcomes.autoExtract)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -l json -d 'Print the stored outcome (and plan) as JSON instead of its id'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -l agent -d 'Only this agent\'s outcomes' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -l since -d 'Only outcomes recorded at or after DATE (2026-11-01, 2.weeks.ago, …)' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -l success -d 'Only successes'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -l failure -d 'Only failures'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -l json -d 'Print JSON Lines, one outcome (with its plan) per line'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from show" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from show" -l json -d 'Print one JSON object {outcome, plan}'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -l agent -d 'Only this agent\'s outcomes' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -l limit -d 'At most this many results' -r
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -l success -d 'Only successes'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -l failure -d 'Only failures'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -l json -d 'Print JSON Lines, one hit (score, outcome, plan) per line'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from stats" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from stats" -l json -d 'Print the get_statistics() counters as one JSON object'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from stats" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from extract" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from extract" -l json -d 'Print the plan as JSON'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from extract" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand outcome; and __fish_seen_subcommand_from extract" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand help" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand help" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -l prefix -d 'Install under DIR (default: the prefix the binary is installed under, `<prefix>/bin/git-<program>`; else ~/.local)' -r -f -a "(__fish_complete_directories)"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -l man -d 'Install the man pages'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -l completions -d 'Install the bash, zsh and fish completions'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -l dry-run -d 'Print where each file would go, writing nothing'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -s q -l quiet -d 'Only print errors and the primary output: no progress, warnings, notes or hints (a run that completed prints nothing; warnings stay in the recorded results)'
complete -c git-ultraplan -n "__fish_git_ultraplan_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
