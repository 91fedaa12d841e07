//! Whether a reference name is one every git tool accepts.
//!
//! git itself (`git check-ref-format`) and gix agree on the syntax of a
//! reference name, but gix also refuses, when it lists loose references, path
//! components that are Windows device names (`con`, `aux`, `nul`, `prn`,
//! `com1`–`com9`, `lpt0`–`lpt9`, with any extension and in any case) or NTFS
//! and HFS spellings of `.git`: one such reference breaks the listing of its
//! whole directory. Names this program builds are checked here against both.

use gix::bstr::ByteSlice;

/// Why `name` (a full reference name such as `refs/ultraplan/x/run`) would be
/// refused by git or by gix, or `None` when every tool accepts it.
pub fn ref_name_problem(name: &str) -> Option<String> {
    if let Err(e) = gix::validate::reference::name(name.as_bytes().as_bstr()) {
        return Some(e.to_string());
    }
    name.split('/').find_map(component_problem)
}

/// Why one path component of a reference name would be refused.
pub fn component_problem(component: &str) -> Option<String> {
    let options = gix::validate::path::component::Options {
        protect_windows: true,
        protect_hfs: true,
        protect_ntfs: true,
    };
    gix::validate::path::component(component.as_bytes().as_bstr(), None, options)
        .err()
        .map(|e| format!("'{component}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_devices_and_dot_git_spellings_are_refused() {
        for bad in ["con", "CON", "nul.md", "Aux", "com1", "lpt9.x", "git~1", ".GIT"] {
            assert!(component_problem(bad).is_some(), "{bad}");
        }
        for good in ["console", "plan", "com0x", "run", "session-1", "Ünïcode", "计划"] {
            assert_eq!(component_problem(good), None, "{good}");
        }
        assert!(ref_name_problem("refs/ultraplan/a..b/run").is_some());
        assert!(ref_name_problem("refs/ultraplan/x.lock/run").is_some());
        assert_eq!(ref_name_problem("refs/ultraplan/my-plan/session-2"), None);
    }
}
