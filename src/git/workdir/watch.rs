//! Change tracking with inotify (Linux): git's fsmonitor idea without a
//! daemon. While a run goes on, every directory of the working tree that git
//! would look into is watched, so a scan after the first one need only look
//! at the paths that changed instead of stat-ing every file.
//!
//! It is only an accelerator: a queue overflow, a directory that cannot be
//! watched, or anything else in doubt makes the caller scan everything.

#[cfg(target_os = "linux")]
use std::collections::HashMap;
use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;

/// A changed path (relative to the root), and whether the event said it is a
/// directory.
pub(crate) struct Changed {
    pub path: String,
    pub dir: bool,
}

#[cfg(target_os = "linux")]
pub(crate) struct Watcher {
    fd: i32,
    root: PathBuf,
    dir_of: HashMap<i32, String>,
    watch_of: HashMap<String, i32>,
    overflowed: bool,
}

#[cfg(target_os = "linux")]
const MASK: u32 = libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MODIFY
    | libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_ATTRIB
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_DONT_FOLLOW
    | libc::IN_ONLYDIR
    | libc::IN_EXCL_UNLINK;

#[cfg(target_os = "linux")]
impl Watcher {
    pub fn new(root: &Path) -> Option<Watcher> {
        // SAFETY: a plain syscall; the descriptor is owned by the Watcher.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        (fd >= 0).then(|| Watcher {
            fd,
            root: root.to_owned(),
            dir_of: HashMap::new(),
            watch_of: HashMap::new(),
            overflowed: false,
        })
    }

    /// Watches the directory `rel` ("" for the root); false when it cannot be.
    pub fn add(&mut self, rel: &str) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let full = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        };
        let Ok(c_path) = std::ffi::CString::new(full.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: the path is a valid C string for the duration of the call.
        let wd = unsafe { libc::inotify_add_watch(self.fd, c_path.as_ptr(), MASK) };
        if wd < 0 {
            return false;
        }
        self.dir_of.insert(wd, rel.to_owned());
        self.watch_of.insert(rel.to_owned(), wd);
        true
    }

    /// Every change since the last call, or `None` when events were lost.
    pub fn drain(&mut self) -> Option<Vec<Changed>> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reading into a buffer we own, of the given length.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let mut offset = 0usize;
            let header = std::mem::size_of::<libc::inotify_event>();
            while offset + header <= n as usize {
                // SAFETY: the kernel wrote a complete event header at `offset`;
                // read_unaligned copes with the byte buffer's alignment.
                let event: libc::inotify_event = unsafe { std::ptr::read_unaligned(buf.as_ptr().add(offset).cast()) };
                let name_start = offset + header;
                let name_end = (name_start + event.len as usize).min(n as usize);
                let name = &buf[name_start..name_end];
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                offset = name_end;
                if event.mask & libc::IN_Q_OVERFLOW != 0 {
                    self.overflowed = true;
                    continue;
                }
                let Some(dir) = self.dir_of.get(&event.wd).cloned() else {
                    continue;
                };
                if event.mask & libc::IN_IGNORED != 0 {
                    self.dir_of.remove(&event.wd);
                    self.watch_of.remove(&dir);
                    continue;
                }
                if name.is_empty() {
                    // The watched directory itself was deleted or moved; its
                    // parent reports the same as an entry. A watch follows the
                    // inode, so a moved directory's watches name old paths:
                    // forget them (the new place is watched afresh).
                    if event.mask & (libc::IN_MOVE_SELF | libc::IN_DELETE_SELF) != 0 {
                        self.forget(&dir);
                    }
                    continue;
                }
                let Ok(name) = std::str::from_utf8(name) else {
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
                let is_dir = event.mask & libc::IN_ISDIR != 0;
                if is_dir && event.mask & (libc::IN_MOVED_FROM | libc::IN_DELETE) != 0 {
                    self.forget(&path);
                }
                out.push(Changed { path, dir: is_dir });
            }
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
            // SAFETY: removing a watch of our own descriptor; failure (already gone) is fine.
            unsafe {
                libc::inotify_rm_watch(self.fd, wd);
            }
            self.watch_of.remove(&path);
            self.dir_of.remove(&wd);
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Watcher {
    fn drop(&mut self) {
        // SAFETY: closing the descriptor this Watcher owns.
        unsafe {
            libc::close(self.fd);
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
