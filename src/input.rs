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

/// `bytes` as text, or why they are not UTF-8 text, as the end of a
/// sentence: what the file looks like — UTF-16 by its byte order mark,
/// binary by a NUL byte in its first 8,000 bytes (git's own test) — or else
/// where the first byte that is not UTF-8 is (line and column, counted as
/// an editor counts them) and how to convert a file in another encoding.
pub fn utf8_text(bytes: Vec<u8>) -> Result<String, String> {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return Ok(text),
        Err(e) => e.into_bytes(),
    };
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(
            "it is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8; convert it: iconv -f UTF-16 -t UTF-8"
                .to_owned(),
        );
    }
    if bytes.iter().take(8000).any(|&b| b == 0) {
        return Err("it is a binary file (it holds a NUL byte), not UTF-8 text".to_owned());
    }
    let valid = match std::str::from_utf8(&bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    // The prefix up to the first bad byte is UTF-8 by definition.
    let before = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Err(format!(
        "it is not UTF-8 text: line {line}, column {column} holds the byte 0x{:02X}; a file in another encoding (such as Latin-1) can be converted: iconv -f LATIN1 -t UTF-8",
        bytes[valid]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_utf8_is_named_where_and_what() {
        assert_eq!(utf8_text(b"# plan\n".to_vec()).unwrap(), "# plan\n");
        let latin1 = utf8_text(b"# plan\n\nStep caf\xe9\n".to_vec()).unwrap_err();
        assert!(latin1.contains("line 3, column 9 holds the byte 0xE9"), "{latin1}");
        let after_utf8 = utf8_text("aé".bytes().chain([0xff]).collect()).unwrap_err();
        assert!(after_utf8.contains("line 1, column 3"), "{after_utf8}");
        assert!(utf8_text(vec![0xff, 0xfe, b'#', 0]).unwrap_err().contains("UTF-16"));
        assert!(utf8_text(vec![0x7f, b'E', b'L', b'F', 0, 0xff])
            .unwrap_err()
            .contains("binary"));
    }

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
