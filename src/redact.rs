//! Redaction: the one function everything passes through before it is written
//! into git (notes, run state, transcripts, evidence). Secrets are replaced by
//! `[REDACTED:<kind>]`; the key of an assignment and the host of a URL stay
//! readable so the text still makes sense.
//!
//! Recognised: private key blocks, AWS access keys and secret keys, GitHub and
//! GitLab tokens, Anthropic and OpenAI keys, Slack tokens and webhooks, JWTs,
//! `Authorization: Bearer` values, URLs with credentials, and assignments to
//! names like password, secret, token or api_key.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

struct Rule {
    kind: &'static str,
    pattern: Regex,
    /// The capture group to replace (0 for the whole match).
    group: usize,
}

fn rule(kind: &'static str, pattern: &str, group: usize) -> Rule {
    Rule {
        kind,
        // The patterns are constants, checked by the tests below.
        pattern: Regex::new(pattern).unwrap_or_else(|e| panic!("redaction pattern for {kind}: {e}")),
        group,
    }
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            "private-key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
            0,
        ),
        rule("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", 0),
        rule("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
        rule(
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
            0,
        ),
        rule("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}", 0),
        rule(
            "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]+",
            0,
        ),
        rule("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", 0),
        rule(
            "aws-access-key",
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
            0,
        ),
        rule(
            "aws-secret-key",
            r#"(?i)(aws_?secret_?(?:access_?)?key\s*[=:]\s*["']?)([A-Za-z0-9/+=]{40})"#,
            2,
        ),
        rule(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            0,
        ),
        rule("bearer-token", r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]{16,})", 2),
        rule(
            "url-credentials",
            r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/@:]+:[^\s/@]+)@",
            2,
        ),
        rule(
            "secret",
            r#"(?i)\b((?:[a-z0-9]+[_-])?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth)\b["']?\s*[=:]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&]+)"#,
            2,
        ),
    ]
});

/// Values of `key = value` that are not secrets: placeholders and nulls.
fn is_placeholder(value: &str) -> bool {
    let v = value.trim_matches(['"', '\'']);
    v.is_empty()
        || v.starts_with("[REDACTED:")
        || v.starts_with('$')
        || v.starts_with('<')
        || v.chars().all(|c| c == '*' || c == 'x' || c == 'X')
        || matches!(
            v.to_ascii_lowercase().as_str(),
            "null" | "none" | "nil" | "true" | "false" | "~" | "redacted" | "changeme" | "example"
        )
}

/// Returns `text` with every recognised secret replaced by `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut current = Cow::Borrowed(text);
    for rule in RULES.iter() {
        if !rule.pattern.is_match(&current) {
            continue;
        }
        let replaced = rule.pattern.replace_all(&current, |caps: &Captures<'_>| {
            let whole = caps.get(0).map_or("", |m| m.as_str());
            let Some(target) = caps.get(rule.group) else {
                return whole.to_owned();
            };
            if rule.group != 0 && rule.kind == "secret" && is_placeholder(target.as_str()) {
                return whole.to_owned();
            }
            let kind = if rule.kind == "secret" {
                secret_kind(whole)
            } else {
                rule.kind
            };
            let start = target.start() - caps.get(0).map_or(0, |m| m.start());
            let end = start + target.as_str().len();
            format!("{}[REDACTED:{kind}]{}", &whole[..start], &whole[end..])
        });
        if let Cow::Owned(s) = replaced {
            current = Cow::Owned(s);
        }
    }
    current
}

/// The kind named by an assignment's key: password, token, api-key or secret.
fn secret_kind(assignment: &str) -> &'static str {
    let key = assignment.to_ascii_lowercase();
    if key.contains("pass") || key.contains("pwd") {
        "password"
    } else if key.contains("token") || key.contains("auth") {
        "token"
    } else if key.contains("key") {
        "api-key"
    } else {
        "secret"
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    /// Real formats (made-up values): each must disappear, its kind must show.
    const CORPUS: &[(&str, &str, &str)] = &[
        ("aws-access-key", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        ("aws-access-key", "temporary ASIAY34FZKBOKMUTVV7A in use", "ASIAY34FZKBOKMUTVV7A"),
        (
            "aws-secret-key",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("github-token", "token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB", "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"),
        (
            "github-token",
            "GITHUB_TOKEN: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN",
        ),
        ("github-token", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
        ("gitlab-token", "using glpat-xxxxxxxxxxxxxxxxxxxx1234 now", "glpat-xxxxxxxxxxxxxxxxxxxx1234"),
        (
            "anthropic-key",
            "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrStUvWxYz-AA",
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        ),
        (
            "openai-key",
            "client = OpenAI(api_key_value) # sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH",
            "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH",
        ),
        ("openai-key", "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL", "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL"),
        ("slack-token", "SLACK_BOT_TOKEN xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
        (
            "slack-webhook",
            "curl https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        ),
        (
            "jwt",
            "cookie: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        ),
        (
            "private-key",
            "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7V8QxJ1+abc\nq2Zy/xyz==\n-----END RSA PRIVATE KEY-----\nafter",
            "MIIEpAIBAAKCAQEA7V8QxJ1",
        ),
        (
            "private-key",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
            "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        ),
        ("bearer-token", "Authorization: Bearer abcDEF123456ghiJKL789mnoPQR", "abcDEF123456ghiJKL789mnoPQR"),
        ("url-credentials", "git clone https://alice:s3cr3tP4ss@github.com/org/repo.git", "alice:s3cr3tP4ss"),
        ("url-credentials", "DATABASE_URL=postgres://app:hunter2@db.internal:5432/app", "app:hunter2"),
        ("password", "password=hunter2", "hunter2"),
        ("password", "DB_PASSWORD: \"correct horse battery staple\"", "correct horse battery staple"),
        ("secret", "client_secret = 'abc123def456'", "abc123def456"),
        ("token", "--token=tok_live_51H8abc", "tok_live_51H8abc"),
        ("api-key", "API_KEY=1f2e3d4c5b6a", "1f2e3d4c5b6a"),
    ];

    #[test]
    fn every_format_in_the_corpus_is_redacted() {
        for (kind, text, secret) in CORPUS {
            let out = redact(text);
            assert!(!out.contains(secret), "{kind}: {secret} survived in {out:?}");
            assert!(out.contains(&format!("[REDACTED:{kind}]")), "{kind}: {out:?}");
        }
    }

    #[test]
    fn context_stays_readable() {
        assert_eq!(redact("password=hunter2 ok"), "password=[REDACTED:password] ok");
        assert_eq!(
            redact("git clone https://alice:pw@github.com/o/r"),
            "git clone https://[REDACTED:url-credentials]@github.com/o/r"
        );
        assert_eq!(
            redact("key:\n-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----\nafter"),
            "key:\n[REDACTED:private-key]\nafter"
        );
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "tokens: 1234",
            "metadata:\n  tokens: {input: 10, output: 5}",
            "password: null",
            "token = $GITHUB_TOKEN",
            "secret: <your secret here>",
            "test result: ok. 3 passed",
            "https://github.com/org/repo.git",
            "the skeleton of the task-runner",
            "commit 4e04c4e1a2b3c4d5e6f708192a3b4c5d6e7f8091",
            "no AKIA here: AKIA123",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
    }

    #[test]
    fn unterminated_private_key_is_redacted_to_the_end() {
        let out = redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n(truncated");
        assert_eq!(out, "[REDACTED:private-key]");
    }
}
