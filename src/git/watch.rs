//! Change tracking with inotify (Linux): git's fsmonitor idea without a
//! daemon. While a run goes on, every directory of the working tree that git
//! would look into is watched, so a scan after the first one need only look
//! at the paths that changed instead of stat-ing every file.
//!
//! It is only an accelerator: a queue overflow, a directory that cannot be
//! watched, or anything else in doubt makes the caller scan everything.

#[cfg(target_os = "linux")]
use std::collections::HashMap;
#[cfg(target_os = "linux")]
use std::os::fd::OwnedFd;
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;

#[cfg(target_os = "linux")]
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

/// A changed path (relative to the root), and whether the event said it is a
/// directory.
pub(crate) struct Changed {
    pub path: String,
    pub dir: bool,
}

#[cfg(target_os = "linux")]
pub(crate) struct Watcher {
    fd: OwnedFd,
    root: PathBuf,
    dir_of: HashMap<i32, String>,
    watch_of: HashMap<String, i32>,
    overflowed: bool,
}

#[cfg(target_os = "linux")]
const MASK: WatchFlags = WatchFlags::CREATE
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MODIFY)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::DONT_FOLLOW)
    .union(WatchFlags::ONLYDIR)
    .union(WatchFlags::EXCL_UNLINK);

#[cfg(target_os = "linux")]
impl Watcher {
    pub fn new(root: &Path) -> Option<Watcher> {
        let fd = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()?;
        Some(Watcher {
            fd,
            root: root.to_owned(),
            dir_of: HashMap::new(),
            watch_of: HashMap::new(),
            overflowed: false,
        })
    }

    /// Watches the directory `rel` ("" for the root); false when it cannot be.
    pub fn add(&mut self, rel: &str) -> bool {
        let full = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        };
        let Ok(wd) = inotify::add_watch(&self.fd, &full, MASK) else {
            return false;
        };
        self.dir_of.insert(wd, rel.to_owned());
        self.watch_of.insert(rel.to_owned(), wd);
        true
    }

    /// Every change since the last call, or `None` when events were lost.
    pub fn drain(&mut self) -> Option<Vec<Changed>> {
        let mut out = Vec::new();
        let mut buf = vec![std::mem::MaybeUninit::<u8>::uninit(); 64 * 1024];
        let mut reader = inotify::Reader::new(&self.fd, &mut buf);
        let mut events = Vec::new();
        // Until the queue is empty (`EAGAIN`) or unreadable.
        while let Ok(event) = reader.next() {
            let name = event.file_name().map_or_else(Vec::new, |n| n.to_bytes().to_vec());
            events.push((event.wd(), event.events(), name));
        }
        for (wd, mask, name) in events {
            if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
                self.overflowed = true;
                continue;
            }
            let Some(dir) = self.dir_of.get(&wd).cloned() else {
                continue;
            };
            if mask.contains(ReadFlags::IGNORED) {
                self.dir_of.remove(&wd);
                self.watch_of.remove(&dir);
                continue;
            }
            if name.is_empty() {
                // The watched directory itself was deleted or moved; its
                // parent reports the same as an entry. A watch follows the
                // inode, so a moved directory's watches name old paths:
                // forget them (the new place is watched afresh).
                if mask.intersects(ReadFlags::MOVE_SELF | ReadFlags::DELETE_SELF) {
                    self.forget(&dir);
                }
                continue;
            }
            let Ok(name) = std::str::from_utf8(&name) else {
                self.overflowed = true; // a name we cannot represent: scan everything
                continue;
            };
            let path = if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            };
            if path == ".git" || path.starts_with(".git/") {
                continue;
            }
            let is_dir = mask.contains(ReadFlags::ISDIR);
            if is_dir && mask.intersects(ReadFlags::MOVED_FROM | ReadFlags::DELETE) {
                self.forget(&path);
            }
            out.push(Changed { path, dir: is_dir });
        }
        if self.overflowed {
            None
        } else {
            Some(out)
        }
    }

    /// Whether `rel` is watched.
    pub fn watches(&self, rel: &str) -> bool {
        self.watch_of.contains_key(rel)
    }

    /// Stops watching `rel` and everything below it.
    fn forget(&mut self, rel: &str) {
        let below = format!("{rel}/");
        let gone: Vec<(String, i32)> = self
            .watch_of
            .iter()
            .filter(|(p, _)| p.as_str() == rel || p.starts_with(&below) || rel.is_empty())
            .map(|(p, wd)| (p.clone(), *wd))
            .collect();
        for (path, wd) in gone {
            // Failure (the watch is already gone) is fine.
            let _ = inotify::remove_watch(&self.fd, wd);
            self.watch_of.remove(&path);
            self.dir_of.remove(&wd);
        }
    }
}

/// Elsewhere every scan is a full one.
#[cfg(not(target_os = "linux"))]
pub(crate) struct Watcher;

#[cfg(not(target_os = "linux"))]
impl Watcher {
    pub fn new(_root: &Path) -> Option<Watcher> {
        None
    }
    pub fn add(&mut self, _rel: &str) -> bool {
        false
    }
    pub fn drain(&mut self) -> Option<Vec<Changed>> {
        None
    }
    pub fn watches(&self, _rel: &str) -> bool {
        false
    }
}
