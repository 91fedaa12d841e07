//! Reading a file the user names (a plan, a historian plan file): only a
//! regular file, and only up to a size limit, so that a path to a device
//! (`/dev/zero`), a named pipe or a socket — or a symbolic link to one — is
//! refused with the reason instead of read without end or waited on forever.
//!
//! The file is opened without blocking (a FIFO swapped in after the check
//! cannot hold the open), checked on the open handle (what is read is what
//! was checked), and read through a limit one byte past the bound, so a
//! file that grows while it is read is refused too.

use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum InputError {
    /// It could not be opened or read.
    Io(std::io::Error),
    /// It is not a regular file: what it is (`a named pipe (FIFO)`).
    NotAFile(&'static str),
    /// It holds more than the limit (in bytes).
    TooLarge(u64),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Io(e) => write!(f, "{e}"),
            InputError::NotAFile(what) => write!(f, "it is {what}, not a regular file; only regular files are read"),
            InputError::TooLarge(limit) => write!(f, "it is larger than {}", shown_size(*limit)),
        }
    }
}

impl std::error::Error for InputError {}

fn shown_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// What kind of file `meta` describes, when it is not a regular file or a
/// directory.
pub fn special_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe (FIFO)");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a file")
}

/// The bytes of the regular file at `path` (a symbolic link is followed to
/// what it names), at most `limit` of them.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let meta = std::fs::metadata(path).map_err(InputError::Io)?;
    if let Some(kind) = special_kind(&meta) {
        return Err(InputError::NotAFile(kind));
    }
    if meta.is_dir() {
        return Err(InputError::NotAFile("a directory"));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = options.open(path).map_err(InputError::Io)?;
    let meta = file.metadata().map_err(InputError::Io)?;
    if let Some(kind) = special_kind(&meta) {
        return Err(InputError::NotAFile(kind));
    }
    if meta.len() > limit {
        return Err(InputError::TooLarge(limit));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(InputError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge(limit));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_others_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plan.md");
        std::fs::write(&file, "# plan\n").unwrap();
        assert_eq!(read_regular(&file, 100).unwrap(), b"# plan\n");
        assert!(matches!(read_regular(&file, 3), Err(InputError::TooLarge(3))));
        assert!(matches!(read_regular(dir.path(), 100), Err(InputError::NotAFile(_))));
        let err = read_regular(Path::new("/dev/zero"), 100).unwrap_err();
        assert_eq!(
            err.to_string(),
            "it is a character device, not a regular file; only regular files are read"
        );
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(matches!(read_regular(&link, 100), Err(InputError::NotAFile(_))));
        let fifo = dir.path().join("fifo.md");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let err = read_regular(&fifo, 100).unwrap_err();
        assert!(err.to_string().contains("named pipe"), "{err}");
    }
}
