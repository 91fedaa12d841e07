//! Objects held in memory and written as one pack.
//!
//! A rewrite that makes hundreds of commits and trees would otherwise write
//! each as a loose file (and a fan-out directory for most of them): on a
//! freshly packed repository that was most of `git historian clean`'s time.
//! A handle from [`Repo::holding_objects`] keeps what it writes in memory,
//! where it reads it back, and [`Repo::write_held_objects`] writes it all
//! as one pack and its index (version 2, as `git index-pack` makes them)
//! into `objects/pack`: the pack first, then the index that makes git see
//! it, each under a temporary name renamed into place.
//!
//! What this module must never do: let a reference point at an object that
//! is still only in memory. A holding handle writes its objects before it
//! moves any reference (`refs`), and its user writes them before anything
//! outside the process reads them.

use std::io::Write as _;
use std::path::Path;

use anyhow::{anyhow, Context as _, Result};

use gix::zlib::stream::deflate::{Compress, FlushCompress};

use crate::git::repo::{Oid, Repo};

impl Repo {
    /// Another handle on this repository that holds the objects it writes
    /// in memory until [`Repo::write_held_objects`] (or a reference update
    /// through it) writes them as one pack. Objects it holds are lost if it
    /// is dropped first, which is harmless: nothing refers to them.
    pub fn holding_objects(&self) -> Repo {
        let mut inner = self.inner.clone();
        inner.objects.enable_object_memory();
        Repo::new(inner)
    }

    /// Writes the objects this handle holds, if any, as one pack; it holds
    /// none afterwards and goes on holding new ones.
    pub fn write_held_objects(&self) -> Result<()> {
        let Some(mut held) = self.inner.objects.reset_object_memory() else {
            return Ok(());
        };
        // gix holds no object the database has already (it looks before
        // it writes), so each of these is new.
        let mut objects: Vec<(Oid, gix::objs::Kind, Vec<u8>)> =
            held.drain().map(|(id, (kind, data))| (id, kind, data)).collect();
        if objects.is_empty() {
            return Ok(());
        }
        objects.sort_by_key(|o| o.0);
        let dir = self.inner.objects.store_ref().path().join("pack");
        write_pack(&dir, self.inner.object_hash(), &objects).with_context(|| {
            format!(
                "cannot write {} new objects as a pack in {}",
                objects.len(),
                dir.display()
            )
        })
    }
}

/// Writes `objects` (sorted by id) as `pack-<checksum>.pack` and `.idx` in `dir`.
fn write_pack(dir: &Path, hash: gix::hash::Kind, objects: &[(Oid, gix::objs::Kind, Vec<u8>)]) -> Result<()> {
    let count = u32::try_from(objects.len()).map_err(|_| anyhow!("too many objects for one pack"))?;
    let mut pack = Vec::with_capacity(12 + objects.iter().map(|o| o.2.len() / 2 + 16).sum::<usize>());
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&count.to_be_bytes());
    let mut entries = Vec::with_capacity(objects.len());
    // The fastest level: gc repacks these objects (with deltas) later anyway.
    let mut compressor = Compress::new(gix::zlib::Compression::BEST_SPEED);
    for (id, kind, data) in objects {
        let offset = pack.len() as u64;
        push_entry_header(&mut pack, type_number(*kind), data.len() as u64);
        deflate(&mut compressor, data, &mut pack)?;
        entries.push((*id, crc32(&pack[offset as usize..]), offset));
    }
    let checksum = digest(hash, &pack)?;
    pack.extend_from_slice(checksum.as_slice());
    let index = index_bytes(hash, &entries, checksum)?;
    let name = format!("pack-{}", checksum.to_hex());
    let idx_path = dir.join(format!("{name}.idx"));
    if idx_path.exists() {
        // The same objects were packed before: the name is their checksum.
        return Ok(());
    }
    put(dir, &format!("{name}.pack"), &pack)?;
    put(dir, &format!("{name}.idx"), &index)
}

/// Appends `data` to `out` as one zlib stream.
fn deflate(compressor: &mut Compress, mut data: &[u8], out: &mut Vec<u8>) -> Result<()> {
    compressor.reset();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let (was_in, was_out) = (compressor.total_in(), compressor.total_out());
        let status = compressor
            .compress(data, &mut buf, FlushCompress::Finish)
            .context("cannot compress an object")?;
        data = &data[(compressor.total_in() - was_in) as usize..];
        out.extend_from_slice(&buf[..(compressor.total_out() - was_out) as usize]);
        if status == gix::zlib::Status::StreamEnd {
            return Ok(());
        }
    }
}

/// The type and size of a pack entry: the type in bits 4–6 of the first
/// byte with the size's low four bits, then seven bits a byte, each byte
/// but the last with its high bit set.
fn push_entry_header(out: &mut Vec<u8>, type_number: u8, mut size: u64) {
    let mut byte = (type_number << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size > 0 {
        out.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    out.push(byte);
}

fn type_number(kind: gix::objs::Kind) -> u8 {
    match kind {
        gix::objs::Kind::Commit => 1,
        gix::objs::Kind::Tree => 2,
        gix::objs::Kind::Blob => 3,
        gix::objs::Kind::Tag => 4,
    }
}

/// The index (version 2) of a pack whose entries are `(id, crc, offset)`,
/// sorted by id.
fn index_bytes(hash: gix::hash::Kind, entries: &[(Oid, u32, u64)], pack_checksum: Oid) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(8 + 256 * 4 + entries.len() * (hash.len_in_bytes() + 8) + 64);
    out.extend_from_slice(&[0xff, b't', b'O', b'c']);
    out.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (id, _, _) in entries {
        fanout[usize::from(id.as_slice()[0])] += 1;
    }
    let mut total = 0u32;
    for n in fanout {
        total += n;
        out.extend_from_slice(&total.to_be_bytes());
    }
    for (id, _, _) in entries {
        out.extend_from_slice(id.as_slice());
    }
    for (_, crc, _) in entries {
        out.extend_from_slice(&crc.to_be_bytes());
    }
    // Offsets past 2 GiB go to a table of 8-byte offsets, pointed at with the high bit.
    let mut large = Vec::new();
    for (_, _, offset) in entries {
        let small = match u32::try_from(*offset) {
            Ok(o) if o < 0x8000_0000 => o,
            _ => {
                large.push(*offset);
                0x8000_0000 | (large.len() as u32 - 1)
            }
        };
        out.extend_from_slice(&small.to_be_bytes());
    }
    for offset in large {
        out.extend_from_slice(&offset.to_be_bytes());
    }
    out.extend_from_slice(pack_checksum.as_slice());
    let checksum = digest(hash, &out)?;
    out.extend_from_slice(checksum.as_slice());
    Ok(out)
}

fn digest(hash: gix::hash::Kind, data: &[u8]) -> Result<Oid> {
    let mut hasher = gix::hash::hasher(hash);
    hasher.update(data);
    hasher.try_finalize().context("cannot hash the pack")
}

/// Writes `data` to `dir/name` under a temporary name first (removed if
/// anything fails), read-only as git makes packs.
fn put(dir: &Path, name: &str, data: &[u8]) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let temporary = dir.join(format!("tmp_pack_{}_{nanos}", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(data)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            file.set_permissions(std::fs::Permissions::from_mode(0o444))?;
        }
        drop(file);
        std::fs::rename(&temporary, dir.join(name))
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    Ok(written?)
}

/// CRC-32 (IEEE), as pack indexes record for each entry.
fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xedb8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut c = !0u32;
    for &byte in data {
        c = TABLE[((c ^ u32::from(byte)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_the_ieee_one() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn entry_headers_carry_type_and_size() {
        let header = |t, size| {
            let mut v = Vec::new();
            push_entry_header(&mut v, t, size);
            v
        };
        assert_eq!(header(1, 15), vec![0x1f]);
        assert_eq!(header(3, 16), vec![0xb0, 0x01]);
        assert_eq!(header(2, 300), vec![0xac, 0x12]);
    }
}
