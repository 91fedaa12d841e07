use super::redact;

/// The corpus shared with the integration tests (see its header).
pub const CORPUS: &str = include_str!("../../tests/fixtures/redact/corpus.txt");

/// A corpus sample: its kind (`keep` for a near-miss), its text with the
/// markers removed and the marked secrets.
struct Sample {
    kind: String,
    text: String,
    secrets: Vec<String>,
}

fn samples() -> Vec<Sample> {
    let mut out: Vec<Sample> = Vec::new();
    for line in CORPUS.lines() {
        if let Some(kind) = line.strip_prefix("== ") {
            out.push(Sample {
                kind: kind.trim().to_owned(),
                text: String::new(),
                secrets: Vec::new(),
            });
            continue;
        }
        let Some(sample) = out.last_mut() else { continue };
        if !sample.text.is_empty() || !sample.secrets.is_empty() {
            sample.text.push('\n');
        }
        let mut rest = line;
        while let Some(open) = rest.find('«') {
            let close = rest[open..]
                .find('»')
                .map(|c| open + c)
                .expect("a « is closed on its line");
            sample.text.push_str(&rest[..open]);
            let secret = &rest[open + '«'.len_utf8()..close];
            sample.text.push_str(secret);
            sample.secrets.push(secret.to_owned());
            rest = &rest[close + '»'.len_utf8()..];
        }
        sample.text.push_str(rest);
    }
    out
}

#[test]
fn the_corpus_has_every_published_format() {
    let kinds: std::collections::BTreeSet<String> = samples().into_iter().map(|s| s.kind).collect();
    for kind in [
        "stripe-key",
        "google-api-key",
        "npm-token",
        "basic-auth",
        "azure-key",
        "azure-client-secret",
        "private-key",
        "twilio-key",
        "sendgrid-key",
        "mailgun-key",
        "heroku-key",
        "digitalocean-token",
        "huggingface-token",
        "databricks-token",
        "shopify-token",
        "pypi-token",
        "docker-token",
        "discord-token",
        "discord-webhook",
        "telegram-token",
        "keep",
    ] {
        assert!(kinds.contains(kind), "no sample of {kind}");
    }
}

#[test]
fn every_secret_in_the_corpus_is_redacted() {
    let mut failures = Vec::new();
    let mut count = 0;
    for sample in samples().iter().filter(|s| s.kind != "keep") {
        count += 1;
        assert!(!sample.secrets.is_empty(), "a {} sample marks no secret", sample.kind);
        let out = redact(&sample.text);
        for secret in &sample.secrets {
            if out.contains(secret.as_str()) {
                failures.push(format!("{}: {secret:?} survived in {out:?}", sample.kind));
            }
        }
        if !out.contains(&format!("[REDACTED:{}]", sample.kind)) {
            failures.push(format!("{}: kind not shown in {out:?}", sample.kind));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count >= 75, "{count} samples");
}

#[test]
fn near_misses_survive_byte_for_byte() {
    let mut failures = Vec::new();
    for sample in samples().iter().filter(|s| s.kind == "keep") {
        let out = redact(&sample.text);
        if out != sample.text {
            failures.push(format!("{:?}\n  became {out:?}", sample.text));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn redaction_is_idempotent() {
    for sample in samples() {
        let once = redact(&sample.text).into_owned();
        assert_eq!(redact(&once), once, "{}", sample.kind);
    }
    let all: String = samples().into_iter().map(|s| s.text + "\n").collect();
    let once = redact(&all).into_owned();
    assert_eq!(redact(&once), once);
}

#[test]
fn context_stays_readable() {
    assert_eq!(
        redact("echo password=hunter2 ok"),
        "echo password=[REDACTED:password] ok"
    );
    assert_eq!(redact("password=hunter2 ok"), "password=[REDACTED:password]");
    // The quote closing a shell word holding the assignment stays.
    assert_eq!(
        redact("echo 'password=hunter2' done"),
        "echo 'password=[REDACTED:password]' done"
    );
    assert_eq!(
        redact("run \"API_KEY=abc123def456\"; next"),
        "run \"API_KEY=[REDACTED:api-key]\"; next"
    );
    assert_eq!(redact("PASSWORD=hunter2 ok"), "PASSWORD=[REDACTED:password]");
    assert_eq!(
        redact("git clone https://alice:pw@github.com/o/r"),
        "git clone https://[REDACTED:url-credentials]@github.com/o/r"
    );
    assert_eq!(
        redact("key:\n-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----\nafter"),
        "key:\n[REDACTED:private-key]\nafter"
    );
    assert_eq!(
        redact("https://x.example/?user=ci&password=pw&next=1"),
        "https://x.example/?user=ci&password=[REDACTED:password]&next=1"
    );
    assert_eq!(
        redact("login(user=\"ci\", password=\"a \\\" b\")"),
        "login(user=\"ci\", password=\"[REDACTED:password]\")"
    );
    assert_eq!(
        redact("run --api-key k3y-v4lue --verbose"),
        "run --api-key [REDACTED:api-key] --verbose"
    );
}

#[test]
fn an_environment_dump_loses_every_secret_and_keeps_the_rest() {
    let dump = "HOME=/home/ci\nSECRET_KEY=a b&c#d\"e\nPATH=/usr/bin\nDB_PASSWORD='x y'\nLANG=C\nGH_TOKEN=abc123\nMAX_TOKENS=10\n";
    assert_eq!(
        redact(dump),
        "HOME=/home/ci\nSECRET_KEY=[REDACTED:secret]\nPATH=/usr/bin\nDB_PASSWORD='[REDACTED:password]'\nLANG=C\nGH_TOKEN=[REDACTED:token]\nMAX_TOKENS=10\n"
    );
}

#[test]
fn a_secret_word_run_together_with_another_or_numbered_still_names_a_secret() {
    let dump = "PGPASSWORD=pg1\nADMINPASSWORD=ad2\nPASSWORD1=p3\nJWTSECRET=j4\nNPMTOKEN=n5\nOLDPWD=/home/ci\nPGPASSWORD_FILE=/run/pw\nTOKENIZER=bert\n";
    assert_eq!(
        redact(dump),
        "PGPASSWORD=[REDACTED:password]\nADMINPASSWORD=[REDACTED:password]\nPASSWORD1=[REDACTED:password]\nJWTSECRET=[REDACTED:secret]\nNPMTOKEN=[REDACTED:token]\nOLDPWD=/home/ci\nPGPASSWORD_FILE=/run/pw\nTOKENIZER=bert\n"
    );
    assert_eq!(redact("--mypassword hunter2 -v"), "--mypassword [REDACTED:password] -v");
}

#[test]
fn unterminated_private_key_is_redacted_to_the_end() {
    let out = redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n(truncated");
    assert_eq!(out, "[REDACTED:private-key]");
}

#[test]
fn json_and_yaml_strings_are_redacted_as_they_read() {
    let command = r#"sh run.sh 'client_secret = '\''abc123def456'\''' --x"#;
    let env = "A=1\nDB_PASSWORD=a \"b\" c\nB=2";
    let json = serde_json::to_string_pretty(&serde_json::json!({"executor": command, "env": env})).unwrap();
    let out = super::redact_file("progress.json", &json);
    assert!(!out.contains("abc123def456") && !out.contains(r#"a \"b"#), "{out}");
    assert!(out.contains("\\nB=2\",\n  \"executor\""), "the layout stays: {out}");
    let yaml = serde_yaml::to_string(&serde_json::json!({"evidence": "SECRET_KEY=x y z\nok ", "error": null})).unwrap();
    let out = super::redact_file("attempt-1.yaml", &yaml);
    assert!(!out.contains("x y z"), "{out}");
    assert!(out.contains("error: null"), "{out}");
    assert_eq!(
        super::redact_file("a.log", "password=pw"),
        "password=[REDACTED:password]"
    );
}

/// A member's value is judged after its text is redacted: a value that read
/// as code (`word[…]`) only until a token inside it was redacted must not
/// turn into a secret on the second pass.
#[test]
fn a_keyed_value_is_judged_as_it_reads_once_redacted() {
    let value = "sk_live_0AAApasswordpassword[REDACTED:x]password";
    let json = serde_json::to_string(&serde_json::json!({ "password": value })).unwrap();
    let once = super::redact_json(&json).into_owned();
    assert_eq!(once, r#"{"password":"[REDACTED:password]"}"#);
    assert_eq!(super::redact_json(&once), once);
    let yaml = serde_yaml::to_string(&serde_json::json!({ "password": value })).unwrap();
    let once = super::redact_yaml(&yaml).into_owned();
    assert_eq!(once, "password: '[REDACTED:password]'\n");
    assert_eq!(super::redact_yaml(&once), once);
}

#[test]
fn numbers_under_a_secrets_key_are_redacted_too() {
    assert_eq!(
        super::redact_json(r#"{"pin_password": 123456, "count": 3, "api_key": -1.5e3}"#),
        r#"{"pin_password": "[REDACTED:password]", "count": 3, "api_key": "[REDACTED:api-key]"}"#
    );
    let out = super::redact_yaml("a: 1\nDB_PASSWORD: 987654\nmax_tokens: 10\n");
    assert_eq!(out, "a: 1\nDB_PASSWORD: '[REDACTED:password]'\nmax_tokens: 10\n");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Any text: no panic, and redacting twice is redacting once (a stored
    /// value read back and redacted again hashes the same).
    #[test]
    fn any_text_is_redacted_idempotently(
        text in r#"([A-Za-z0-9_]{0,6}|password|SECRET_KEY|api_key|--token|[=:'"\\ \n&#$.,;{}\[\]()<>-]|é|Authorization: Basic |sk_live_|\[REDACTED:x\]){0,40}"#
    ) {
        let once = redact(&text).into_owned();
        let twice = redact(&once).into_owned();
        proptest::prop_assert_eq!(twice, once);
        let json = serde_json::to_string(&serde_json::json!({ "password": text, "log": text })).unwrap();
        let once = super::redact_json(&json).into_owned();
        let twice = super::redact_json(&once).into_owned();
        proptest::prop_assert_eq!(twice, once);
    }
}

#[test]
fn a_quoted_word_is_read_as_a_text_of_its_own() {
    // A whole `.pgpass` line, an htpasswd command and an OpenSSL password
    // source passed as arguments, then that command line quoted again (as a
    // lock shows the `--executor` it was given).
    let line = r#"sh agent.sh 'db.example.com:5432:app:alice:PgWord1' 'htpasswd -nb carol Htp4ssX' 'openssl rsa -passin '\''pass:Ossl9'\'' -out k.pem' 'x y'"#;
    let clean = redact(line);
    for secret in ["PgWord1", "Htp4ssX", "Ossl9"] {
        assert!(!clean.contains(secret), "{clean}");
    }
    assert!(
        clean.starts_with("sh agent.sh 'db.example.com:5432:app:alice:[REDACTED:password]'"),
        "{clean}"
    );
    let requoted = format!("git-ultraplan run --executor '{}'", line.replace('\'', r"'\''"));
    let clean = redact(&requoted);
    for secret in ["PgWord1", "Htp4ssX", "Ossl9"] {
        assert!(!clean.contains(secret), "{clean}");
    }
    assert_eq!(redact(&clean), clean);
    // Prose with apostrophes is left as it is.
    let prose = "it's the plan's second step, isn't it";
    assert!(matches!(redact(prose), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn a_large_text_redacted_again_gives_the_same_redaction_as_the_first_time() {
    // Past the size the last redaction is remembered from: the text, its
    // redaction and another text each redact as they would alone.
    let step = "### Step 1: deploy\n- **Verify:** `curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789' x`\n";
    let text = step.repeat(super::memory::REMEMBERED_FROM / step.len() + 1);
    let first = redact(&text).into_owned();
    assert!(!first.contains("ghp_abc"), "not redacted");
    assert_eq!(redact(&text), first);
    assert_eq!(redact(&first), first);
    let other = text.replace("deploy", "build");
    let clean = redact(&other);
    assert!(
        !clean.contains("ghp_abc") && clean.contains("build"),
        "{}",
        &clean[..200]
    );
    assert_eq!(redact(&text), first);
    // A large text redaction leaves alone is borrowed, the first time and
    // the next (the raw bytes are kept only of what redaction changed).
    let plain = "### Step 1: build\n- **Verify:** `cargo test`\n".repeat(super::memory::REMEMBERED_FROM / 40 + 1);
    assert!(matches!(redact(&plain), std::borrow::Cow::Borrowed(_)));
    assert!(matches!(redact(&plain), std::borrow::Cow::Borrowed(_)));
    assert!(matches!(redact(&first), std::borrow::Cow::Borrowed(_)));
}

/// The quick look before an assignment's full one passes over only names
/// the full one would refuse: every name that says secret holds a hint.
#[test]
fn every_name_that_says_secret_passes_the_quick_look() {
    use super::secret_names::{may_name_secret, names_secret, SECRET_WORDS};
    // The secret words themselves, the words `names_secret` reads beside
    // them (`pass`, `key` and what qualifies it, `pat`) and a few that are
    // no secret's.
    let others = [
        "pass", "key", "keys", "pat", "api", "private", "access", "ssh", "db", "user", "github", "id", "path",
    ];
    let words: Vec<&str> = SECRET_WORDS.iter().copied().chain(others).collect();
    let mut checked = 0;
    for a in &words {
        for b in &words {
            for sep in ["_", "-", ".", ""] {
                for name in [
                    format!("{a}{sep}{b}"),
                    format!("{}{sep}{}", a.to_uppercase(), b.to_uppercase()),
                    format!("{a}{}{}", &b[..1].to_uppercase(), &b[1..]),
                    format!("{a}{sep}{b}2"),
                ] {
                    if names_secret(&name) {
                        checked += 1;
                        assert!(may_name_secret(&name), "{name} names a secret but fails the quick look");
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
