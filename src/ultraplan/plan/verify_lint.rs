//! What `check` warns about a plan's commands so that its verdict agrees
//! with what `run` will do (issues 43 and 45):
//!
//! * a Verify that cannot fail: `… || true`, `… || echo …`, `… || :`,
//!   `… || exit 0` pass whatever came before, and so does a one-line
//!   command ending `; true` (a block's last line does not: a block runs
//!   with `set -e`);
//! * a Verify that cannot run here: a shell syntax error (`sh -n`), paths
//!   from another machine (`cd /Users/…`, `C:/…`, `/home/<someone>/…` that
//!   does not exist here);
//! * a Verify that never ends: a development server or watcher (`npm run
//!   dev`, `uvicorn`, `vite`, …) started in the foreground with no probe —
//!   the verify timeout stops it and fails the step;
//! * a step the assumed executor cannot carry out: Changes in prose for
//!   the shell executor (run would stop it `blocked`) — a problem, since
//!   READY would promise a run that cannot happen.
//!
//! Each finding names the step's line. The syntax check runs `sh -n`
//! (reads, runs nothing); nothing else here runs a command.

use std::path::Path;

use super::{Diagnostic, Plan, Severity};

/// The findings for `plan` checked at `root`; `shell_executor` when the
/// verdict assumes the built-in shell executor.
pub fn lint(plan: &Plan, root: &Path, shell_executor: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for step in &plan.steps {
        if shell_executor && step.needs_more_than_shell() {
            out.push(Diagnostic {
                line: step.line,
                severity: Severity::Problem,
                message: format!(
                    "{}: its Changes has no fenced sh, bash or diff block, so the shell executor cannot carry it out (run would stop it blocked); add a fenced ```sh block, or check and run with --executor manual (you make the change) or an agent (--executor claude)",
                    step.label()
                ),
            });
        }
        if let Some(v) = &step.verify {
            for message in command_findings(&v.command, root) {
                out.push(Diagnostic {
                    line: step.line,
                    severity: Severity::Warning,
                    message: super::printable(&format!("{}: Verify {message}", step.label())),
                });
            }
        }
    }
    for check in &plan.verification {
        for message in command_findings(&check.command, root) {
            out.push(Diagnostic {
                line: check.line,
                severity: Severity::Warning,
                message: super::printable(&format!("Verification command {message}")),
            });
        }
    }
    out
}

/// What is wrong with one check command, each finding as the end of a
/// sentence ("Verify …").
pub fn command_findings(command: &str, root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let plain = outside_quotes(command);
    if let Some(masking) = masking(&plain) {
        out.push(format!(
            "'{}' always passes: '{masking}' turns a failure into success; drop it so the exit code can say no",
            one_line(command)
        ));
    } else if let Some(ending) = true_ending(&plain) {
        out.push(format!(
            "'{}' always passes: it ends with '{ending}', so the exit code says nothing; drop it",
            one_line(command)
        ));
    }
    for path in foreign_paths(&plain, root) {
        out.push(format!(
            "names '{path}', a path from another machine (not on this one); use a path relative to the repository"
        ));
    }
    if let Some(server) = server(&plain) {
        out.push(format!(
            "starts '{server}', which runs until stopped: Verify waits for it to end, and ultraplan.verifyTimeout stops it and fails the step; start it in the background and probe it (`{server} & sleep 5; curl -fsS http://localhost:3000/`), or check a build instead"
        ));
    }
    if let Some(error) = (!surely_parses(command))
        .then(|| crate::process::syntax_error(command))
        .flatten()
    {
        out.push(format!("is not valid shell: {error}"));
    }
    out
}

/// Whether every shell parses `command` without asking one: lines of plain
/// words (letters, digits and `_./=:,+@%^-*?[]`, no quote, expansion,
/// redirection, bracket or escape) joined by `|`, `||`, `&&`, `;` or `&`
/// standing as words of their own, no part empty but a last `;` or `&`,
/// and no part starting with a reserved word (`if`, `fi`, `done`, `!`, …).
/// Most Verify commands are such (`test -f a.txt`, `cargo test -q cli`,
/// `grep -c x f | wc -l`), and a shell spawned for each made `check` of a
/// 5 MB plan (23,134 steps) take two minutes. Anything else is left to the
/// shell ([`crate::process::syntax_error`]).
fn surely_parses(command: &str) -> bool {
    const RESERVED: [&str; 21] = [
        "!", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select",
        "then", "time", "until", "while", "{", "}", "[[",
    ];
    let plain = |w: &str| {
        w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./=:,+@%^-*?[]".contains(c))
            && w != "[["
            && w != "]]"
    };
    command.lines().all(|line| {
        let mut part: Vec<&str> = Vec::new();
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if matches!(w, "|" | "||" | "&&" | ";" | "&") {
                let last = words.peek().is_none() && matches!(w, ";" | "&");
                if part.is_empty() || (!last && words.peek().is_none()) {
                    return false;
                }
                part.clear();
            } else if plain(w) && !(part.is_empty() && RESERVED.contains(&w)) {
                part.push(w);
            } else {
                return false;
            }
        }
        // A line may be empty, but not a part after an operator.
        !part.is_empty() || line.split_whitespace().last().is_none_or(|w| matches!(w, ";" | "&"))
    })
}

/// A command as one line for a message.
fn one_line(command: &str) -> String {
    let first = command.trim().lines().next().unwrap_or("");
    if command.trim().lines().nth(1).is_some() {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}

/// `|| true`, `|| echo …`, `|| :`, `|| exit 0`, `|| printf …`: what after a
/// `||` makes any failure a success.
fn masking(plain: &str) -> Option<String> {
    let mut rest = plain;
    while let Some(at) = rest.find("||") {
        let after = rest[at + 2..].trim_start();
        let words: Vec<&str> = after.split_whitespace().take(2).collect();
        let word = |i: usize| words.get(i).map(|w| w.trim_end_matches([';', ')'])).unwrap_or("");
        let hit = match word(0) {
            "true" | ":" => Some(format!("|| {}", word(0))),
            "echo" | "printf" => Some(format!("|| {} …", word(0))),
            "exit" | "return" if word(1) == "0" || word(1).is_empty() => Some(format!("|| {} 0", word(0))),
            _ => None,
        };
        if hit.is_some() {
            return hit;
        }
        rest = &rest[at + 2..];
    }
    None
}

/// `; true`, `; :` or `; exit 0` at the very end.
fn true_ending(plain: &str) -> Option<&'static str> {
    if plain.trim().contains('\n') {
        return None; // a block runs with `set -e`: its end masks nothing
    }
    let last = plain.trim().lines().last()?.trim().trim_end_matches(';').trim_end();
    let (_, tail) = last.rsplit_once(';')?;
    match tail.trim() {
        "true" => Some("; true"),
        ":" => Some("; :"),
        "exit 0" => Some("; exit 0"),
        _ => None,
    }
}

/// Absolute paths that belong to another machine: a Windows drive
/// (`C:/…`, `C:\…`), or a home or volume folder (`/Users/…`, `/home/…`,
/// `/Volumes/…`) that does not exist here. At most three are named.
fn foreign_paths(plain: &str, root: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in plain.split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '=')) {
        let bytes = word.as_bytes();
        let drive = bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && matches!(bytes[2], b'/' | b'\\')
            && !word.contains("://");
        let home = ["/Users/", "/home/", "/Volumes/"]
            .iter()
            .any(|p| word.starts_with(p) && word.len() > p.len())
            && !Path::new(word).exists()
            && !Path::new(word).starts_with(root);
        if (drive || home) && !out.iter().any(|w| w == word) && out.len() < 3 {
            out.push(word.to_owned());
        }
    }
    out
}

/// Programs that serve or watch until stopped, as their first words.
const SERVERS: &[&[&str]] = &[
    &["npm", "run", "dev"],
    &["npm", "run", "start"],
    &["npm", "run", "serve"],
    &["npm", "start"],
    &["npm", "run", "watch"],
    &["yarn", "dev"],
    &["yarn", "start"],
    &["pnpm", "dev"],
    &["pnpm", "run", "dev"],
    &["pnpm", "start"],
    &["bun", "run", "dev"],
    &["bun", "dev"],
    &["npx", "next", "dev"],
    &["next", "dev"],
    &["npx", "vite"],
    &["vite"],
    &["uvicorn"],
    &["gunicorn"],
    &["flask", "run"],
    &["python", "-m", "http.server"],
    &["python3", "-m", "http.server"],
    &["python", "manage.py", "runserver"],
    &["python3", "manage.py", "runserver"],
    &["rails", "server"],
    &["rails", "s"],
    &["nodemon"],
    &["webpack", "serve"],
    &["cargo", "watch"],
    &["docker", "compose", "up"],
    &["docker-compose", "up"],
];

/// A server started in the foreground with nothing that bounds or probes
/// it: not sent to the background (`&`), not under `timeout`, and for
/// `docker compose up` not detached (`-d`).
fn server(plain: &str) -> Option<String> {
    if plain.contains("timeout ") {
        return None;
    }
    for part in plain.split(['\n', ';', '|']).flat_map(|p| p.split("&&")) {
        let words: Vec<&str> = part
            .split_whitespace()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .collect();
        for server in SERVERS {
            let starts = words.len() >= server.len() && words.iter().zip(server.iter()).all(|(a, b)| a == b);
            if !starts {
                continue;
            }
            let detached = words.iter().any(|w| matches!(*w, "-d" | "--detach"));
            let vite_once = server.last() == Some(&"vite") && words.get(server.len()).is_some_and(|w| *w == "build");
            let backgrounded = plain.contains(&format!("{} &", words.join(" "))) || part.trim_end().ends_with('&');
            if !detached && !vite_once && !backgrounded && !plain.contains(" & ") {
                return Some(server.join(" "));
            }
        }
    }
    None
}

/// The text with quoted parts blanked (their content is data, not shell).
fn outside_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                out.push(' ');
            }
            Some(_) => out.push(if c == '\n' { '\n' } else { ' ' }),
            None if matches!(c, '"' | '\'') => {
                quote = Some(c);
                out.push(' ');
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(cmd: &str) -> Vec<String> {
        command_findings(cmd, Path::new("/nonexistent-root"))
    }

    #[test]
    fn endings_that_make_a_verify_pass_are_named() {
        assert!(findings("npm test || echo 'tests failed'")[0].contains("'|| echo …'"));
        assert!(findings("cargo test || true")[0].contains("'|| true'"));
        assert!(findings("make check; true")[0].contains("ends with '; true'"));
        assert!(findings("test -f a || exit 0")[0].contains("'|| exit 0'"));
        assert!(findings("grep -q x f && echo ok").is_empty());
        assert!(findings("echo 'a || true'").is_empty(), "quoted text is data");
        assert!(findings("test -f a || test -f b").is_empty());
    }

    #[test]
    fn paths_of_another_machine_are_named() {
        assert!(findings("cd /Users/ada/project && npm test")[0].contains("'/Users/ada/project'"));
        assert!(findings("C:/tools/run.exe --check")[0].contains("'C:/tools/run.exe'"));
        assert!(findings("curl -fsS http://localhost:3000/").is_empty());
        assert!(findings("test -d /tmp").is_empty());
    }

    #[test]
    fn servers_without_a_probe_are_named() {
        assert!(findings("npm run dev")[0].contains("starts 'npm run dev'"));
        assert!(findings("uvicorn app:main --port 8000")[0].contains("'uvicorn'"));
        assert!(findings("npm run dev & sleep 5; curl -fsS localhost:3000").is_empty());
        assert!(findings("timeout 20 npm run dev").is_empty());
        assert!(findings("docker compose up -d").is_empty());
        assert!(findings("npx vite build").is_empty());
        assert!(findings("npm run build").is_empty());
    }

    #[test]
    fn plain_commands_need_no_shell_to_parse_and_the_rest_are_asked() {
        for sure in [
            "test -f a.txt",
            "cargo test -q cli",
            "grep -c x f | wc -l",
            "make && ./bin/run --check=1",
            "npm test ; true",
            "sleep 1 &",
            "[ -f a ] && test -d b/*",
            "true\nfalse\n",
        ] {
            assert!(surely_parses(sure), "{sure}");
            assert_eq!(crate::process::syntax_error(sure), None, "{sure}");
        }
        for asked in [
            "if [ -f a ]; then echo",
            "fi",
            "a |",
            "| a",
            "a && && b",
            "echo 'x'",
            "echo $(date)",
            "a > b",
            "[[ -f a ]]",
            "done",
            "a |\nb",
            "a ;; b",
            "{ a; }",
        ] {
            assert!(!surely_parses(asked), "{asked}");
        }
    }

    #[test]
    fn syntax_errors_are_named() {
        assert!(findings("if [ -f a ]; then echo")[0].contains("is not valid shell"));
    }
}
