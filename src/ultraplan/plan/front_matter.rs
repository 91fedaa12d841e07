//! YAML front matter between `---` lines at the top of a plan (GSD's
//! `phase`, `plan`, `type`, `wave`, `depends_on`, `files_modified`,
//! `autonomous`, `must_haves`), read with a bound on nesting.

use super::Diagnostics;

/// YAML front matter between `---` lines at the top of the file.
pub struct FrontMatter<'a> {
    /// The file after the front matter.
    pub body: &'a str,
    pub body_first_line: usize,
    /// Top-level `key: value` pairs, values unquoted and kept as text
    /// (so `plan: 01` stays `01`).
    entries: Vec<(String, String)>,
    parsed: serde_yaml::Value,
    error: Option<crate::yaml::YamlError>,
}

impl FrontMatter<'_> {
    pub fn value(&self, key: &str) -> Option<String> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    }

    /// The front matter as YAML (`Null` when there is none or it is not valid).
    pub fn yaml(&self) -> &serde_yaml::Value {
        &self.parsed
    }

    /// A list value (`[a, b]` or `- a` items), as text.
    pub fn list(&self, key: &str) -> Vec<String> {
        match self.parsed.get(key) {
            Some(serde_yaml::Value::Sequence(items)) => items.iter().filter_map(scalar_text).collect(),
            Some(v) => scalar_text(v).into_iter().filter(|t| !t.is_empty()).collect(),
            None => Vec::new(),
        }
    }

    /// Reports front matter that is not valid YAML.
    pub(crate) fn check(&self, diags: &mut Diagnostics) {
        if let Some(err) = &self.error {
            let line = err.line.map_or(1, |l| l + 1);
            diags.problem(line, format!("front matter is not valid YAML: {}", err.message));
        }
    }
}

pub fn front_matter(text: &str) -> FrontMatter<'_> {
    let none = FrontMatter {
        body: text,
        body_first_line: 1,
        entries: Vec::new(),
        parsed: serde_yaml::Value::Null,
        error: None,
    };
    let first_end = text.find('\n').unwrap_or(text.len());
    if text[..first_end].trim_end() != "---" {
        return none;
    }
    let mut offset = first_end + 1;
    let mut line_no = 2;
    while offset <= text.len() {
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[offset..end].trim_end();
        if line == "---" || line == "..." {
            let yaml = &text[first_end + 1..offset];
            let entries = yaml
                .lines()
                .filter(|l| !l.starts_with([' ', '\t', '#', '-']))
                .filter_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    let v = v.trim();
                    let v = v.split(" #").next().unwrap_or(v).trim();
                    Some((k.trim().to_owned(), v.trim_matches(['"', '\'']).to_owned()))
                })
                .collect();
            let body_start = (end + 1).min(text.len());
            let (parsed, error) = match crate::yaml::parse(yaml) {
                Ok(v) => (v, None),
                Err(e) => (serde_yaml::Value::Null, Some(e)),
            };
            return FrontMatter {
                body: &text[body_start..],
                body_first_line: line_no + 1,
                entries,
                parsed,
                error,
            };
        }
        if end == text.len() {
            break;
        }
        offset = end + 1;
        line_no += 1;
    }
    none
}

/// A scalar as text (`01` stays `01` only through [`FrontMatter::value`]).
pub(crate) fn scalar_text(v: &serde_yaml::Value) -> Option<String> {
    match v {
        serde_yaml::Value::String(s) => Some(s.clone()),
        serde_yaml::Value::Number(n) => Some(n.to_string()),
        serde_yaml::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
