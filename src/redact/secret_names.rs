//! Which names say that their value is a secret: the words of a name
//! (`SECRET_KEY`, `clientSecret`, `x-api-key`) against the words that mean
//! secret, the qualifiers that make a `key` a secret one, and the last words
//! that describe a secret rather than hold it (`SSH_KEY_PATH`, `TOKEN_TTL`).

/// Words that make a name a secret's wherever they stand in it.
pub(super) const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pw",
    "smtppass",
    "passphrase",
    "secret",
    "secrets",
    "token",
    "credential",
    "credentials",
    "auth",
    "apikey",
    "privatekey",
    "secretkey",
    "accesskey",
    "accesstoken",
    "authtoken",
    "clientsecret",
];

/// Words that, right before `key`, make it a secret key in a lower-case name.
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "secret",
    "private",
    "access",
    "signing",
    "master",
    "encryption",
    "client",
    "service",
    "account",
    "app",
    "license",
    "consumer",
    "shared",
    "subscription",
    "admin",
    "deploy",
    "webhook",
    "ssh",
    "gpg",
];

/// Words that, right before `key`, say it is not a secret (a database or
/// data-structure key, a public key).
const PLAIN_KEYS: &[&str] = &[
    "public",
    "sort",
    "primary",
    "foreign",
    "cache",
    "partition",
    "hash",
    "map",
    "lookup",
    "group",
    "unique",
    "index",
    "idempotency",
    "row",
    "range",
    "shard",
    "composite",
    "cursor",
    "dedup",
    "routing",
];

/// Last words of names that describe a secret rather than hold it.
const DESCRIBING: &[&str] = &[
    "id",
    "count",
    "counts",
    "length",
    "len",
    "size",
    "type",
    "kind",
    "name",
    "names",
    "mode",
    "path",
    "file",
    "dir",
    "url",
    "uri",
    "endpoint",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "timeout",
    "lifetime",
    "max",
    "min",
    "limit",
    "stdin",
    "env",
    "var",
    "header",
    "prefix",
    "field",
    "column",
    "policy",
    "rotation",
    "version",
    "format",
    "enabled",
    "required",
    "regex",
    "pattern",
    "label",
    "hint",
    "prompt",
    "hash",
    "strength",
];

/// The name's words, lower-case: split at `_`, `-`, `.` and camelCase humps.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.') {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Whether `name` says that its value is a secret.
pub(super) fn names_secret(name: &str) -> bool {
    let words = words(name);
    let Some(last) = words.last() else { return false };
    if DESCRIBING.contains(&last.as_str()) {
        return false;
    }
    let upper = name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_ascii_lowercase());
    // `PWD` and `OLDPWD` are directories, whatever `pwd` means elsewhere.
    if words.len() == 1 && matches!(last.as_str(), "pwd" | "oldpwd") {
        return false;
    }
    // A personal access token: `GITHUB_PAT`, `AZURE_DEVOPS_EXT_PAT`; only
    // upper-case, as environment variables are (`pat` in code is a pattern).
    if upper && last == "pat" {
        return true;
    }
    words.iter().enumerate().any(|(i, w)| {
        let before = i.checked_sub(1).map(|b| words[b].as_str());
        // `PASSWORD1`, `TOKEN2`: a word numbered is the word.
        let w = w.trim_end_matches(|c: char| c.is_ascii_digit());
        match w {
            w if SECRET_WORDS.contains(&w) || runs_in_a_secret_word(w) => true,
            "pass" => words.len() > 1,
            "key" | "keys" => match before {
                Some(b) if PLAIN_KEYS.contains(&b) => false,
                Some(b) => upper || KEY_QUALIFIERS.contains(&b),
                None => false,
            },
            _ => false,
        }
    })
}

/// Whether `text` may hold a name [`names_secret`] accepts: every such
/// name holds one of these, in any case (each secret word, `pass`, `key`
/// and `pat` holds one). A quick look before the full one.
pub(super) fn may_name_secret(text: &str) -> bool {
    const HINTS: &[&[u8]] = &[b"pass", b"pw", b"secret", b"token", b"cred", b"auth", b"key", b"pat"];
    let bytes = text.as_bytes();
    HINTS
        .iter()
        .any(|hint| bytes.windows(hint.len()).any(|w| w.eq_ignore_ascii_case(hint)))
}

/// Words a name written without separators ends in (`PGPASSWORD`,
/// `ADMINPASSWORD`, `JWTSECRET`, `NPMTOKEN`) that still say it holds one;
/// `pwd` is left out (`OLDPWD` is a directory).
const SECRET_ENDINGS: &[&str] = &["password", "passwd", "passphrase", "secret", "token"];

/// Whether one word of a name is a secret word run together with another:
/// ending in one of [`SECRET_ENDINGS`], or opening with `password`.
fn runs_in_a_secret_word(word: &str) -> bool {
    SECRET_ENDINGS
        .iter()
        .any(|end| word.len() > end.len() && word.ends_with(end))
        || word.starts_with("password")
        || word.starts_with("passwd")
}

/// The kind a secret's name gives it.
pub(super) fn kind_of(name: &str) -> &'static str {
    let name = name.to_ascii_lowercase();
    if name.contains("pass") || name.contains("pwd") || name.ends_with("pw") {
        "password"
    } else if name.contains("secret") {
        "secret"
    } else if name.contains("token") || name.contains("auth") || name.contains("cred") || name.ends_with("pat") {
        "token"
    } else if name.contains("key") {
        "api-key"
    } else {
        "secret"
    }
}

/// The quick look ([`may_name_secret`]) must pass every word the full one
/// accepts: a word added to a list and missing from its hints would let
/// that secret through unread.
#[test]
fn every_secret_word_passes_the_quick_look() {
    let words = SECRET_WORDS
        .iter()
        .chain(SECRET_ENDINGS)
        .chain(&["pass", "key", "keys", "pat"]);
    for word in words {
        for name in [
            word.to_string(),
            word.to_uppercase(),
            format!("my_{word}"),
            format!("x{word}"),
        ] {
            assert!(may_name_secret(&name), "{name}");
        }
    }
}
