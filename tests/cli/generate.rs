//! The generator of man pages and shell completions, from the clap
//! definitions that parse the command line, so they cannot drift. It lives
//! with the tests (the shipped binaries do not need it, so `clap_mangen` and
//! `clap_complete` are dev-dependencies); the files are committed under
//! `man/` and `completions/`, and `generated.rs` fails when they are stale
//! and rewrites them when `ULTRAPLAN_REGENERATE=1` is set.
//!
//! Bash completion is our own: git's completion calls `_git_<name>` for
//! `git <name> <TAB>`, so each program gets a `_git_ultraplan`-style function
//! built on git's helpers (`__gitcomp`, `__git_find_on_cmdline`). Zsh and fish
//! use clap_complete's output.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap_mangen::roff::{bold, roman, Roff};

use ultraplan::cli::config::{keys_for, Program};
use ultraplan::cli::Exit;

/// A generated file, relative to the repository root.
pub struct Generated {
    pub path: PathBuf,
    pub contents: Vec<u8>,
}

struct Program_ {
    command: clap::Command,
    name: &'static str,
    program: Program,
    exit_statuses: fn(&[&str]) -> Vec<(Exit, &'static str)>,
    other: &'static str,
}

fn programs() -> Vec<Program_> {
    vec![
        Program_ {
            command: ultraplan::ultraplan::command(),
            name: "git-ultraplan",
            program: Program::Ultraplan,
            exit_statuses: ultraplan::ultraplan::commands::exit_statuses,
            other: "git-historian",
        },
        Program_ {
            command: ultraplan::historian::command(),
            name: "git-historian",
            program: Program::Historian,
            exit_statuses: ultraplan::historian::commands::exit_statuses,
            other: "git-ultraplan",
        },
    ]
}

/// Every generated file of both programs.
pub fn all() -> Vec<Generated> {
    let mut out = Vec::new();
    for p in programs() {
        let mut command = p.command.clone();
        command.build();
        man_pages(&p, &command, &[], &mut out);
        out.push(Generated {
            path: PathBuf::from(format!("completions/{}.bash", p.name)),
            contents: bash(&command, p.name).into_bytes(),
        });
        for (shell, file) in [
            (clap_complete::Shell::Zsh, format!("completions/_{}", p.name)),
            (clap_complete::Shell::Fish, format!("completions/{}.fish", p.name)),
        ] {
            let mut buf = Vec::new();
            let mut c = p.command.clone();
            clap_complete::generate(shell, &mut c, p.name, &mut buf);
            out.push(Generated {
                path: PathBuf::from(file),
                contents: without_hidden(&String::from_utf8_lossy(&buf), &command).into_bytes(),
            });
        }
    }
    out
}

/// A zsh or fish completion script without the lines offering a hidden
/// option (`run --clean-at`, internal): clap_complete offers them all.
fn without_hidden(script: &str, command: &clap::Command) -> String {
    let mut hidden = Vec::new();
    hidden_longs(command, &mut hidden);
    script
        .lines()
        .filter(|line| {
            !hidden.iter().any(|name| {
                line.contains(&format!("'--{name}=["))
                    || line.contains(&format!("'--{name}["))
                    || line.contains(&format!(" -l {name} "))
            })
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The long names of every hidden option of `command` and its subcommands.
fn hidden_longs(command: &clap::Command, out: &mut Vec<String>) {
    for arg in command.get_arguments().filter(|a| a.is_hide_set()) {
        out.extend(arg.get_long().map(str::to_owned));
    }
    for sub in command.get_subcommands() {
        hidden_longs(sub, out);
    }
}

fn visible_subcommands(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

fn man_pages(p: &Program_, command: &clap::Command, path: &[&str], out: &mut Vec<Generated>) {
    let page = command.get_display_name().unwrap_or(command.get_name()).to_owned();
    let man = clap_mangen::Man::new(command.clone())
        .title(page.to_uppercase())
        .source(format!("{} {}", p.name, env!("CARGO_PKG_VERSION")))
        .manual("Git Manual");
    let mut buf = Vec::new();
    let rendered = (|| -> std::io::Result<()> {
        man.render_title(&mut buf)?;
        man.render_name_section(&mut buf)?;
        man.render_synopsis_section(&mut buf)?;
        man.render_description_section(&mut buf)?;
        if command.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut buf)?;
        }
        if visible_subcommands(command).next().is_some() {
            man.render_subcommands_section(&mut buf)?;
        }
        let mut roff = Roff::new();
        configuration(&mut roff, p, path);
        exit_status(&mut roff, &(p.exit_statuses)(path));
        see_also(&mut roff, p, command, &page, path);
        roff.control("SH", ["VERSION"]);
        roff.text([roman(format!("v{}", env!("CARGO_PKG_VERSION")))]);
        roff.to_writer(&mut buf)
    })();
    // Rendering into a Vec cannot fail.
    debug_assert!(rendered.is_ok());
    out.push(Generated {
        path: PathBuf::from(format!("man/{page}.1")),
        contents: buf,
    });
    for sub in visible_subcommands(command) {
        let mut sub_path = path.to_vec();
        sub_path.push(sub.get_name());
        man_pages(p, sub, &sub_path, out);
    }
}

fn configuration(roff: &mut Roff, p: &Program_, path: &[&str]) {
    roff.control("SH", ["CONFIGURATION"]);
    roff.text([roman(
        "Keys are read with git's precedence (system, global, repository, worktree, GIT_CONFIG_COUNT, then git -c); a command-line option beats its key.",
    )]);
    for key in keys_for(p.program, path.first().copied()) {
        roff.control("TP", []);
        roff.text([bold(key.name), roman(format!(" (default: {})", key.default))]);
        roff.text([roman(key.doc)]);
    }
}

fn exit_status(roff: &mut Roff, statuses: &[(Exit, &str)]) {
    roff.control("SH", ["EXIT STATUS"]);
    for (exit, meaning) in statuses {
        roff.control("TP", []);
        roff.text([bold(exit.code().to_string())]);
        roff.text([roman(*meaning)]);
    }
}

fn see_also(roff: &mut Roff, p: &Program_, command: &clap::Command, page: &str, path: &[&str]) {
    roff.control("SH", ["SEE ALSO"]);
    let mut refs: Vec<String> = Vec::new();
    if !path.is_empty() {
        refs.push(format!("{}(1)", p.name));
    }
    for sub in visible_subcommands(command) {
        refs.push(format!("{page}-{}(1)", sub.get_name()));
    }
    refs.push(format!("{}(1)", p.other));
    refs.extend(["git(1)", "git-notes(1)", "git-worktree(1)"].map(String::from));
    roff.text([roman(refs.join(", "))]);
}

/// A `_git_<name>` function for git's bash completion.
fn bash(command: &clap::Command, name: &str) -> String {
    let function = format!("_{}", name.replace('-', "_"));
    let mut out = String::new();
    let _ = writeln!(out, "# bash completion for {name}: `git {} <TAB>`.", &name[4..]);
    let _ = writeln!(out, "# Generated from the command-line definition; do not edit.");
    let _ = writeln!(
        out,
        "# Source it after git's own completion (git-completion.bash), e.g. from ~/.bashrc."
    );
    out.push('\n');
    let _ = writeln!(out, "{function} ()\n{{");
    bash_level(command, 1, &mut out);
    out.push_str("}\n\n");
    let _ = writeln!(
        out,
        "if declare -F __git_complete >/dev/null 2>&1; then\n\t__git_complete {name} {function}\nfi"
    );
    out
}

fn bash_options(command: &clap::Command) -> (String, Vec<(String, Vec<String>)>) {
    let mut words = Vec::new();
    let mut values = Vec::new();
    for arg in command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        let Some(long) = arg.get_long() else { continue };
        let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values())
            && !matches!(
                arg.get_action(),
                clap::ArgAction::SetTrue
                    | clap::ArgAction::SetFalse
                    | clap::ArgAction::Count
                    | clap::ArgAction::Help
                    | clap::ArgAction::HelpShort
                    | clap::ArgAction::HelpLong
                    | clap::ArgAction::Version
            );
        if takes_value {
            words.push(format!("--{long}="));
            let possible: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_owned())
                .collect();
            if !possible.is_empty() {
                values.push((long.to_owned(), possible));
            }
        } else {
            words.push(format!("--{long}"));
        }
    }
    (words.join(" "), values)
}

fn bash_level(command: &clap::Command, depth: usize, out: &mut String) {
    let tab = "\t".repeat(depth);
    let subs: Vec<&clap::Command> = visible_subcommands(command).collect();
    let (options, values) = bash_options(command);
    let value_cases = |out: &mut String, tab: &str| {
        for (long, possible) in &values {
            let _ = writeln!(
                out,
                "{tab}--{long}=*)\n{tab}\t__gitcomp \"{}\" \"\" \"${{cur##--{long}=}}\"\n{tab}\treturn\n{tab}\t;;",
                possible.join(" ")
            );
        }
    };
    if subs.is_empty() {
        let _ = writeln!(out, "{tab}case \"$cur\" in");
        value_cases(out, &tab);
        let _ = writeln!(
            out,
            "{tab}-*)\n{tab}\t__gitcomp \"{options}\"\n{tab}\treturn\n{tab}\t;;\n{tab}esac"
        );
        let _ = writeln!(out, "{tab}compopt -o filenames +o nospace 2>/dev/null");
        let _ = writeln!(out, "{tab}COMPREPLY=( $(compgen -f -- \"$cur\") )");
        return;
    }
    let names: Vec<&str> = subs.iter().map(|s| s.get_name()).collect();
    let var = format!("subcommand{depth}");
    let _ = writeln!(out, "{tab}local subcommands=\"{}\"", names.join(" "));
    let _ = writeln!(out, "{tab}local {var}=\"$(__git_find_on_cmdline \"$subcommands\")\"");
    let _ = writeln!(out, "{tab}if [ -z \"${var}\" ]; then");
    let _ = writeln!(out, "{tab}\tcase \"$cur\" in");
    value_cases(out, &format!("{tab}\t"));
    let _ = writeln!(out, "{tab}\t-*)\n{tab}\t\t__gitcomp \"{options}\"\n{tab}\t\t;;");
    let _ = writeln!(
        out,
        "{tab}\t*)\n{tab}\t\t__gitcomp \"$subcommands\"\n{tab}\t\t;;\n{tab}\tesac\n{tab}\treturn\n{tab}fi"
    );
    let _ = writeln!(out, "{tab}case \"${var}\" in");
    for sub in subs {
        let _ = writeln!(out, "{tab}{})", sub.get_name());
        bash_level(sub, depth + 1, out);
        let _ = writeln!(out, "{tab}\t;;");
    }
    let _ = writeln!(out, "{tab}esac");
}
