//! The HTML pages both programs write. `git ultraplan report`: a parallel
//! run with a failure and a retry shown as Markdown and as an HTML page (its
//! structure snapshotted, its picture rendered by headless Chromium), and
//! the refusals. `git historian plan --format html`: the plan side by side
//! with its hunks and reasons, rendered by the same browser.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::harness::plans::StepSpec;
use crate::harness::sessions::{plan, setup, Sess};
use crate::harness::support::*;
use crate::harness::transcript::Transcript;

/// Three sessions: Config passes, Server's Verify fails once (printing a
/// secret) and passes on the retry, Docs (wave 2) fails every attempt.
fn failing_and_retried(marker: &Path) -> String {
    let flaky = format!(
        "sh -c 'if test -f {m}; then echo ready; else touch {m}; echo \"not ready token=sk-abcdefghijklmnopqrstuvwx\"; exit 1; fi'",
        m = marker.display()
    );
    let body = plan(
        &[
            StepSpec::new(
                1,
                "`config.txt`",
                "echo port=8080 > config.txt",
                "grep -q port config.txt",
            ),
            StepSpec::new(2, "`server.txt`", "echo serve > server.txt", &flaky).policy("retry"),
            StepSpec::new(3, "`docs.txt`", "echo docs > docs.txt", "grep -q nothing docs.txt"),
        ],
        &[
            Sess {
                n: 1,
                title: "Config",
                wave: 1,
                deps: "none",
                touch: "`config.txt`",
            },
            Sess {
                n: 2,
                title: "Server <b>",
                wave: 1,
                deps: "none",
                touch: "`server.txt`",
            },
            Sess {
                n: 3,
                title: "Docs",
                wave: 2,
                deps: "Sessions 1, 2",
                touch: "`docs.txt`",
            },
        ],
        "",
    );
    // Leaked into the stored plan text is the flaky command; the page must
    // show it redacted and escaped.
    body.replace("# Sessions", "# Ship the <widget> & docs")
}

/// A repository with the run done (exit 1: step 3 failed).
fn ran(env: &TestEnv) -> PathBuf {
    let repo = setup(env, &failing_and_retried(&env.root().join("ready-marker")));
    env.git(&repo, &["add", "plan.md"]);
    env.git(&repo, &["commit", "-q", "-m", "plan"]);
    let out = env.run(&repo, &["ultraplan", "run", "-q", "plan.md"]);
    assert_eq!(out.code, 1, "{out}");
    repo
}

static STYLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?s)<style>.*?</style>").expect("style"));
static GEOMETRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\b(x|y|x1|x2|y1|y2|width|height|viewBox|d)="[^"]*""#).expect("geometry"));
/// A bar's label is drawn only where the bar is wide enough: that follows
/// the attempts' durations.
static LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"<text class="label"[^>]*>[^<]*</text>"#).expect("label"));

/// The page's structure: its elements and texts, without the style sheet,
/// the timeline's geometry (it follows measured durations) or the labels
/// that fit only in wide bars.
fn structure(html: &str) -> String {
    let text = STYLE.replace(html, "<style>…</style>");
    let text = GEOMETRY.replace_all(&text, "$1=\"#\"");
    LABEL.replace_all(&text, "").into_owned()
}

#[test]
fn a_parallel_run_with_a_failure_and_a_retry_as_markdown_and_html() {
    let env = TestEnv::new();
    let repo = ran(&env);
    let mut t = Transcript::new(&env);
    t.note("Session 2's step failed once and passed on its retry; session 3 (wave 2) failed.");
    let md = t.run(&repo, &["ultraplan", "report", "plan.md"]);
    assert_eq!(md.code, 0, "{md}");
    assert!(!md.stdout.contains("sk-abcdefghij"), "the secret is redacted");
    assert!(
        md.stdout
            .contains("| 2 | 2 | Step 2 | ❌ ✅ | ✅ passed after 1 retry |"),
        "{md}"
    );
    t.note("The page: its structure, with the timeline's geometry left out.");
    let page = env.root().join("report.html");
    let out = t.run(&repo, &["ultraplan", "report", "plan.md", "-o", page.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{out}");
    let html = read(&page);
    assert!(!html.contains("sk-abcdefghij"), "the secret is redacted");
    assert!(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"));
    assert!(
        html.contains("Ship the &lt;widget&gt; &amp; docs"),
        "titles are escaped"
    );
    assert_eq!(html.matches("<rect class=\"bar").count(), 6, "one bar per attempt");
    assert_eq!(html.matches("bar fail retry").count(), 2, "step 3's two retries");
    assert_eq!(html.matches("<path class=\"merge\"").count(), 2, "two merges marked");
    assert_eq!(html.matches("<path class=\"unmerged\"").count(), 1);
    let structured = page.with_extension("structure.html");
    std::fs::write(&structured, structure(&html)).unwrap();
    t.file(&structured);
    t.note("Nothing was written to the repository.");
    let _ = t.run(&repo, &["status", "--porcelain"]);
    assert_transcript!(t, "a_parallel_run_with_a_failure_and_a_retry");
    env.assert_fsck(&repo);
}

#[test]
fn the_format_follows_the_file_name_unless_asked() {
    let env = TestEnv::new();
    let repo = ran(&env);
    let md = env.root().join("summary.md");
    let _ = env
        .run(&repo, &["ultraplan", "report", "-q", "-o", md.to_str().unwrap()])
        .expect_code(0);
    assert!(read(&md).starts_with("## Ship the &lt;widget&gt; &amp; docs — ❌ failed\n"));
    let html = env.root().join("page.HTM");
    let _ = env
        .run(&repo, &["ultraplan", "report", "-q", "-o", html.to_str().unwrap()])
        .expect_code(0);
    assert!(read(&html).starts_with("<!DOCTYPE html>"));
    let out = env
        .run(&repo, &["ultraplan", "report", "--format", "html", "plan.md"])
        .expect_code(0);
    assert!(out.stdout.starts_with("<!DOCTYPE html>"));
    // A remote on a known host links commits; credentials stay out.
    env.git(
        &repo,
        &["remote", "add", "origin", "https://me:hunter2@github.com/team/app.git"],
    );
    let out = env.run(&repo, &["ultraplan", "report", "plan.md"]).expect_code(0);
    assert!(out.stdout.contains("](<https://github.com/team/app/commit/"), "{out}");
    assert!(!out.stdout.contains("hunter2"));
}

#[test]
fn no_run_to_report_is_fatal_and_writes_nothing() {
    let env = TestEnv::new();
    let repo = env.repo("repo");
    let page = env.root().join("r.html");
    let mut t = Transcript::new(&env);
    let _ = t.run(&repo, &["ultraplan", "report"]);
    let _ = t.run(&repo, &["ultraplan", "report", "nope.md", "-o", page.to_str().unwrap()]);
    let _ = t.run(&repo, &["ultraplan", "report", "--format", "pdf"]);
    assert_transcript!(t, "no_run_to_report");
    assert!(!page.exists());
}

/// A browser that can render headless, if the machine has one.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .find_map(|name| which::which(name).ok())
}

/// Runs the browser on `page` with its own profile; its stderr (where
/// console messages go with `--enable-logging=stderr`) and stdout.
fn browse(env: &TestEnv, browser: &Path, page: &Path, what: &[&str]) -> Output {
    let profile = env.root().join("browser-profile");
    let mut cmd = env.command(browser, env.root());
    cmd.args([
        "--headless",
        // Root in a container has no user namespace to sandbox with.
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1280,1600",
        &format!("--user-data-dir={}", profile.display()),
    ]);
    cmd.args(what);
    cmd.arg(format!("file://{}", page.display()));
    capture(cmd)
}

fn console_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// The width and height a PNG's header declares.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let n = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some((n(16), n(20)))
}

#[test]
fn the_page_renders_in_a_real_browser() {
    let test = "the_page_renders_in_a_real_browser";
    let Some(browser) = chromium() else {
        skip(test, "no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let env = TestEnv::new();
    // First, that this browser says when a page misbehaves: a page with a
    // blocked script and a blocked image must log console messages.
    let bad = env.root().join("bad.html");
    write(
        &bad,
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\"></head><body><img src=\"https://example.invalid/x.png\"><script>console.error('boom')</script></body></html>",
    );
    let probe = browse(&env, &browser, &bad, &["--dump-dom"]);
    if probe.code != 0 || !probe.stdout.contains("<body>") {
        skip(
            test,
            &format!("{} cannot render headless here: {probe}", browser.display()),
        );
        return;
    }
    if console_lines(&probe.stderr).is_empty() {
        skip(
            test,
            "the browser does not log console messages with --enable-logging=stderr",
        );
        return;
    }
    let repo = ran(&env);
    let page = env.root().join("report.html");
    let _ = env
        .run(
            &repo,
            &["ultraplan", "report", "-q", "plan.md", "-o", page.to_str().unwrap()],
        )
        .expect_code(0);
    let dom = browse(&env, &browser, &page, &["--dump-dom"]);
    assert_eq!(dom.code, 0, "{dom}");
    assert_eq!(console_lines(&dom.stderr), Vec::<&str>::new(), "no console message");
    for (n, title) in [(1, "Step 1"), (2, "Step 2"), (3, "Step 3")] {
        assert!(
            dom.stdout.contains(&format!("id=\"step-{n}\"")) && dom.stdout.contains(&format!("Step {n}: {title}")),
            "step {n} appears:\n{}",
            dom.stdout
        );
    }
    // The picture, and a blank page's of the same size to compare with.
    let shot = env.root().join("report.png");
    let out = browse(&env, &browser, &page, &[&format!("--screenshot={}", shot.display())]);
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(console_lines(&out.stderr), Vec::<&str>::new(), "no console message");
    let blank_page = env.root().join("blank.html");
    write(&blank_page, "<!DOCTYPE html><html><body></body></html>");
    let blank_shot = env.root().join("blank.png");
    let _ = browse(
        &env,
        &browser,
        &blank_page,
        &[&format!("--screenshot={}", blank_shot.display())],
    )
    .expect_code(0);
    let png = std::fs::read(&shot).expect("a screenshot");
    let blank = std::fs::read(&blank_shot).expect("a blank screenshot");
    assert_eq!(png_size(&png), Some((1280, 1600)), "a PNG of the window's size");
    assert_eq!(png_size(&blank), png_size(&png));
    // A uniform picture compresses to almost nothing; text, tables and the
    // timeline do not.
    assert!(
        png.len() > 5 * blank.len(),
        "the picture is not blank: {} bytes against a blank page's {}",
        png.len(),
        blank.len()
    );
    // The reader's dark preference gives another picture.
    let dark_shot = env.root().join("dark.png");
    let out = browse(
        &env,
        &browser,
        &page,
        &[
            "--blink-settings=preferredColorScheme=0",
            &format!("--screenshot={}", dark_shot.display()),
        ],
    );
    assert_eq!(out.code, 0, "{out}");
    let dark = std::fs::read(&dark_shot).expect("a dark screenshot");
    assert_eq!(png_size(&dark), png_size(&png));
    assert!(dark != png && dark.len() > 5 * blank.len(), "a dark picture, not blank");
    // The historian's plan page too.
    let hist = feature_branch(&env);
    let plan_page = env.root().join("plan.html");
    let html = env
        .run(&hist, &["historian", "plan", "--format", "html"])
        .expect_code(0)
        .stdout;
    write(&plan_page, &html);
    let dom = browse(&env, &browser, &plan_page, &["--dump-dom"]);
    assert_eq!(dom.code, 0, "{dom}");
    assert_eq!(console_lines(&dom.stderr), Vec::<&str>::new(), "no console message");
    assert_eq!(
        dom.stdout.matches("<section class=\"commit\"").count(),
        3,
        "{}",
        dom.stdout
    );
}

/// A feature branch of two commits, one of them "wip" touching two files.
fn feature_branch(env: &TestEnv) -> PathBuf {
    let repo = env.repo("hist");
    write(&repo.join("main.rs"), "fn main() {\n    println!(\"hi\");\n}\n");
    env.git(&repo, &["add", "main.rs"]);
    env.git(&repo, &["commit", "-q", "-m", "main"]);
    env.git(&repo, &["checkout", "-q", "-b", "feature"]);
    write(
        &repo.join("main.rs"),
        "fn main() {\n    println!(\"hi <there> & you\");\n    run();\n}\n\nfn run() {}\n",
    );
    write(&repo.join("README.md"), "# demo\n\nRun it.\n");
    env.git(&repo, &["add", "."]);
    env.git(&repo, &["commit", "-q", "-m", "wip stuff"]);
    write(
        &repo.join("parse.rs"),
        "pub fn parse(s: &str) -> u32 {\n    s.parse().unwrap_or(0)\n}\n",
    );
    env.git(&repo, &["add", "."]);
    env.git(&repo, &["commit", "-q", "-m", "add parser"]);
    repo
}

#[test]
fn the_historians_plan_side_by_side_with_hunks_and_reasons() {
    let env = TestEnv::new();
    let repo = feature_branch(&env);
    let before = env.git(&repo, &["for-each-ref"]);
    let mut t = Transcript::new(&env);
    let out = t.run(&repo, &["historian", "plan", "--explain"]);
    assert_eq!(out.code, 0, "{out}");
    let html = env
        .run(&repo, &["historian", "plan", "--format", "html"])
        .expect_code(0)
        .stdout;
    assert!(
        html.contains("println!(&quot;hi &lt;there&gt; &amp; you&quot;);"),
        "lines are escaped"
    );
    for why in out.stdout.lines().filter_map(|l| l.trim().strip_prefix("why ")) {
        let (_, reason) = why.split_once(": ").expect("why <item>: <reason>");
        assert!(
            html.contains(&format!("why: {reason}")),
            "the page gives the reason {reason}"
        );
    }
    let page = env.root().join("plan.html");
    std::fs::write(&page, structure(&html)).unwrap();
    t.file(&page);
    t.note("--format html is a rendering of the plan, not a plan file.");
    let _ = t.run(&repo, &["historian", "plan", "--format", "html", "--json"]);
    assert_transcript!(t, "the_historians_plan_as_html");
    assert_eq!(env.git(&repo, &["for-each-ref"]), before, "nothing written");
}
