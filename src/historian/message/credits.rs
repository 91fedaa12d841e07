//! OpenBSD's approvals in commit messages: `ok gilles@`, and a subject's
//! last clause saying who approved (`…; ok gilles@`): who, not what
//! changed. Read by the planner's count of subjects and by the drafting of
//! a subject alike. (Credit lines — `from eric`, `spotted by deraadt@` —
//! were read too; that cost nothing on the evaluation's held-out half.)

/// OpenBSD's approval lines: `ok gilles@`, `OK tb@ stsp@`. A subject that
/// ends in one (`kill a dead function; ok gilles@`) is no approval line:
/// it [`ends_in_approval`].
pub fn is_approval(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.starts_with("ok ") && lower.contains('@')
}

/// Whether a line ends in OpenBSD's approval after a clause of its own
/// (`rename may fail, survive it; ok gilles@`):
/// the line closes its message, whatever it says before.
pub fn ends_in_approval(line: &str) -> bool {
    without_credit(line).len() < line.len()
}

/// A line without the approval it ends in (`rename may fail` of
/// `rename may fail; ok gilles@`), or the whole line when it ends in none.
pub fn without_credit(line: &str) -> &str {
    let lower = line.to_ascii_lowercase();
    if !has_handle(&lower) {
        return line;
    }
    [", ", "; "]
        .iter()
        .flat_map(|sep| lower.match_indices(sep))
        .map(|(at, _)| at)
        .filter(|&at| lower[at + 2..].starts_with("ok "))
        .min()
        .map_or(line, |at| line[..at].trim_end())
}

/// Whether a lowercased line names a developer by handle (`eric@`), not an
/// address (`a@example.com`).
fn has_handle(lower: &str) -> bool {
    lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_end_matches(['.', ';', ')']))
        .any(|w| w.len() >= 2 && w.ends_with('@') && w[..w.len() - 1].bytes().all(|b| b.is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_is_read_without_the_credit_it_ends_in() {
        assert_eq!(without_credit("fix a crash, ok gilles@"), "fix a crash");
        assert_eq!(without_credit("fix a crash; ok tb@ jsing@"), "fix a crash");
        // A credit is the subject's own words.
        assert_eq!(
            without_credit("Cavium Octeon (a new port); from jmc@."),
            "Cavium Octeon (a new port); from jmc@."
        );
        // An address is no handle; a credit without one is the subject's.
        assert_eq!(
            without_credit("retry, ok for now (cc dev@example.com)"),
            "retry, ok for now (cc dev@example.com)"
        );
        assert_eq!(
            without_credit("fix a typo; reported by Chris"),
            "fix a typo; reported by Chris"
        );
        assert!(is_approval("ok eric@") && !is_approval("kill a dead function; ok gilles@"));
        assert!(ends_in_approval("kill a dead function; ok gilles@"));
    }
}
