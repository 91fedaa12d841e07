//! Where a plan's state lives: its slug and reference names.

use std::path::Path;

/// The notes reference holding one note per checkpoint commit.
pub const NOTES_REF: &str = "refs/notes/ultraplan";

/// The plan file's name without extension, made safe for reference names:
/// anything but letters and digits (of any script: git allows them in ref
/// names, and `计划.md` and `план.md` must not share a state), `.`, `_` and
/// `-` becomes `-`. A slug that some git tool would refuse as a reference
/// name component (a Windows device name such as `con` or `lpt1.v2`, which gix
/// will not list) gets the prefix `plan-`, so every reference built from it is
/// one git and gix both accept.
pub fn slug(plan: &Path) -> String {
    let stem = plan
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = String::with_capacity(stem.len());
    for c in stem.chars() {
        let safe = if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') {
            c
        } else {
            '-'
        };
        let doubled = (safe == '-' || safe == '.') && out.ends_with(safe);
        if !doubled {
            out.push(safe);
        }
    }
    let mut slug = out.trim_matches(['-', '.']).to_owned();
    while slug.ends_with(".lock") {
        slug.truncate(slug.len() - ".lock".len());
    }
    if slug.is_empty() {
        return "plan".into();
    }
    if crate::git::component_problem(&slug).is_some() {
        slug.insert_str(0, "plan-");
    }
    slug
}

/// The references of one plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refs {
    pub slug: String,
}

impl Refs {
    pub fn new(slug: impl Into<String>) -> Refs {
        Refs { slug: slug.into() }
    }

    /// The references of the plan at `path` (its [`slug`]).
    pub fn of_plan(path: impl AsRef<Path>) -> Refs {
        Refs::new(slug(path.as_ref()))
    }

    pub fn prefix(&self) -> String {
        format!("refs/ultraplan/{}/", self.slug)
    }

    /// The foreground or orchestrating run's state.
    pub fn run(&self) -> String {
        format!("refs/ultraplan/{}/run", self.slug)
    }

    /// Session `n`'s state.
    pub fn session(&self, n: u32) -> String {
        format!("refs/ultraplan/{}/session-{n}", self.slug)
    }

    /// The state ref of a run: the session's, or the plan's.
    pub fn state(&self, session: Option<u32>) -> String {
        session.map_or_else(|| self.run(), |n| self.session(n))
    }

    pub fn lock(&self) -> String {
        format!("refs/ultraplan/{}/lock", self.slug)
    }

    /// Session `n`'s branch while its wave runs.
    pub fn branch(&self, n: u32) -> String {
        format!("refs/heads/ultraplan/{}/session-{n}", self.slug)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_safe_ref_components() {
        assert_eq!(
            slug(Path::new("plans/ultraplan-multi-session.md")),
            "ultraplan-multi-session"
        );
        assert_eq!(slug(Path::new("03-01-PLAN.md")), "03-01-PLAN");
        assert_eq!(slug(Path::new("my plan (v2)!.md")), "my-plan-v2");
        assert_eq!(slug(Path::new("..weird...name.lock.md")), "weird.name");
        assert_eq!(slug(Path::new("~^:?*[\\.md")), "plan");
        assert_eq!(slug(Path::new("Ünïcode.md")), "Ünïcode");
        assert_eq!(slug(Path::new("计划.md")), "计划");
        assert_ne!(slug(Path::new("план.md")), slug(Path::new("计划.md")));
        assert_eq!(slug(Path::new("con.md")), "plan-con");
        assert_eq!(slug(Path::new("docs/LPT1.v2.md")), "plan-LPT1.v2");
        assert_eq!(slug(Path::new("Aux.md")), "plan-Aux");
        assert_eq!(slug(Path::new("console.md")), "console");
    }

    proptest::proptest! {
        /// Whatever the file is called, every reference built from its slug is
        /// one git and gix accept.
        #[test]
        fn every_reference_built_from_a_slug_is_valid(stem in "\\PC{0,24}", device in 0usize..8, ext in "[a-z.]{0,4}") {
            let devices = ["", "con", "AUX", "nul", "prn", "com7", "LPT3", "CoN"];
            let name = format!("{}{stem}{ext}.md", devices[device]);
            let refs = Refs::of_plan(&name);
            for r in [refs.run(), refs.session(3), refs.lock(), refs.branch(2), format!("{}lock-session-4", refs.prefix())] {
                proptest::prop_assert_eq!(crate::git::ref_name_problem(&r), None, "{} from {:?}", r, name);
            }
        }
    }
}
