//! What a validator run sees of the deliverables: the snapshot, and only
//! the snapshot.
//!
//! Two doors lead to the same bytes. The `deliverables` interface (in
//! `sandbox.rs`) and `/deliverables`, a read-only WASI filesystem that this
//! module serves from the snapshot — never from the live root. A validator
//! that reads with `std::fs` or Python's `open()` gets the bytes the host
//! hashed (kept in memory, or re-read and checked against their digest),
//! so a file rewritten while it runs, and rewritten back before the run
//! ends, cannot show it other bytes. Only hashed files exist there:
//! symlinks, FIFOs, devices and files vcc would not hash are absent. Every
//! write, create, rename, link, delete and time change is refused with
//! `read-only`. Both doors record what was read, with its digest
//! (`files_read`).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use bytes::Bytes;
use wasmtime::component::{HasData, Resource, ResourceTable};
use wasmtime_wasi::p2::bindings::filesystem::preopens;
use wasmtime_wasi::p2::bindings::filesystem::types as async_types;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    self as fs, Advice, Descriptor, DescriptorFlags, DescriptorStat, DescriptorType,
    DirectoryEntry, DirectoryEntryStream, ErrorCode, Filesize, MetadataHashValue, NewTimestamp,
    OpenFlags, PathFlags,
};
use wasmtime_wasi::p2::bindings::sync::io::streams;
use wasmtime_wasi::p2::{FsError, FsResult, InputStream, Pollable, StreamError, StreamResult};

use vcc_contract::view::Miss;
pub use vcc_contract::view::Tree;

use crate::snapshot::{FileEntry, Snapshot};

/// Where the deliverable root is mounted in the guest.
pub const GUEST_ROOT: &str = "/deliverables";

/// The snapshot as one run sees it, and what it read.
pub struct FileAccess {
    pub snapshot: Arc<Snapshot>,
    pub tree: Arc<OnceLock<Tree>>,
    /// Every deliverable id → its files (for `list-files`).
    pub deliverables: Arc<HashMap<String, Vec<String>>>,
    /// Deliverable ids in contract order.
    pub order: Vec<String>,
    /// Path → digest of every file read, through either door.
    pub reads: BTreeMap<String, String>,
    /// Every file looked up (read, stat'ed, listed by path): what the
    /// second look stats again (`check::verdict::look_again`), since a
    /// validator may judge a file by its size or digest alone.
    pub consulted: RefCell<BTreeSet<String>>,
    /// No single file larger than this is read into the host for a guest.
    pub read_cap: u64,
    /// Reads stop when the run's budget is spent, even inside a long read.
    pub deadline: Instant,
    /// A file's bytes no longer matched the digest when re-read.
    pub saw_change: bool,
    /// The keys the trust policy names for records (`signatures`).
    pub signers: Option<Arc<crate::signatures::RecordSigners>>,
}

impl FileAccess {
    /// The snapshot's folders: made once per check, on first use (most
    /// validators never look up a path), and shared by its runs.
    fn tree(&self) -> &Tree {
        self.tree.get_or_init(|| Tree::of(self.snapshot.visible()))
    }

    /// A file of the snapshot. A path the check left out says so, with
    /// the rule (`excluded: …`), so a validator can tell "not a
    /// deliverable" from "missing".
    pub fn entry(&self, path: &str) -> Result<&FileEntry, String> {
        if self.snapshot.is_reserved(path) {
            return Err(format!(
                "{path}: kept for the file the caller attaches, which it did not give; the file here is not read"
            ));
        }
        let found = self.snapshot.files.get(path);
        if found.is_some() {
            self.consulted.borrow_mut().insert(path.to_string());
        }
        found.ok_or_else(|| {
            let spec = vcc_contract::paths::PathSpec::Literal(path.to_string());
            match self.snapshot.hidden_by(&spec) {
                Some(e) => format!(
                    "excluded: {path} is left out by the check (`{}`: {})",
                    e.path, e.rule
                ),
                None => format!("{path}: no such file in the deliverable snapshot"),
            }
        })
    }

    /// The hashed bytes of a file (snapshot key), recorded as read.
    pub fn read(&mut self, path: &str) -> Result<Arc<[u8]>, String> {
        let entry = self.entry(path)?;
        if entry.size > self.read_cap {
            return Err(format!(
                "{path}: {} bytes is more than this run's memory limit",
                entry.size
            ));
        }
        let digest = entry.digest_string();
        match self.snapshot.read_before(path, self.deadline) {
            Ok(bytes) => {
                self.reads.insert(path.to_string(), digest);
                Ok(bytes)
            }
            Err(err) => {
                self.saw_change = true;
                Err(err)
            }
        }
    }
}

/// One open descriptor of the virtual filesystem.
enum Node {
    Dir(String),
    /// A file; its bytes once read.
    File {
        path: String,
        bytes: Option<Arc<[u8]>>,
    },
}

/// An open `read-directory` listing.
struct Listing {
    /// Shared with the tree: holding listings open costs no copies.
    entries: Arc<[(String, bool)]>,
    next: usize,
}

/// A file's bytes as a WASI input stream.
struct ByteStream {
    bytes: Bytes,
}

#[wasmtime_wasi::async_trait]
impl Pollable for ByteStream {
    async fn ready(&mut self) {}
}

impl InputStream for ByteStream {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        if self.bytes.is_empty() {
            return Err(StreamError::Closed);
        }
        let n = size.min(self.bytes.len());
        Ok(self.bytes.split_to(n))
    }
}

/// The guest's view of `/deliverables`, for the WASI filesystem bindings.
pub struct SnapshotFs<'a> {
    pub table: &'a mut ResourceTable,
    /// `None` during `describe` and `check-params`: no files at all.
    pub files: Option<&'a mut FileAccess>,
}

/// Binds [`SnapshotFs`] to the linker's WASI filesystem imports.
pub struct SnapshotFsData;

impl HasData for SnapshotFsData {
    type Data<'a> = SnapshotFs<'a>;
}

/// 2000-01-01T00:00:00Z: the sandbox's fixed time, for every timestamp.
const EPOCH: wasmtime_wasi::p2::bindings::clocks::wall_clock::Datetime =
    wasmtime_wasi::p2::bindings::clocks::wall_clock::Datetime {
        seconds: 946_684_800,
        nanoseconds: 0,
    };

fn err(code: async_types::ErrorCode) -> FsError {
    code.into()
}

fn read_only<T>() -> FsResult<T> {
    Err(err(async_types::ErrorCode::ReadOnly))
}

fn metadata_hash(path: &str) -> MetadataHashValue {
    let hash = blake3::hash(path.as_bytes());
    let bytes = hash.as_bytes();
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(w)
    };
    MetadataHashValue {
        lower: word(0),
        upper: word(8),
    }
}

impl SnapshotFs<'_> {
    fn node(&self, fd: &Resource<Descriptor>) -> FsResult<&Node> {
        Ok(self.table.get(&Resource::<Node>::new_borrow(fd.rep()))?)
    }

    fn files(&mut self) -> FsResult<&mut FileAccess> {
        self.files
            .as_deref_mut()
            .ok_or_else(|| err(async_types::ErrorCode::BadDescriptor))
    }

    /// The folder a descriptor is, or `not-directory`.
    fn dir(&self, fd: &Resource<Descriptor>) -> FsResult<String> {
        match self.node(fd)? {
            Node::Dir(path) => Ok(path.clone()),
            Node::File { .. } => Err(err(async_types::ErrorCode::NotDirectory)),
        }
    }

    /// What `path`, relative to folder `fd`, names: (path, is a folder).
    /// Outside the mount is `not-permitted`, as WASI's own view says.
    fn lookup(&mut self, fd: &Resource<Descriptor>, path: &str) -> FsResult<(String, bool)> {
        let base = self.dir(fd)?;
        self.files()?.tree().resolve(&base, path).map_err(|miss| {
            err(match miss {
                Miss::Absolute | Miss::AboveRoot => async_types::ErrorCode::NotPermitted,
                Miss::NoEntry => async_types::ErrorCode::NoEntry,
                Miss::NotDirectory => async_types::ErrorCode::NotDirectory,
            })
        })
    }

    fn stat_of(&mut self, path: &str, is_dir: bool) -> FsResult<DescriptorStat> {
        let size = if is_dir {
            0
        } else {
            self.files()?
                .entry(path)
                .map_err(|_| err(async_types::ErrorCode::NoEntry))?
                .size
        };
        Ok(DescriptorStat {
            type_: if is_dir {
                DescriptorType::Directory
            } else {
                DescriptorType::RegularFile
            },
            link_count: 1,
            size,
            data_access_timestamp: Some(EPOCH),
            data_modification_timestamp: Some(EPOCH),
            status_change_timestamp: Some(EPOCH),
        })
    }

    /// A file descriptor's bytes, read (and recorded) on first use.
    fn bytes(&mut self, fd: &Resource<Descriptor>) -> FsResult<Arc<[u8]>> {
        let path = match self.node(fd)? {
            Node::File {
                bytes: Some(bytes), ..
            } => return Ok(bytes.clone()),
            Node::File { path, .. } => path.clone(),
            Node::Dir(_) => return Err(err(async_types::ErrorCode::IsDirectory)),
        };
        let bytes = self
            .files()?
            .read(&path)
            .map_err(|_| err(async_types::ErrorCode::Io))?;
        if let Node::File { bytes: slot, .. } = self
            .table
            .get_mut(&Resource::<Node>::new_borrow(fd.rep()))?
        {
            *slot = Some(bytes.clone());
        }
        Ok(bytes)
    }

    fn push(&mut self, node: Node) -> FsResult<Resource<Descriptor>> {
        let own = self.table.push(node)?;
        Ok(Resource::new_own(own.rep()))
    }
}

impl fs::Host for SnapshotFs<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<ErrorCode> {
        Ok(err.downcast()?.into())
    }

    fn filesystem_error_code(
        &mut self,
        _err: Resource<streams::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        // The byte streams never fail: they only end.
        Ok(None)
    }
}

impl fs::HostDescriptor for SnapshotFs<'_> {
    fn advise(
        &mut self,
        fd: Resource<Descriptor>,
        _: Filesize,
        _: Filesize,
        _: Advice,
    ) -> FsResult<()> {
        self.node(&fd).map(|_| ())
    }

    fn sync_data(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.node(&fd).map(|_| ())
    }

    fn get_flags(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        self.node(&fd).map(|_| DescriptorFlags::READ)
    }

    fn get_type(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorType> {
        Ok(match self.node(&fd)? {
            Node::Dir(_) => DescriptorType::Directory,
            Node::File { .. } => DescriptorType::RegularFile,
        })
    }

    fn set_size(&mut self, _: Resource<Descriptor>, _: Filesize) -> FsResult<()> {
        read_only()
    }

    fn set_times(
        &mut self,
        _: Resource<Descriptor>,
        _: NewTimestamp,
        _: NewTimestamp,
    ) -> FsResult<()> {
        read_only()
    }

    fn read(
        &mut self,
        fd: Resource<Descriptor>,
        len: Filesize,
        offset: Filesize,
    ) -> FsResult<(Vec<u8>, bool)> {
        let bytes = self.bytes(&fd)?;
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let end = start
            .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
            .min(bytes.len());
        Ok((bytes[start..end].to_vec(), end == bytes.len()))
    }

    fn write(&mut self, _: Resource<Descriptor>, _: Vec<u8>, _: Filesize) -> FsResult<Filesize> {
        read_only()
    }

    fn read_directory(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<DirectoryEntryStream>> {
        let dir = self.dir(&fd)?;
        let entries = self
            .files()?
            .tree()
            .entries(&dir)
            .cloned()
            .unwrap_or_default();
        let own = self.table.push(Listing { entries, next: 0 })?;
        Ok(Resource::new_own(own.rep()))
    }

    fn sync(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.node(&fd).map(|_| ())
    }

    fn create_directory_at(&mut self, _: Resource<Descriptor>, _: String) -> FsResult<()> {
        read_only()
    }

    fn stat(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorStat> {
        let (path, is_dir) = match self.node(&fd)? {
            Node::Dir(path) => (path.clone(), true),
            Node::File { path, .. } => (path.clone(), false),
        };
        self.stat_of(&path, is_dir)
    }

    fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        _: PathFlags,
        path: String,
    ) -> FsResult<DescriptorStat> {
        let (path, is_dir) = self.lookup(&fd, &path)?;
        self.stat_of(&path, is_dir)
    }

    fn set_times_at(
        &mut self,
        _: Resource<Descriptor>,
        _: PathFlags,
        _: String,
        _: NewTimestamp,
        _: NewTimestamp,
    ) -> FsResult<()> {
        read_only()
    }

    fn link_at(
        &mut self,
        _: Resource<Descriptor>,
        _: PathFlags,
        _: String,
        _: Resource<Descriptor>,
        _: String,
    ) -> FsResult<()> {
        read_only()
    }

    fn open_at(
        &mut self,
        fd: Resource<Descriptor>,
        _: PathFlags,
        path: String,
        open: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let found = self.lookup(&fd, &path);
        if open.contains(OpenFlags::CREATE) && open.contains(OpenFlags::EXCLUSIVE) && found.is_ok()
        {
            return Err(err(async_types::ErrorCode::Exist));
        }
        if open.intersects(OpenFlags::CREATE | OpenFlags::TRUNCATE)
            || flags.intersects(DescriptorFlags::WRITE | DescriptorFlags::MUTATE_DIRECTORY)
        {
            return read_only();
        }
        let (path, is_dir) = found?;
        if open.contains(OpenFlags::DIRECTORY) && !is_dir {
            return Err(err(async_types::ErrorCode::NotDirectory));
        }
        self.push(if is_dir {
            Node::Dir(path)
        } else {
            Node::File { path, bytes: None }
        })
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.table.delete(Resource::<Node>::new_own(fd.rep()))?;
        Ok(())
    }

    fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        // There are no symlinks here: whatever the path names is not one.
        self.lookup(&fd, &path)?;
        Err(err(async_types::ErrorCode::Invalid))
    }

    fn remove_directory_at(&mut self, _: Resource<Descriptor>, _: String) -> FsResult<()> {
        read_only()
    }

    fn rename_at(
        &mut self,
        _: Resource<Descriptor>,
        _: String,
        _: Resource<Descriptor>,
        _: String,
    ) -> FsResult<()> {
        read_only()
    }

    fn symlink_at(&mut self, _: Resource<Descriptor>, _: String, _: String) -> FsResult<()> {
        read_only()
    }

    fn unlink_file_at(&mut self, _: Resource<Descriptor>, _: String) -> FsResult<()> {
        read_only()
    }

    fn read_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: Filesize,
    ) -> FsResult<Resource<streams::InputStream>> {
        let bytes = self.bytes(&fd)?;
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let stream: Box<dyn InputStream> = Box::new(ByteStream {
            bytes: Bytes::from_owner(bytes).slice(start..),
        });
        Ok(self.table.push(stream)?)
    }

    fn write_via_stream(
        &mut self,
        _: Resource<Descriptor>,
        _: Filesize,
    ) -> FsResult<Resource<streams::OutputStream>> {
        read_only()
    }

    fn append_via_stream(
        &mut self,
        _: Resource<Descriptor>,
    ) -> FsResult<Resource<streams::OutputStream>> {
        read_only()
    }

    fn is_same_object(
        &mut self,
        a: Resource<Descriptor>,
        b: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        let path = |node: &Node| match node {
            Node::Dir(p) => (p.clone(), true),
            Node::File { path, .. } => (path.clone(), false),
        };
        let a = path(self.table.get(&Resource::<Node>::new_borrow(a.rep()))?);
        let b = path(self.table.get(&Resource::<Node>::new_borrow(b.rep()))?);
        Ok(a == b)
    }

    fn metadata_hash(&mut self, fd: Resource<Descriptor>) -> FsResult<MetadataHashValue> {
        Ok(match self.node(&fd)? {
            Node::Dir(p) | Node::File { path: p, .. } => metadata_hash(p),
        })
    }

    fn metadata_hash_at(
        &mut self,
        fd: Resource<Descriptor>,
        _: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        let (path, _) = self.lookup(&fd, &path)?;
        Ok(metadata_hash(&path))
    }
}

impl fs::HostDirectoryEntryStream for SnapshotFs<'_> {
    fn read_directory_entry(
        &mut self,
        stream: Resource<DirectoryEntryStream>,
    ) -> FsResult<Option<DirectoryEntry>> {
        let listing = self
            .table
            .get_mut(&Resource::<Listing>::new_borrow(stream.rep()))?;
        let Some((name, is_dir)) = listing.entries.get(listing.next).cloned() else {
            return Ok(None);
        };
        listing.next += 1;
        Ok(Some(DirectoryEntry {
            type_: if is_dir {
                DescriptorType::Directory
            } else {
                DescriptorType::RegularFile
            },
            name,
        }))
    }

    fn drop(&mut self, stream: Resource<DirectoryEntryStream>) -> wasmtime::Result<()> {
        self.table
            .delete(Resource::<Listing>::new_own(stream.rep()))?;
        Ok(())
    }
}

impl preopens::Host for SnapshotFs<'_> {
    fn get_directories(&mut self) -> wasmtime::Result<Vec<(Resource<Descriptor>, String)>> {
        if self.files.is_none() {
            return Ok(Vec::new());
        }
        let own = self.table.push(Node::Dir(String::new()))?;
        Ok(vec![(Resource::new_own(own.rep()), GUEST_ROOT.to_string())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_made_from_file_paths() {
        let dir = tempfile::tempdir().unwrap();
        for p in ["a.md", "docs/b.md", "docs/sub/c.md", "docs-x/d.md"] {
            let path = dir.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        let snap = Snapshot::take(
            dir.path(),
            crate::snapshot::WalkLimits::default(),
            vcc_contract::Excludes::none(),
            &crate::memo::Memo::default(),
        )
        .unwrap();
        let tree = Tree::of(snap.files.keys());
        let names = |d: &str| -> Vec<(String, bool)> { tree.entries(d).unwrap().to_vec() };
        assert_eq!(
            names(""),
            vec![
                ("a.md".into(), false),
                ("docs".into(), true),
                ("docs-x".into(), true)
            ]
        );
        assert_eq!(
            names("docs"),
            vec![("b.md".into(), false), ("sub".into(), true)]
        );
        assert!(tree.is_dir("docs/sub"));
        assert!(!tree.is_dir("docs/b.md"));
    }
}
