//! Nothing disappears in between (issue 15, item 6): the rules `order`
//! must keep, whatever it prefers.
//!
//! * A line present at the base and at the tip stays present in every new
//!   commit: the last commit deleting a moved line (`analyse::moves`) comes
//!   no earlier than the first commit adding it again.
//! * A new package's `__init__.py` comes no later than the rest of the
//!   package (every file the branch brings under its directory).
//!
//! Two kinds of item are cheap to move, so they are set aside before the
//! groups are ordered ([`detach`]) and placed afterwards ([`reattach`]):
//! a pure deletion of moved lines (a removed file, or a hunk that only
//! removes lines) goes to the first commit by which each of its lines is
//! added elsewhere, when its own commit comes earlier; and a new
//! `__init__.py` goes to the first commit adding a file of its package,
//! when its own comes later. Neither is moved when it is the whole of its
//! group, nor when it replaces a directory of the same name (or is
//! replaced by one), which must stay in one commit with it. What is left
//! is kept by [`Rules`]; when they form a cycle, `order` joins the groups
//! in it.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Context;
use crate::historian::analyse::items::{ChangeSet, Status};

/// Items set aside from their groups, each with an item that stayed there
/// (its anchor, which finds the group again after ordering).
#[derive(Debug, Default)]
pub struct Detached {
    markers: Vec<(usize, usize)>,
    deletions: Vec<(usize, usize)>,
}

/// The directory of the package whose new `__init__.py` is `item`.
fn package_of(changes: &ChangeSet, item: usize) -> Option<&str> {
    let file = &changes.files[changes.items[item].file];
    if file.status != Status::Added {
        return None;
    }
    let (dir, name) = file.path.rsplit_once('/')?;
    (name == "__init__.py").then_some(dir)
}

/// Whether the item brings a file to a path the base did not have there.
fn is_new_path(changes: &ChangeSet, item: usize) -> bool {
    let file = &changes.files[changes.items[item].file];
    file.new.is_some()
        && matches!(
            file.status,
            Status::Added | Status::Renamed { .. } | Status::Copied { .. }
        )
}

/// Whether the item adds a file inside `dir`.
fn adds_under(changes: &ChangeSet, item: usize, dir: &str) -> bool {
    is_new_path(changes, item)
        && changes
            .path(item)
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether the item only removes lines (a removed file, or a hunk adding nothing).
fn only_removes(changes: &ChangeSet, item: usize) -> bool {
    let it = &changes.items[item];
    let file = &changes.files[it.file];
    match it.hunk {
        Some(h) => file.hunks[h].new.is_empty(),
        None => file.status == Status::Deleted,
    }
}

/// Paths removed (deleted files, renames' sources) and paths present at the tip.
struct Paths<'a> {
    removed: BTreeSet<&'a str>,
    present: BTreeSet<&'a str>,
}

impl<'a> Paths<'a> {
    fn new(changes: &'a ChangeSet) -> Paths<'a> {
        let mut removed = BTreeSet::new();
        let mut present = BTreeSet::new();
        for file in &changes.files {
            match (&file.new, &file.status) {
                (None, _) => {
                    removed.insert(file.path.as_str());
                }
                (Some(_), Status::Renamed { from }) => {
                    removed.insert(from.as_str());
                    present.insert(file.path.as_str());
                }
                (Some(_), _) => {
                    present.insert(file.path.as_str());
                }
            }
        }
        Paths { removed, present }
    }

    /// Whether `path` is a file at one end and a directory at the other.
    fn conflicted(&self, path: &str) -> bool {
        let under = |set: &BTreeSet<&str>| {
            let prefix = format!("{path}/");
            set.range(prefix.as_str()..)
                .next()
                .is_some_and(|p| p.starts_with(&prefix))
        };
        let above = |set: &BTreeSet<&str>| {
            let mut at = path;
            while let Some(cut) = at.rfind('/') {
                at = &at[..cut];
                if set.contains(at) {
                    return true;
                }
            }
            false
        };
        under(&self.removed) || under(&self.present) || above(&self.removed) || above(&self.present)
    }
}

/// Sets aside, from groups that hold something else too, the new
/// `__init__.py` files that have a package to come before and the pure
/// deletions of moved lines (from a group of only those, the markers).
pub fn detach(ctx: &Context<'_>, groups: &mut [Vec<usize>]) -> Detached {
    let changes = ctx.changes;
    let paths = Paths::new(changes);
    let mut deletes_moved = vec![false; changes.items.len()];
    for line in &changes.moves.lines {
        for &d in &line.deleted_by {
            deletes_moved[d] = true;
        }
    }
    let markers: Vec<usize> = (0..changes.items.len())
        .filter(|&i| {
            package_of(changes, i)
                .is_some_and(|dir| (0..changes.items.len()).any(|j| j != i && adds_under(changes, j, dir)))
        })
        .collect();
    let mut detached = Detached::default();
    for group in groups.iter_mut() {
        let movable = |i: &usize| {
            (markers.binary_search(i).is_ok() || (deletes_moved[*i] && only_removes(changes, *i)))
                && !paths.conflicted(changes.path(*i))
        };
        let (mut moving, mut staying): (Vec<usize>, Vec<usize>) = group.iter().copied().partition(movable);
        if staying.is_empty() {
            // Only markers and deletions of moved lines (a package's
            // `__init__.py` riding with the old module's removals): the
            // deletions anchor, the markers still go to their package.
            (moving, staying) = group.iter().copied().partition(|i| markers.binary_search(i).is_ok());
        }
        let Some(&anchor) = staying.first() else {
            continue;
        };
        for i in moving {
            if markers.binary_search(&i).is_ok() {
                detached.markers.push((i, anchor));
            } else {
                detached.deletions.push((i, anchor));
            }
        }
        *group = staying;
    }
    detached
}

/// Puts the items set aside back: each `__init__.py` (deepest package
/// first) in its group or the first group adding a file of its package,
/// whichever comes first; each deletion in its group or the first group by
/// which every line it deletes is added elsewhere, whichever comes last.
pub fn reattach(ctx: &Context<'_>, groups: &mut [Vec<usize>], detached: Detached) {
    let changes = ctx.changes;
    let mut position: Vec<Option<usize>> = vec![None; changes.items.len()];
    for (p, group) in groups.iter().enumerate() {
        for &i in group {
            position[i] = Some(p);
        }
    }
    let mut markers = detached.markers;
    markers.sort_by_key(|&(i, _)| {
        let dir = package_of(changes, i).unwrap_or("");
        (std::cmp::Reverse(dir.matches('/').count()), changes.path(i).to_owned())
    });
    for (marker, anchor) in markers {
        let dir = package_of(changes, marker).unwrap_or("");
        let first_member = (0..changes.items.len())
            .filter(|&j| j != marker && adds_under(changes, j, dir))
            .filter_map(|j| position[j])
            .min();
        let at = position[anchor].into_iter().chain(first_member).min();
        if let Some(at) = at {
            groups[at].push(marker);
            position[marker] = Some(at);
        }
    }
    let mut lines_of: BTreeMap<usize, Vec<usize>> = detached.deletions.iter().map(|&(d, _)| (d, Vec::new())).collect();
    for (k, line) in changes.moves.lines.iter().enumerate() {
        for d in &line.deleted_by {
            if let Some(lines) = lines_of.get_mut(d) {
                lines.push(k);
            }
        }
    }
    for (deletion, anchor) in detached.deletions {
        let mut at = position[anchor];
        for &k in &lines_of[&deletion] {
            let first_adder = changes.moves.lines[k]
                .added_by
                .iter()
                .filter_map(|&a| position[a])
                .min();
            at = at.max(first_adder);
        }
        if let Some(at) = at {
            groups[at].push(deletion);
            position[deletion] = Some(at);
        }
    }
    for group in groups.iter_mut() {
        group.sort_unstable();
    }
}

/// The rules between the groups left after [`detach`].
pub struct Rules {
    /// Per moved line: the groups deleting it and the groups adding it.
    moved: Vec<(Vec<usize>, Vec<usize>)>,
    /// Per group: the moved lines (indices into `moved`) it deletes.
    deletes: Vec<Vec<usize>>,
    /// Per group: the groups holding a new `__init__.py` of its package.
    packages: Vec<BTreeSet<usize>>,
}

impl Rules {
    pub fn new(ctx: &Context<'_>, groups: &[Vec<usize>], detached: &Detached) -> Rules {
        let changes = ctx.changes;
        let n = groups.len();
        let mut group_of: Vec<Option<usize>> = vec![None; changes.items.len()];
        for (g, items) in groups.iter().enumerate() {
            for &i in items {
                group_of[i] = Some(g);
            }
        }
        // A package marker set aside ends in its anchor's group or earlier,
        // so that group stands for it as an adder and as a member of a package.
        let mut stand_in = group_of.clone();
        for &(marker, anchor) in &detached.markers {
            stand_in[marker] = group_of[anchor];
        }
        let adder_group = |i: usize| stand_in[i];
        let mut moved = Vec::new();
        let mut deletes = vec![Vec::new(); n];
        for line in &changes.moves.lines {
            // A deletion set aside is placed after an addition: the line stays.
            let Some(deleters) = line
                .deleted_by
                .iter()
                .map(|&d| group_of[d])
                .collect::<Option<BTreeSet<usize>>>()
            else {
                continue;
            };
            let adders: BTreeSet<usize> = line.added_by.iter().filter_map(|&a| adder_group(a)).collect();
            if adders.is_empty() || !deleters.is_disjoint(&adders) {
                continue;
            }
            for &g in &deleters {
                deletes[g].push(moved.len());
            }
            moved.push((deleters.into_iter().collect(), adders.into_iter().collect()));
        }
        let mut packages = vec![BTreeSet::new(); n];
        for (m, items) in groups.iter().enumerate() {
            for &marker in items {
                let Some(dir) = package_of(changes, marker) else {
                    continue;
                };
                for (j, g) in stand_in.iter().enumerate() {
                    match g {
                        Some(g) if *g != m && adds_under(changes, j, dir) => {
                            packages[*g].insert(m);
                        }
                        _ => {}
                    }
                }
            }
        }
        Rules {
            moved,
            deletes,
            packages,
        }
    }

    /// Whether a rule can hold group `g` back at all: it deletes a moved
    /// line or has a package to wait for. [`Rules::blockers`] of any other
    /// group is always empty.
    pub fn holds_back(&self, g: usize) -> bool {
        !self.deletes[g].is_empty() || !self.packages[g].is_empty()
    }

    /// The groups that must come before `g`, given the groups `done`
    /// (empty when `g` may come next).
    pub fn blockers(&self, g: usize, done: &[bool]) -> Vec<usize> {
        let mut out: BTreeSet<usize> = BTreeSet::new();
        for &k in &self.deletes[g] {
            let (deleters, adders) = &self.moved[k];
            let added = adders.iter().any(|&a| done[a]);
            let last_deletion = deleters.iter().all(|&d| d == g || done[d]);
            if !added && last_deletion {
                out.extend(adders.iter().copied());
            }
        }
        out.extend(self.packages[g].iter().copied().filter(|&m| !done[m]));
        out.into_iter().collect()
    }
}
