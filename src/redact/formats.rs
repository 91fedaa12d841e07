//! The published token formats: each a pattern whose match (or one group of
//! it) is the secret. Patterns are `regex` patterns, so matching is linear in
//! the text whatever it holds; `\b` here means an ASCII word boundary (a
//! Unicode one would stop the fast engine at the first non-ASCII byte).

use std::sync::LazyLock;

use regex::Regex;

pub(super) struct Format {
    pub kind: &'static str,
    pub pattern: Regex,
    /// The capture group that is the secret (0 for the whole match).
    pub group: usize,
}

fn format(kind: &'static str, pattern: &str, group: usize) -> Format {
    let pattern = pattern.replace(r"\b", r"(?-u:\b)");
    Format {
        kind,
        // The patterns are constants, each exercised by the corpus test.
        pattern: Regex::new(&pattern).unwrap_or_else(|e| panic!("redaction pattern for {kind}: {e}")),
        group,
    }
}

/// The value after a short password option: a shell word, maybe quoted,
/// that is no variable (`$PW`), option or redaction already.
const VALUE: &str = r#"(?:'\\''|["'])?)([^\s"'\\$\[-][^\s"'\\]*)"#;

/// In order: a format earlier in the list names the kind when two overlap.
pub(super) static FORMATS: LazyLock<Vec<Format>> = LazyLock::new(|| {
    vec![
        // A PEM block, also inside JSON (a GCP service-account key, where the
        // line breaks are `\n` escapes) and when the output was cut short.
        format(
            "private-key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)",
            0,
        ),
        // `http.extraHeader` (git config, `git -c`, `git config -l`): the
        // header's value, whatever its name (`PRIVATE-TOKEN`, `X-Api-Key`).
        format(
            "http-header",
            r#"(?i)(\bextraheader["']?[ \t]*[=:]?[ \t]*["']?[A-Za-z0-9_-]+[ \t]*:[ \t]*)([^\s\["'][^\n"']*)"#,
            2,
        ),
        // A credential helper given inline (`helper = !f() { echo
        // password=…; }; f`) is a shell snippet that prints credentials:
        // replaced whole.
        format(
            "credential-helper",
            r#"(?im)(\bhelper[ \t]*=[ \t]*"?)(![^\n]*?)("?[ \t]*$)"#,
            2,
        ),
        format("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", 0),
        format("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}", 0),
        format(
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
            0,
        ),
        format("gitlab-token", r"\bgl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}", 0),
        format(
            "slack-webhook",
            r"https://hooks\.slack\.com/(?:services|workflows)/([A-Za-z0-9/_-]+)",
            1,
        ),
        format("slack-token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", 0),
        format(
            "aws-access-key",
            r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
            0,
        ),
        format(
            "aws-secret-key",
            r#"(?i)(aws_?secret_?(?:access_?)?key["']?\s*[=:]\s*["']?)([A-Za-z0-9/+=]{40,})"#,
            2,
        ),
        format("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}", 0),
        format("stripe-key", r"\bwhsec_[A-Za-z0-9+/=]{24,}", 0),
        format("google-api-key", r"\bAIza[A-Za-z0-9_-]{35}", 0),
        format("google-oauth", r"\bGOCSPX-[A-Za-z0-9_-]{20,}", 0),
        format("google-oauth", r"\bya29\.[A-Za-z0-9_-]{20,}", 0),
        format("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", 0),
        format("twilio-key", r"\bSK[0-9a-fA-F]{32}\b", 0),
        format("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b", 0),
        format("mailgun-key", r"\bkey-[0-9a-zA-Z]{32}\b", 0),
        format("mailgun-key", r"\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b", 0),
        format("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", 0),
        format("new-relic-key", r"\bNR(?:AK|II)-[A-Za-z0-9]{27,}", 0),
        format("atlassian-token", r"\bAT(?:ATT|CTT)[A-Za-z0-9_=+/-]{40,}", 0),
        format("linear-key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}", 0),
        format("square-token", r"\bsq0(?:csp|atp|idp)-[A-Za-z0-9_-]{22,}", 0),
        format("age-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}", 0),
        format("heroku-key", r"\bHRKU-[A-Za-z0-9_-]{20,}", 0),
        format("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", 0),
        format("huggingface-token", r"\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b", 0),
        format("databricks-token", r"\bdapi[0-9a-f]{32}(?:-[0-9])?\b", 0),
        format("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", 0),
        format("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", 0),
        format("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}", 0),
        format(
            "discord-webhook",
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/([0-9]+/[A-Za-z0-9_-]+)",
            1,
        ),
        format(
            "discord-token",
            r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
            0,
        ),
        format("telegram-token", r"[0-9]{8,10}:AA[A-Za-z0-9_-]{33}", 0),
        format(
            "azure-key",
            r"(?i)\b((?:AccountKey|SharedAccessKey|SharedSecretValue)=)([^;\s]+)",
            2,
        ),
        format("azure-key", r"[?&]sig=([A-Za-z0-9%+/=]{20,})", 1),
        format(
            "azure-client-secret",
            r"\b[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
            0,
        ),
        format(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            0,
        ),
        format(
            "basic-auth",
            r#"(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?basic\s+)([A-Za-z0-9+/]{6,}={0,2})"#,
            2,
        ),
        format("bearer-token", r"(?i)(\bbearer\s+)([A-Za-z0-9._~+/=-]{16,})", 2),
        format(
            "token",
            r#"(?i)(\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:token|digest|negotiate|ntlm|apikey|sso-key)?\s*)([A-Za-z0-9._~+/=-]{12,})"#,
            2,
        ),
        // The user may be empty (`redis://:password@cache`).
        format(
            "url-credentials",
            r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s/@:]*:[^\s/@]+)@",
            2,
        ),
        // Passwords given on a command line: `curl -u user:password`,
        // `sshpass -p password`, `mysql -ppassword` (glued, as MySQL wants).
        format(
            "password",
            r#"(\bcurl\b[^\n]*?\s(?:-u\s*|--user[ =])["']?[^\s:"']+:)([^\s"']+)"#,
            2,
        ),
        // Quoted, or quoted inside a single-quoted word (`'\''`).
        format("password", r#"(\bsshpass\s+-p\s*(?:'\\''|["'])?)([^\s"'\\]+)"#, 2),
        format(
            "password",
            r#"(\bmysql(?:dump|admin|import|show)?\b[^\n]*?\s-p)([^\s"'-][^\s"']*)"#,
            2,
        ),
        // Short password options of tools that take them so: `docker login
        // -p`, `az login -p`, `redis-cli -a` (or `--pass`). A value that is
        // a variable (`$PW`) or already redacted is left.
        format(
            "password",
            &format!(r"(\b(?:docker|podman|nerdctl|buildah|skopeo)[ \t]+login\b[^\n]*?[ \t]-p[ \t]+{VALUE}"),
            2,
        ),
        format(
            "password",
            &format!(r"(\baz[ \t]+login\b[^\n]*?[ \t]-p[ \t]+{VALUE}"),
            2,
        ),
        format(
            "password",
            &format!(r"(\bredis-cli\b[^\n]*?[ \t](?:-a|--pass)[ \t]+{VALUE}"),
            2,
        ),
        // `htpasswd -b [-c…] file user password` (`-nb user password`): the
        // last word of the command.
        format(
            "password",
            r#"(\bhtpasswd[^\n;|&]*?[ \t]-[A-Za-z]*b[A-Za-z]*[ \t][^\n;|&]*?[ \t](?:'\\''|["'])?)([^\s"'\\$\[][^\s"'\\;|&]*)["']?[ \t]*(?:$|[;|&\n])"#,
            2,
        ),
        // OpenSSL's password sources: `-passout pass:…`, `-passin pass:…`.
        format(
            "password",
            r#"([ \t]-[A-Za-z]*pass[A-Za-z]*[ \t]+["']?pass:)([^\s"'\[][^\s"']*)"#,
            2,
        ),
        // keytool: `-storepass …`, `-keypass …`, `-srcstorepass …` (not the
        // `:env`/`:file` forms, which name where the password is).
        format(
            "password",
            &format!(r"([ \t]-(?:src|dest)?(?:store|key)pass[ \t]+{VALUE}"),
            2,
        ),
        // `.netrc`: `machine host login user password …`, on one line or
        // several.
        format(
            "password",
            r"(\b(?:machine[ \t]+\S+|default)(?:\s+(?:login|account|port|protocol)\s+\S+)*\s+password\s+)([^\s\[]\S*)",
            2,
        ),
        // `.pgpass`: `host:port:database:user:password`, one a line.
        format(
            "password",
            r"(?m)^([A-Za-z0-9_.*\[\]-][^:\s]*:(?:[0-9]{1,5}|\*):[^:\s]*:[^:\s]*:)([^\s\[][^\n]*?)[ \t\r]*$",
            2,
        ),
    ]
});
