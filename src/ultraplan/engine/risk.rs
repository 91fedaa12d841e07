//! The risk assessment of a finished multi-session run (seed 003's finalize
//! table): files and lines changed decide the level, the higher one wins.
//!
//! | files | lines | level | recommended action |
//! |---|---|---|---|
//! | 1–5 | < 100 | low | auto-merge safe |
//! | 6–15 | 100–500 | medium | review recommended |
//! | 16–30 | 500–1000 | high | careful review required |
//! | > 30 | > 1000 | critical | senior review mandatory |

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Risk {
    pub level: &'static str,
    pub files_changed: usize,
    pub lines_changed: usize,
    pub action: &'static str,
}

const LEVELS: [(&str, &str); 4] = [
    ("low", "auto-merge safe"),
    ("medium", "review recommended"),
    ("high", "careful review required"),
    ("critical", "senior review mandatory"),
];

pub fn assess(files_changed: usize, lines_changed: usize) -> Risk {
    let by_files = match files_changed {
        0..=5 => 0,
        6..=15 => 1,
        16..=30 => 2,
        _ => 3,
    };
    let by_lines = match lines_changed {
        0..=99 => 0,
        100..=500 => 1,
        501..=1000 => 2,
        _ => 3,
    };
    let (level, action) = LEVELS[by_files.max(by_lines)];
    Risk {
        level,
        files_changed,
        lines_changed,
        action,
    }
}

#[cfg(test)]
mod tests {
    use super::assess;

    #[test]
    fn the_seed_table() {
        assert_eq!(assess(3, 40).level, "low");
        assert_eq!(assess(0, 0).level, "low");
        assert_eq!(assess(12, 350).level, "medium");
        assert_eq!(assess(5, 100).level, "medium", "lines alone can raise it");
        assert_eq!(assess(16, 10).level, "high");
        assert_eq!(assess(2, 1001).level, "critical");
        assert_eq!(assess(31, 0).action, "senior review mandatory");
    }
}
