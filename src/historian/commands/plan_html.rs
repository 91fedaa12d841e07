//! The rendering of `git historian plan --format html`: the proposed
//! commits side by side, one column each, with every change item it takes
//! — the hunk's lines as a small diff, or what happened to a whole file —
//! and why the item is there (the `--explain` reasons), then the splits
//! clean will offer for a commit over the limits.
//!
//! One self-contained page ([`crate::html::page`]); everything from the
//! repository (messages, paths, lines) goes through [`escape`].

use std::fmt::Write as _;

use anyhow::Result;

use super::explain::{self, Names};
use crate::git::Repo;
use crate::historian::analyse::items::{ChangeSet, FileChange, Status};
use crate::historian::analyse::lines::{hunks, is_binary, split_lines, Hunk};
use crate::historian::plan::split::{self, Limits};
use crate::historian::plan::{context::Context, CommitPlan};
use crate::html::{escape, page};

/// Lines of one item shown before the rest is counted instead.
const ITEM_LINES: usize = 40;

const STYLE: &str = r#".commits{display:grid;grid-auto-flow:column;grid-auto-columns:minmax(340px,1fr);gap:12px;overflow-x:auto;padding-bottom:8px;align-items:start}
.commit{border:1px solid var(--line);border-radius:6px;background:var(--card);padding:8px 10px;min-width:0}
.commit h2{font-size:15px;margin:0 0 4px;border:0;padding:0}
.commit .body{white-space:pre-wrap;color:var(--muted);font-size:12.5px;margin:0 0 6px}
.item{border-top:1px solid var(--line);padding:6px 0}
.item .name{font-weight:600}
.diff{margin:4px 0;padding:4px 0;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg);border-radius:4px;overflow-x:auto}
.diff div{white-space:pre;padding:0 6px}.diff .add{background:var(--add)}.diff .del{background:var(--del)}.diff .more{color:var(--muted)}
.why{font-size:12.5px;color:var(--muted);margin:2px 0}
.over{color:var(--stop);font-weight:600}
"#;

/// What the page shows, as `plan` computed it.
pub struct PlanPage<'a> {
    pub branch: &'a str,
    pub base: String,
    pub tip: String,
    pub plan: &'a CommitPlan,
    pub names: &'a Names<'a>,
    pub ctx: &'a Context<'a>,
    pub limits: Limits,
    pub questions: &'a [(usize, Vec<String>)],
}

/// The whole page; `repo` gives the lines of each hunk.
pub fn render(repo: &Repo, p: &PlanPage<'_>) -> Result<String> {
    let changes = p.names.changes;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<h1>Plan for <code>{}</code></h1>\n<p class=\"muted\">{} proposed commit(s) from {} branch commit(s) and {} change item(s) · base <code>{}</code> · tip <code>{}</code> · nothing is written until <code>git historian clean</code></p>",
        escape(p.branch),
        p.plan.commits.len(),
        p.names.commits.len(),
        changes.items.len(),
        escape(&p.base),
        escape(&p.tip)
    );
    body.push_str("<div class=\"commits\">\n");
    let mut texts = FileTexts::default();
    for (n, commit) in p.plan.commits.iter().enumerate() {
        let size = split::size(p.ctx, &commit.items);
        let _ = writeln!(
            body,
            "<section class=\"commit\" id=\"commit-{}\">\n<h2>{}. {}</h2>",
            n + 1,
            n + 1,
            escape(commit.subject())
        );
        let rest: Vec<&str> = commit.message.lines().skip(1).skip_while(|l| l.is_empty()).collect();
        if !rest.is_empty() {
            let _ = writeln!(body, "<p class=\"body\">{}</p>", escape(&rest.join("\n")));
        }
        let _ = writeln!(
            body,
            "<p class=\"muted\">{}: {} file(s), {} line(s)</p>",
            escape(size.class(p.limits)),
            size.files,
            size.lines
        );
        if size.over(p.limits) {
            let _ = writeln!(
                body,
                "<p class=\"over\">Over the limits of {} files and {} lines.</p>",
                p.limits.files, p.limits.lines
            );
        }
        for &item in &commit.items {
            let _ = writeln!(
                body,
                "<div class=\"item\" id=\"item-{item}\"><div class=\"name\"><code>{}</code></div>",
                escape(&changes.item_name(item))
            );
            body.push_str(&item_diff(repo, changes, item, &mut texts)?);
            if let Some(reason) = p.names.explanation.items.iter().find(|r| r.item == item) {
                if let Some(why) = explain::why(reason, p.names) {
                    let _ = writeln!(body, "<p class=\"why\">why: {}</p>", escape(&why));
                }
            }
            body.push_str("</div>\n");
        }
        for (_, options) in p.questions.iter().filter(|(c, _)| *c == n) {
            body.push_str("<p class=\"why\">clean will ask how to split it; the candidates:</p>\n<ol class=\"why\">\n");
            for o in options {
                let _ = writeln!(body, "<li>{}</li>", escape(o));
            }
            body.push_str("</ol>\n");
        }
        body.push_str("</section>\n");
    }
    body.push_str("</div>\n");
    Ok(page(&format!("Plan for {}", p.branch), STYLE, &body))
}

/// The base and tip texts of the file last read (items come file by file).
#[derive(Default)]
struct FileTexts {
    file: Option<usize>,
    old: Vec<u8>,
    new: Vec<u8>,
}

fn item_diff(repo: &Repo, changes: &ChangeSet, item: usize, texts: &mut FileTexts) -> Result<String> {
    let it = &changes.items[item];
    let file = &changes.files[it.file];
    if file.binary || file.is_submodule() {
        return Ok(format!(
            "<p class=\"why\">{} ({})</p>\n",
            status_words(file),
            if file.binary { "binary" } else { "submodule" }
        ));
    }
    if texts.file != Some(it.file) {
        texts.old = blob(repo, file.old.as_ref().map(|e| e.id))?;
        texts.new = blob(repo, file.new.as_ref().map(|e| e.id))?;
        texts.file = Some(it.file);
    }
    if is_binary(&texts.old) || is_binary(&texts.new) {
        return Ok(format!("<p class=\"why\">{} (binary)</p>\n", status_words(file)));
    }
    let old = split_lines(&texts.old);
    let new = split_lines(&texts.new);
    let shown: Vec<Hunk> = match it.hunk.and_then(|h| file.hunks.get(h)) {
        Some(h) => vec![h.clone()],
        // A whole file: all of its change.
        None => hunks(&old, &new),
    };
    let mut out = String::new();
    if it.hunk.is_none() {
        let _ = writeln!(out, "<p class=\"why\">{}</p>", status_words(file));
    }
    if shown.is_empty() {
        return Ok(out);
    }
    out.push_str("<div class=\"diff\">");
    let mut count = 0;
    let total: usize = shown.iter().map(Hunk::size).sum();
    'hunks: for h in &shown {
        for (sign, class, lines) in [('-', "del", &old[h.old.clone()]), ('+', "add", &new[h.new.clone()])] {
            for line in lines {
                if count == ITEM_LINES {
                    break 'hunks;
                }
                let text = String::from_utf8_lossy(line);
                let _ = write!(
                    out,
                    "<div class=\"{class}\">{sign}{}</div>",
                    escape(text.trim_end_matches(['\n', '\r']))
                );
                count += 1;
            }
        }
    }
    if total > count {
        let _ = write!(out, "<div class=\"more\">… {} more line(s)</div>", total - count);
    }
    out.push_str("</div>\n");
    Ok(out)
}

fn blob(repo: &Repo, id: Option<crate::git::Oid>) -> Result<Vec<u8>> {
    match id {
        Some(id) => repo.read_blob(id),
        None => Ok(Vec::new()),
    }
}

/// `added: +12 −0`, `renamed from old/path: +1 −1`, …
fn status_words(file: &FileChange) -> String {
    let what = match &file.status {
        Status::Added => "added".to_owned(),
        Status::Deleted => "deleted".to_owned(),
        Status::Modified => "modified".to_owned(),
        Status::ModeChanged => "mode changed".to_owned(),
        Status::TypeChanged => "type changed".to_owned(),
        Status::Renamed { from } => format!("renamed from {from}"),
        Status::Copied { from } => format!("copied from {from}"),
    };
    escape(&format!("{what}: +{} −{}", file.added, file.removed))
}
