//! Color decisions as git makes them: `--color`, then `color.<program>`, then
//! `color.ui`, else auto; auto means a terminal (or git's pager), no `NO_COLOR`
//! and a `TERM` other than `dumb`.

use std::fmt::Display;

use crate::git::GitConfig;

/// The `--color` option's values (git's `never`, `always`, `auto`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Always,
    Never,
    Auto,
}

impl ColorWhen {
    /// Reads a git color boolean: `always`, `never`, `auto`, or a boolean
    /// where true means auto (git's rule since 1.8.4).
    pub fn from_config_value(value: &str) -> Option<ColorWhen> {
        match value.trim().to_ascii_lowercase().as_str() {
            "always" => Some(ColorWhen::Always),
            "never" | "false" | "no" | "off" | "0" => Some(ColorWhen::Never),
            "auto" | "true" | "yes" | "on" | "1" | "" => Some(ColorWhen::Auto),
            _ => None,
        }
    }
}

/// What the environment says about a stream, gathered once so the decision is
/// a pure function that tests can drive.
#[derive(Clone, Copy, Debug, Default)]
pub struct Terminal {
    pub is_terminal: bool,
    pub no_color: bool,
    pub dumb: bool,
    pub pager_in_use: bool,
}

impl Terminal {
    pub fn stdout() -> Terminal {
        use std::io::IsTerminal;
        Self::from_env(std::io::stdout().is_terminal())
    }

    pub fn stderr() -> Terminal {
        use std::io::IsTerminal;
        Self::from_env(std::io::stderr().is_terminal())
    }

    fn from_env(is_terminal: bool) -> Terminal {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        Terminal {
            is_terminal,
            no_color: set("NO_COLOR"),
            dumb: std::env::var("TERM").is_ok_and(|t| t == "dumb"),
            pager_in_use: std::env::var("GIT_PAGER_IN_USE")
                .is_ok_and(|v| ColorWhen::from_config_value(&v) != Some(ColorWhen::Never)),
        }
    }
}

/// Decides whether to color: the flag beats `color.<program>`, which beats
/// `color.ui`; an unreadable config value counts as auto, as in git.
pub fn use_color(flag: Option<ColorWhen>, config: &GitConfig, program: &str, term: Terminal) -> bool {
    let when = flag
        .or_else(|| {
            config
                .string(&format!("color.{program}"))
                .and_then(|v| ColorWhen::from_config_value(&v))
        })
        .or_else(|| config.string("color.ui").and_then(|v| ColorWhen::from_config_value(&v)))
        .unwrap_or(ColorWhen::Auto);
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => (term.is_terminal || term.pager_in_use) && !term.no_color && !term.dumb,
    }
}

/// Paints text with ANSI colors, or leaves it alone when color is off.
#[derive(Clone, Copy, Debug)]
pub struct Paint {
    enabled: bool,
}

impl Paint {
    pub fn new(enabled: bool) -> Paint {
        Paint { enabled }
    }

    fn wrap(&self, code: &str, text: impl Display) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[m")
        } else {
            text.to_string()
        }
    }

    pub fn green(&self, text: impl Display) -> String {
        self.wrap("32", text)
    }

    pub fn red(&self, text: impl Display) -> String {
        self.wrap("31", text)
    }

    pub fn yellow(&self, text: impl Display) -> String {
        self.wrap("33", text)
    }

    pub fn bold(&self, text: impl Display) -> String {
        self.wrap("1", text)
    }

    pub fn dim(&self, text: impl Display) -> String {
        self.wrap("2", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> GitConfig {
        let params: Vec<_> = pairs
            .iter()
            .map(|(k, v)| crate::git::ConfigParameter {
                key: k.to_string(),
                value: Some(v.to_string()),
            })
            .collect();
        GitConfig::from_parameters(&params).expect("valid keys")
    }

    const TTY: Terminal = Terminal {
        is_terminal: true,
        no_color: false,
        dumb: false,
        pager_in_use: false,
    };

    #[test]
    fn flag_beats_config_and_environment() {
        let cfg = config(&[("color.ui", "never")]);
        assert!(use_color(
            Some(ColorWhen::Always),
            &cfg,
            "ultraplan",
            Terminal { no_color: true, ..TTY }
        ));
        assert!(!use_color(Some(ColorWhen::Never), &config(&[]), "ultraplan", TTY));
    }

    #[test]
    fn program_key_beats_color_ui() {
        let cfg = config(&[("color.ui", "never"), ("color.ultraplan", "always")]);
        assert!(use_color(None, &cfg, "ultraplan", Terminal::default()));
        assert!(!use_color(None, &cfg, "historian", TTY));
    }

    #[test]
    fn auto_needs_a_terminal_and_respects_no_color_and_dumb() {
        let cfg = config(&[]);
        assert!(use_color(None, &cfg, "ultraplan", TTY));
        assert!(!use_color(None, &cfg, "ultraplan", Terminal::default()));
        assert!(!use_color(None, &cfg, "ultraplan", Terminal { no_color: true, ..TTY }));
        assert!(!use_color(None, &cfg, "ultraplan", Terminal { dumb: true, ..TTY }));
        assert!(use_color(
            None,
            &cfg,
            "ultraplan",
            Terminal {
                pager_in_use: true,
                ..Terminal::default()
            }
        ));
    }

    #[test]
    fn true_means_auto_like_git() {
        let cfg = config(&[("color.ui", "true")]);
        assert!(!use_color(None, &cfg, "ultraplan", Terminal::default()));
        assert!(use_color(None, &cfg, "ultraplan", TTY));
    }

    #[test]
    fn paint_is_plain_when_disabled() {
        assert_eq!(Paint::new(false).red("x"), "x");
        assert_eq!(Paint::new(true).red("x"), "\x1b[31mx\x1b[m");
    }
}
