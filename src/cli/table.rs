//! Plain aligned tables for terminal reports, cells cut with `…` when long.
//!
//! Hand-written rather than `comfy-table` or `tabled`: git's own reports
//! are plain columns two spaces apart, without borders, and that is one
//! function here. Widths count characters, which is right for the ASCII
//! ids, statuses and paths these tables hold (wide characters may
//! misalign a column; nothing breaks).

/// Renders rows under a header, each column as wide as its widest cell (up to
/// `max_width`), two spaces apart, every line indented by `indent` spaces.
pub fn render(header: &[&str], rows: &[Vec<String>], max_width: usize, indent: usize) -> String {
    let cut = |s: &str| -> String {
        // A cell quotes a plan or a record (a title, a command): a control
        // character is shown as its escape, never sent to the screen.
        let s: String = s
            .chars()
            .map(|c| match c {
                '\n' => "\n".to_owned(),
                c if c.is_control() => c.escape_default().to_string(),
                c => c.to_string(),
            })
            .collect();
        let one_line = s.lines().next().unwrap_or("");
        let more = s.lines().nth(1).is_some();
        let count = one_line.chars().count();
        if count > max_width {
            one_line.chars().take(max_width.saturating_sub(1)).collect::<String>() + "…"
        } else if more {
            format!("{one_line} …")
        } else {
            one_line.to_owned()
        }
    };
    let cells: Vec<Vec<String>> = std::iter::once(header.iter().map(|h| h.to_string()).collect::<Vec<_>>())
        .chain(rows.iter().cloned())
        .map(|row| row.iter().map(|c| cut(c)).collect())
        .collect();
    let columns = header.len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            cells
                .iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &cells {
        let mut line = " ".repeat(indent);
        for (i, width) in widths.iter().enumerate() {
            let cell = row.get(i).map_or("", String::as_str);
            line.push_str(cell);
            if i + 1 < columns {
                line.push_str(&" ".repeat(width - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns_and_cuts() {
        let out = super::render(
            &["A", "Long"],
            &[vec!["1".into(), "abcdefghij".into()], vec!["22".into(), "x\ny".into()]],
            5,
            2,
        );
        assert_eq!(out, "  A   Long\n  1   abcd…\n  22  x …\n");
    }
}
