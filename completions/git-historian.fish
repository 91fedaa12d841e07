complete -c git-historian -l color -d 'When to color the output: always, never or auto (the default, honouring color.ui, NO_COLOR and TERM=dumb)' -r -f -a "always\t''
never\t''
auto\t''"
complete -c git-historian -s q -l quiet -d 'Only print errors and the primary output (no progress, notes or hints)'
complete -c git-historian -s h -l help -d 'Print help (see more with \'--help\')'
complete -c git-historian -s V -l version -d 'Print version'
