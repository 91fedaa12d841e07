//! Where a plan's Files paths lead once the symbolic links on their way
//! are followed: out of the repository (`check` and `run` refuse such a
//! path), or to another path inside it (a step's scope follows the link).

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Where the dangling symbolic link `link` points: its target's directory
/// resolved, and the target's name (`None` when that directory is missing
/// too: nothing can be written there).
fn dangling_target(link: &Path) -> Option<PathBuf> {
    let target = std::fs::read_link(link).ok()?;
    let target = link.parent()?.join(target);
    let name = target.file_name()?;
    Some(target.parent()?.canonicalize().ok()?.join(name))
}

/// Where a Files path really leads once the symbolic links on its way are
/// followed (links a step made since the run began included): outside the
/// repository through a link, or to another path inside it.
#[derive(Debug, PartialEq, Eq)]
pub enum Through {
    /// Out of the repository, through this link.
    Outside(PathBuf),
    /// To this path of the repository (it differs from the one written).
    Inside(String),
}

/// [`Through`] for `relative` under `root`; `None` when no link is on its way.
pub fn through_links(root: &Path, relative: &str) -> Option<Through> {
    if let Some(link) = Links::new(root).leaving(relative) {
        return Some(Through::Outside(link));
    }
    let root = root.canonicalize().ok()?;
    let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    let mut existing = root.clone();
    let mut k = 0;
    while k < parts.len() && existing.join(parts[k]).symlink_metadata().is_ok() {
        existing.push(parts[k]);
        k += 1;
    }
    let mut real = existing.canonicalize().ok()?.strip_prefix(&root).ok()?.to_path_buf();
    for part in &parts[k..] {
        real.push(part);
    }
    let real = real.to_string_lossy().into_owned();
    (real != parts.join("/")).then_some(Through::Inside(real))
}

/// Follows Files paths under a root to see whether a symbolic link on the
/// way leads out of it. The root is resolved once, and a directory found
/// to be no link is not looked at again: a plan of ten thousand files in a
/// few folders costs a look at each file, not a walk from the root each.
/// A folder asked about often is listed once (`LISTED_AFTER`), and its
/// files are looked up in the listing rather than each by a call to the
/// system.
pub(crate) struct Links {
    /// The root, resolved (`None`: it cannot be, and nothing is said).
    root: Option<PathBuf>,
    /// Directories under the root that exist and are not links.
    plain: HashSet<PathBuf>,
    /// How many files were asked about in each directory not listed yet.
    asked: HashMap<PathBuf, usize>,
    /// Listed directories: whether each name in it is a symbolic link.
    listed: HashMap<PathBuf, HashMap<OsString, bool>>,
}

/// A directory is listed once this many of its files were asked about.
const LISTED_AFTER: usize = 8;

impl Links {
    pub(crate) fn new(root: &Path) -> Links {
        Links {
            root: root.canonicalize().ok(),
            plain: Default::default(),
            asked: Default::default(),
            listed: Default::default(),
        }
    }

    /// [`Links::listing_says`] for the last part of a path asked about.
    fn listing_says_if_last(&mut self, last: bool, path: &Path) -> Option<Option<bool>> {
        match last {
            true => self.listing_says(path),
            false => None,
        }
    }

    /// Whether the last part of `path` (a file asked about) is a symbolic
    /// link, from its directory's listing: `Some(None)` when it is not
    /// there, `None` when the directory is not listed (or its listing could
    /// not say).
    fn listing_says(&mut self, path: &Path) -> Option<Option<bool>> {
        let (dir, name) = (path.parent()?, path.file_name()?);
        if !self.listed.contains_key(dir) {
            let asked = self.asked.entry(dir.to_owned()).or_default();
            *asked += 1;
            if *asked < LISTED_AFTER {
                return None;
            }
            self.asked.remove(dir);
            let mut names = HashMap::new();
            for entry in std::fs::read_dir(dir).ok()? {
                let entry = entry.ok()?;
                names.insert(entry.file_name(), entry.file_type().ok()?.is_symlink());
            }
            self.listed.insert(dir.to_owned(), names);
        }
        Some(self.listed.get(dir)?.get(name).copied())
    }

    /// The first existing ancestor of `root/relative` that resolves outside
    /// the root (a symbolic link pointing away), if any.
    pub(crate) fn leaving(&mut self, relative: &str) -> Option<PathBuf> {
        let root = self.root.clone()?;
        let root = &root;
        let mut current = root.clone();
        let mut parts = relative.split('/').peekable();
        while let Some(part) = parts.next() {
            current.push(part);
            let last = parts.peek().is_none();
            if !last && self.plain.contains(&current) {
                continue;
            }
            // A file in a listed directory: only a link needs a closer look.
            match self.listing_says_if_last(last, &current) {
                Some(None) => return None,
                Some(Some(false)) => continue,
                _ => {}
            }
            match current.symlink_metadata() {
                Ok(meta) if meta.file_type().is_symlink() => {
                    // A link to nothing yet (`linkfile -> /elsewhere/f.txt`)
                    // leads where its target would be made.
                    let resolved = match current.canonicalize() {
                        Ok(resolved) => resolved,
                        Err(_) => dangling_target(&current)?,
                    };
                    if !resolved.starts_with(root) {
                        return Some(current.strip_prefix(root).map(Path::to_path_buf).unwrap_or(current));
                    }
                }
                Ok(meta) if meta.is_dir() && !last => {
                    self.plain.insert(current.clone());
                }
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_many_files_is_listed_once_and_its_links_still_followed() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("d")).unwrap();
        for i in 0..LISTED_AFTER * 2 {
            std::fs::write(root.path().join(format!("d/f{i}")), "x").unwrap();
        }
        std::os::unix::fs::symlink(outside.path().join("gone"), root.path().join("d/away")).unwrap();
        std::os::unix::fs::symlink(root.path().join("d/f0"), root.path().join("d/near")).unwrap();
        let mut links = Links::new(root.path());
        for i in 0..LISTED_AFTER * 2 {
            assert_eq!(links.leaving(&format!("d/f{i}")), None);
        }
        assert!(!links.listed.is_empty(), "the folder was listed");
        assert_eq!(links.leaving("d/away"), Some(PathBuf::from("d/away")));
        assert_eq!(links.leaving("d/near"), None);
        assert_eq!(links.leaving("d/missing"), None);
        assert_eq!(links.leaving("d/missing/below"), None);
    }

    #[test]
    fn a_link_below_a_folder_already_seen_is_still_followed() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("src/deep")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("src/away")).unwrap();
        std::os::unix::fs::symlink(root.path().join("src/deep"), root.path().join("src/near")).unwrap();
        let mut links = Links::new(root.path());
        // `src` is seen (and remembered) plain first; the links below it
        // are looked at all the same, each time.
        for _ in 0..2 {
            assert_eq!(links.leaving("src/deep/a.rs"), None);
            assert_eq!(links.leaving("src/away/a.rs"), Some(PathBuf::from("src/away")));
            assert_eq!(links.leaving("src/near/a.rs"), None);
            assert_eq!(links.leaving("src/new/a.rs"), None);
        }
        // A root that cannot be resolved says nothing.
        assert_eq!(Links::new(&root.path().join("missing")).leaving("a"), None);
    }
}
