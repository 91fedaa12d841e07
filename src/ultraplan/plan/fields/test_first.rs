//! The Test first field: one line, or nested `File:`/`Verifies:`/`Pattern:` items.

use crate::ultraplan::plan::markdown::{code_spans, plain, Field};
use crate::ultraplan::plan::TestFirst;

/// Test first: one line, or nested `File:`/`Verifies:`/`Pattern:` items.
pub(crate) fn test_first(field: &Field<'_>) -> TestFirst {
    let mut test = TestFirst::default();
    let value = field.value.trim();
    if !value.is_empty() {
        test.text = Some(value.to_owned());
        test.file = code_spans(value)
            .into_iter()
            .map(|s| s.content)
            .find(|c| c.contains('/') || c.contains('.'))
            .map(str::to_owned);
    }
    for sub in field.subfields() {
        let text = sub.text();
        match sub.label.as_str() {
            "file" | "files" => {
                test.file = code_spans(&text)
                    .into_iter()
                    .next()
                    .map(|s| s.content.to_owned())
                    .or_else(|| Some(plain(&text)))
            }
            "verifies" | "verify" => test.verifies = Some(plain(&text)),
            "pattern" => test.pattern = Some(text.trim().to_owned()),
            _ => {}
        }
    }
    test
}
