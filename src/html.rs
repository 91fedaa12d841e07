//! Self-contained HTML pages: the one escaping function every string goes
//! through on its way into HTML or inline SVG, and the page shell both
//! products' pages share (`git ultraplan report`, `git historian plan
//! --format html`).
//!
//! A page is one file that needs nothing else: its style is inline, its
//! pictures are inline SVG, it names no font, script or address to fetch.
//! Its Content-Security-Policy says so to the browser as well (`default-src
//! 'none'`): should a string ever slip through unescaped, a browser would
//! still neither run it nor fetch anything for it. The style follows the
//! reader's light or dark preference (`prefers-color-scheme`).
//!
//! What must never happen here: a string from a plan, a file name, a
//! command's output or a commit message written into a page without
//! [`escape`].

use std::fmt::Write as _;

/// `text` made safe as HTML text and as a quoted attribute value, in HTML
/// and in inline SVG: `&`, `<`, `>`, `"` and `'` become character
/// references, and the control characters HTML forbids (all C0 controls but
/// tab, line feed and carriage return, DEL and the C1 controls) become
/// U+FFFD, so what a hostile name holds is shown, never interpreted.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` characters, with `…` when cut (for labels
/// in pictures; the whole text goes into the element's title).
pub fn shorten(text: &str, max: usize) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() {
        let mut cut: String = head.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        head
    }
}

/// The colours, type and common elements of every page, light and dark.
const STYLE: &str = r#":root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--code:#eff2f5;--pass:#1a7f37;--fail:#cf222e;--skip:#818b98;--stop:#9a6700;--run:#0969da;--merge:#8250df;--link:#0969da;--add:#dafbe1;--del:#ffebe9}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;--code:#1f2630;--pass:#3fb950;--fail:#f85149;--skip:#9198a1;--stop:#d29922;--run:#4493f8;--merge:#ab7df8;--link:#4493f8;--add:#12361f;--del:#4c1a1c}}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}h3{font-size:15px;margin:18px 0 6px}
a{color:var(--link)}
code,pre{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
code{background:var(--code);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:8px 10px;border-radius:6px;margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:24em;overflow:auto}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--card);font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}
.facts{display:flex;flex-wrap:wrap;gap:4px 20px;margin:6px 0 0;padding:0;list-style:none}
.badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;background:var(--run);vertical-align:1px}
.badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}.badge.skip{background:var(--skip)}.badge.stop{background:var(--stop)}.badge.merge{background:var(--merge)}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:6px;background:var(--card);padding:8px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:10px 0;background:var(--bg)}
"#;

/// A whole page: `title` (plain text) in the head, `extra` style after the
/// common one, `body` (already escaped HTML) inside `<body>`.
pub fn page(title: &str, extra_style: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + STYLE.len() + extra_style.len() + 512);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    // Nothing to fetch and nothing to run: the browser is told so.
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    out.push_str("<style>\n");
    out.push_str(STYLE);
    out.push_str(extra_style);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(body);
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_controls() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(
            escape("a\u{0}b\u{1b}[31mc\u{85}d\te\nf"),
            "a\u{fffd}b\u{fffd}[31mc\u{fffd}d\te\nf"
        );
        assert_eq!(escape("plain ünïcode → ok"), "plain ünïcode → ok");
    }

    #[test]
    fn shortens_by_characters() {
        assert_eq!(shorten("abcdef", 10), "abcdef");
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("ééééé", 3), "éé…");
    }

    #[test]
    fn a_page_fetches_and_runs_nothing() {
        let page = page("<T>", "", "<p>x</p>");
        assert!(page.contains("<title>&lt;T&gt;</title>"));
        assert!(page.contains("default-src 'none'"));
        assert!(!page.contains("http://") && !page.contains("https://") && !page.contains("<script"));
        assert!(page.contains("prefers-color-scheme:dark"));
    }
}
