//! Reading many small loose objects one after another: what a reader of
//! every step's entry does (a run's state keeps a thousand folders of ten
//! steps, each a tree and a `steps.json`, loose until git packs them).
//!
//! gix maps each loose object's file and sets up a zlib stream for it,
//! about 35 µs an object; an [`ObjectReader`] reads the file into one
//! buffer and inflates it with one stream, reset between objects. An object
//! that is not loose (packed, in an alternate, written in memory) or does
//! not read cleanly is read through gix, which also reports what is wrong
//! with it. Large objects go through gix as well, which keeps decoded
//! objects in its cache.

use std::io::Read as _;
use std::path::PathBuf;

use anyhow::{anyhow, Context as _, Result};
use gix::bstr::ByteSlice;

use super::{kind, EntryKind};
use crate::git::repo::{Oid, Repo};

/// Compressed files larger than this are left to gix (and its cache).
const LARGEST: u64 = 64 * 1024;

/// A reader of trees and blobs that reads loose objects itself.
pub struct ObjectReader<'r> {
    repo: &'r Repo,
    objects: PathBuf,
    inflate: gix::zlib::Inflate,
    /// The compressed file last read.
    file: Vec<u8>,
    /// Its inflated content.
    data: Vec<u8>,
}

impl Repo {
    /// A reader for many small objects read one after another.
    pub fn object_reader(&self) -> ObjectReader<'_> {
        ObjectReader {
            repo: self,
            objects: self.common_dir().join("objects"),
            inflate: gix::zlib::Inflate::default(),
            file: Vec::new(),
            data: Vec::new(),
        }
    }
}

impl ObjectReader<'_> {
    /// The object `id` if it is `kind`, into `self.data`: read loose when
    /// it is, else through gix.
    fn load(&mut self, id: Oid, kind: gix::object::Kind) -> Result<()> {
        if self.load_loose(id) == Some(kind) {
            return Ok(());
        }
        let object = self
            .repo
            .inner
            .find_object(id)
            .with_context(|| format!("cannot read object {id}"))?;
        if object.kind != kind {
            return Err(anyhow!("object {id} is a {}, not a {kind}", object.kind));
        }
        self.data.clear();
        self.data.extend_from_slice(&object.data);
        Ok(())
    }

    /// Reads the loose object `id` into `self.data`: its kind, or `None`
    /// when it is not loose, is large, or does not read cleanly.
    fn load_loose(&mut self, id: Oid) -> Option<gix::object::Kind> {
        let hex = id.to_hex().to_string();
        let path = self.objects.join(&hex[..2]).join(&hex[2..]);
        let mut file = std::fs::File::open(path).ok()?;
        if file.metadata().ok()?.len() > LARGEST {
            return None;
        }
        self.file.clear();
        file.read_to_end(&mut self.file).ok()?;
        self.inflate.reset();
        let mut header = [0u8; 64];
        let (status, used, written) = self.inflate.prefix(&self.file, &mut header).ok()?;
        if status == gix::zlib::Status::BufError {
            return None;
        }
        let (kind, size, header_len) = gix::objs::decode::loose_header(&header[..written]).ok()?;
        let size = usize::try_from(size).ok()?;
        if written < header_len || written - header_len > size {
            return None;
        }
        if status == gix::zlib::Status::StreamEnd {
            self.data.clear();
            self.data.extend_from_slice(&header[header_len..written]);
        } else {
            let rest = self.file.get(used..)?;
            self.inflate
                .rest(rest, &header[..written], header_len, &mut self.data, size)
                .ok()?;
        }
        (self.data.len() == size).then_some(kind)
    }

    /// The entry named `name` in the tree last loaded.
    fn entry(&self, name: &str) -> Result<Option<(Oid, EntryKind)>> {
        for entry in gix::objs::TreeRefIter::from_bytes(&self.data, self.repo.inner.object_hash()) {
            let entry = entry.map_err(|e| anyhow!("cannot decode a tree: {e}"))?;
            if entry.filename == name.as_bytes().as_bstr() {
                return Ok(Some((entry.oid.to_owned(), kind(entry.mode))));
            }
        }
        Ok(None)
    }

    /// The entry at `path` in `tree` ([`Repo::tree_entry`]).
    pub fn tree_entry(&mut self, tree: Oid, path: &str) -> Result<Option<(Oid, EntryKind)>> {
        let mut at = (tree, EntryKind::Tree);
        for name in path.split('/').filter(|n| !n.is_empty()) {
            if at.1 != EntryKind::Tree {
                return Ok(None);
            }
            self.load(at.0, gix::object::Kind::Tree)
                .with_context(|| format!("cannot read tree {}", at.0))?;
            match self.entry(name)? {
                Some(entry) => at = entry,
                None => return Ok(None),
            }
        }
        Ok(Some(at))
    }

    /// The blob at `path` in `tree` ([`Repo::read_path`]).
    pub fn read_path(&mut self, tree: Oid, path: &str) -> Result<Option<Vec<u8>>> {
        match self.tree_entry(tree, path)? {
            Some((id, EntryKind::Blob | EntryKind::Executable | EntryKind::Link)) => {
                self.load(id, gix::object::Kind::Blob)
                    .with_context(|| format!("cannot read blob {id}"))?;
                Ok(Some(self.data.clone()))
            }
            _ => Ok(None),
        }
    }

    /// The names and kinds of `tree`'s direct entries ([`Repo::list_tree`]).
    pub fn list_tree(&mut self, tree: Oid) -> Result<Vec<(String, Oid, EntryKind)>> {
        self.load(tree, gix::object::Kind::Tree)
            .with_context(|| format!("cannot read tree {tree}"))?;
        gix::objs::TreeRefIter::from_bytes(&self.data, self.repo.inner.object_hash())
            .map(|e| {
                let e = e.map_err(|e| anyhow!("cannot decode tree {tree}: {e}"))?;
                Ok((e.filename.to_str_lossy().into_owned(), e.oid.to_owned(), kind(e.mode)))
            })
            .collect()
    }
}
