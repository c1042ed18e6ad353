//! Commits and trees from a repository's object store: loose objects
//! (zlib) and packs (`.idx` version 2 beside each `.pack`, with offset
//! and reference deltas). Every object read is hashed again and must be
//! the id it was asked for, so a pack or index that lies is not believed
//! (and a tree cannot contain itself). Bounded everywhere: object size,
//! delta chains, tree depth and size. Alternates, commit graphs and
//! multi-pack indexes are not read; an object found nowhere else is not
//! known.

use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::{EXECUTABLE, Flat, GITLINK, Kind, REGULAR, SYMLINK, safe_path, to_hex};

/// No commit or tree (or delta) larger than this is read.
const MAX_OBJECT: usize = 64 << 20;
/// The deltas of one object, together, at most.
const MAX_CHAIN_BYTES: usize = 256 << 20;
/// Deltas on deltas (git's deepest `--depth` is 4095).
const MAX_CHAIN: usize = 4096;
/// An `.idx` larger than this is not read (one of ten million objects
/// is about 280 MiB).
const MAX_IDX: u64 = 512 << 20;
/// Packs looked at, at most.
const MAX_PACKS: usize = 1024;
/// Folders in folders.
const MAX_DEPTH: usize = 1024;
/// Entries (files, links, submodules and folders) in one tree, all
/// folders down: a tree naming one folder many times is read as many
/// times, so folders count too.
const MAX_ENTRIES: usize = 10_000_000;

const TREE: u32 = 0o040000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Commit,
    Tree,
    Blob,
    Tag,
}

impl Type {
    fn name(self) -> &'static str {
        match self {
            Type::Commit => "commit",
            Type::Tree => "tree",
            Type::Blob => "blob",
            Type::Tag => "tag",
        }
    }
}

pub(super) struct Store {
    dir: PathBuf,
    kind: Kind,
    packs: OnceLock<Vec<Pack>>,
}

struct Pack {
    idx: Vec<u8>,
    count: usize,
    pack: File,
}

/// Where an object lies.
enum Place {
    Loose(PathBuf),
    Packed(usize, u64),
}

/// What a pack entry is: an object, or a delta on another.
enum Packed {
    Whole(Type, Vec<u8>),
    Delta(Place, Vec<u8>),
}

impl Store {
    pub fn new(dir: PathBuf, kind: Kind) -> Store {
        Store {
            dir,
            kind,
            packs: OnceLock::new(),
        }
    }

    /// The tree a commit names.
    pub fn commit_tree(&self, commit: &[u8]) -> Option<Vec<u8>> {
        let bytes = self.read(commit, Type::Commit)?;
        let first = bytes.split(|b| *b == b'\n').next()?;
        let hex = std::str::from_utf8(first.strip_prefix(b"tree ")?).ok()?;
        if hex.len() != self.kind.len() * 2 {
            return None;
        }
        super::from_hex(hex)
    }

    /// Every file, link and submodule of a tree, all folders down.
    pub fn flatten(&self, tree: &[u8]) -> Option<Flat> {
        let mut out = Flat::new();
        let mut todo = vec![(Vec::new(), tree.to_vec(), 0)];
        let mut entries = 0usize;
        while let Some((prefix, id, depth)) = todo.pop() {
            if depth > MAX_DEPTH {
                return None;
            }
            let bytes = self.read(&id, Type::Tree)?;
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let space = rest.iter().position(|b| *b == b' ')?;
                let mode =
                    u32::from_str_radix(std::str::from_utf8(&rest[..space]).ok()?, 8).ok()?;
                rest = &rest[space + 1..];
                let nul = rest.iter().position(|b| *b == 0)?;
                let name = &rest[..nul];
                rest = &rest[nul + 1..];
                let child = rest.get(..self.kind.len())?.to_vec();
                rest = &rest[self.kind.len()..];
                entries += 1;
                if name.contains(&b'/') || !safe_path(name) || entries > MAX_ENTRIES {
                    return None;
                }
                let mut path = prefix.clone();
                if !path.is_empty() {
                    path.push(b'/');
                }
                path.extend_from_slice(name);
                let mode = match mode {
                    TREE => {
                        todo.push((path, child, depth + 1));
                        continue;
                    }
                    SYMLINK | GITLINK => mode,
                    // git's canon_mode: a file is 644 or 755, by the
                    // owner's execute bit (old trees hold 100664).
                    m if m & 0o170000 == 0o100000 => {
                        if m & 0o100 != 0 {
                            EXECUTABLE
                        } else {
                            REGULAR
                        }
                    }
                    _ => return None,
                };
                if out.insert(path, (mode, child)).is_some() {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// An object's bytes, if it is of type `want` and hashes to `id`.
    fn read(&self, id: &[u8], want: Type) -> Option<Vec<u8>> {
        let (kind, bytes) = self.object(id)?;
        (kind == want && self.kind.object_id(kind.name(), &bytes) == id).then_some(bytes)
    }

    fn object(&self, id: &[u8]) -> Option<(Type, Vec<u8>)> {
        let mut deltas: Vec<Vec<u8>> = Vec::new();
        let mut held = 0usize;
        let mut place = self.find(id)?;
        let (kind, mut bytes) = loop {
            let entry = match place {
                Place::Loose(path) => break self.loose(&path)?,
                Place::Packed(pack, offset) => self.packed(pack, offset)?,
            };
            match entry {
                Packed::Whole(kind, bytes) => break (kind, bytes),
                Packed::Delta(base, delta) => {
                    held = held.checked_add(delta.len())?;
                    if deltas.len() >= MAX_CHAIN || held > MAX_CHAIN_BYTES {
                        return None;
                    }
                    deltas.push(delta);
                    place = base;
                }
            }
        };
        for delta in deltas.iter().rev() {
            bytes = apply(&bytes, delta)?;
        }
        Some((kind, bytes))
    }

    fn find(&self, id: &[u8]) -> Option<Place> {
        let hex = to_hex(id);
        let loose = self.dir.join(&hex[..2]).join(&hex[2..]);
        if loose.is_file() {
            return Some(Place::Loose(loose));
        }
        self.packs()
            .iter()
            .enumerate()
            .find_map(|(i, p)| p.offset(id, self.kind).map(|o| Place::Packed(i, o)))
    }

    fn packs(&self) -> &[Pack] {
        self.packs.get_or_init(|| {
            let Ok(list) = std::fs::read_dir(self.dir.join("pack")) else {
                return Vec::new();
            };
            let mut names: Vec<PathBuf> = list
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .take(MAX_PACKS)
                .collect();
            names.sort();
            names
                .into_iter()
                .filter_map(|idx| Pack::open(&idx, self.kind))
                .collect()
        })
    }

    fn loose(&self, path: &std::path::Path) -> Option<(Type, Vec<u8>)> {
        use std::io::Read as _;
        let mut packed = Vec::new();
        vcc_contract::files::open_regular(path)
            .ok()?
            .take(MAX_OBJECT as u64 + 1)
            .read_to_end(&mut packed)
            .ok()?;
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&packed, MAX_OBJECT + 64)
            .ok()?;
        let nul = raw.iter().position(|b| *b == 0)?;
        let header = std::str::from_utf8(&raw[..nul]).ok()?;
        let (name, size) = header.split_once(' ')?;
        let kind = match name {
            "commit" => Type::Commit,
            "tree" => Type::Tree,
            "blob" => Type::Blob,
            "tag" => Type::Tag,
            _ => return None,
        };
        let bytes = raw[nul + 1..].to_vec();
        (size.parse::<usize>().ok()? == bytes.len() && bytes.len() <= MAX_OBJECT)
            .then_some((kind, bytes))
    }

    /// The entry at `offset` of pack `pack`.
    fn packed(&self, pack: usize, offset: u64) -> Option<Packed> {
        let file = &self.packs().get(pack)?.pack;
        let mut head = [0u8; 96];
        let got = file.read_at(&mut head, offset).ok()?;
        let mut c = head.get(..got)?.iter().copied();
        let mut byte = c.next()?;
        let kind = (byte >> 4) & 7;
        let mut size = u64::from(byte & 0x0f);
        let mut shift = 4;
        while byte & 0x80 != 0 {
            byte = c.next()?;
            if shift > 57 {
                return None;
            }
            size |= u64::from(byte & 0x7f) << shift;
            shift += 7;
        }
        let size = usize::try_from(size).ok().filter(|s| *s <= MAX_OBJECT)?;
        let base = match kind {
            6 => {
                // A base earlier in the same pack, this far back.
                let mut byte = c.next()?;
                let mut back = u64::from(byte & 0x7f);
                while byte & 0x80 != 0 {
                    byte = c.next()?;
                    back = back
                        .checked_add(1)?
                        .checked_mul(128)?
                        .checked_add(u64::from(byte & 0x7f))?;
                }
                let at = offset.checked_sub(back).filter(|_| back > 0)?;
                Some(Place::Packed(pack, at))
            }
            7 => {
                let id: Vec<u8> = c.by_ref().take(self.kind.len()).collect();
                if id.len() != self.kind.len() {
                    return None;
                }
                Some(self.find(&id)?)
            }
            _ => None,
        };
        let data_at = offset + (got - c.len()) as u64;
        let bytes = inflate_at(file, data_at, size)?;
        Some(match (kind, base) {
            (1, None) => Packed::Whole(Type::Commit, bytes),
            (2, None) => Packed::Whole(Type::Tree, bytes),
            (3, None) => Packed::Whole(Type::Blob, bytes),
            (4, None) => Packed::Whole(Type::Tag, bytes),
            (6 | 7, Some(base)) => Packed::Delta(base, bytes),
            _ => return None,
        })
    }
}

impl Pack {
    fn open(idx: &std::path::Path, kind: Kind) -> Option<Pack> {
        use std::io::Read as _;
        let mut bytes = Vec::new();
        vcc_contract::files::open_regular(idx)
            .ok()?
            .take(MAX_IDX + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        // Version 2: a magic number, the version, 256 fan-out counts.
        if bytes.get(..8)? != b"\xfftOc\0\0\0\x02" {
            return None;
        }
        let count = u32::from_be_bytes(bytes.get(8 + 255 * 4..8 + 256 * 4)?.try_into().ok()?);
        let count = count as usize;
        // Ids, CRCs and offsets, then the pack's and the index's checksums.
        let least = 8 + 1024 + count.checked_mul(kind.len() + 8)? + 2 * kind.len();
        if bytes.len() < least {
            return None;
        }
        let pack = vcc_contract::files::open_regular(&idx.with_extension("pack")).ok()?;
        Some(Pack {
            idx: bytes,
            count,
            pack,
        })
    }

    /// Where object `id` starts in the pack, if it holds it.
    fn offset(&self, id: &[u8], kind: Kind) -> Option<u64> {
        let fan = |i: usize| -> Option<usize> {
            let at = 8 + i * 4;
            Some(u32::from_be_bytes(self.idx.get(at..at + 4)?.try_into().ok()?) as usize)
        };
        let first = usize::from(*id.first()?);
        let (mut lo, mut hi) = (if first == 0 { 0 } else { fan(first - 1)? }, fan(first)?);
        if hi > self.count || lo > hi {
            return None;
        }
        let ids = 8 + 1024;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let at = ids + mid * kind.len();
            let here = self.idx.get(at..at + kind.len())?;
            match here.cmp(id) {
                std::cmp::Ordering::Equal => return self.nth_offset(mid, kind),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    fn nth_offset(&self, n: usize, kind: Kind) -> Option<u64> {
        let offsets = 8 + 1024 + self.count * (kind.len() + 4);
        let at = offsets + n * 4;
        let small = u32::from_be_bytes(self.idx.get(at..at + 4)?.try_into().ok()?);
        if small & 0x8000_0000 == 0 {
            return Some(u64::from(small));
        }
        // Past 2 GiB: an index into the table of 8-byte offsets.
        let large = offsets + self.count * 4 + (small & 0x7fff_ffff) as usize * 8;
        Some(u64::from_be_bytes(
            self.idx.get(large..large + 8)?.try_into().ok()?,
        ))
    }
}

/// The zlib stream at `offset`, which must inflate to exactly `size`
/// bytes.
fn inflate_at(file: &File, mut offset: u64, size: usize) -> Option<Vec<u8>> {
    use miniz_oxide::inflate::stream::{InflateState, inflate};
    use miniz_oxide::{DataFormat, MZFlush, MZStatus};
    let mut state = InflateState::new_boxed(DataFormat::Zlib);
    // One byte more than asked: room to see a stream that is too long.
    let mut out = vec![0u8; size + 1];
    let mut written = 0;
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let got = file.read_at(&mut chunk, offset).ok()?;
        if got == 0 {
            return None;
        }
        let r = inflate(
            &mut state,
            &chunk[..got],
            &mut out[written..],
            MZFlush::None,
        );
        written += r.bytes_written;
        offset += r.bytes_consumed as u64;
        match r.status {
            Ok(MZStatus::StreamEnd) => {
                out.truncate(size);
                return (written == size).then_some(out);
            }
            Ok(_) if written > size => return None,
            Ok(_) if r.bytes_consumed == 0 && r.bytes_written == 0 => return None,
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

/// A git delta applied to `base`.
fn apply(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut d = delta.iter().copied();
    let mut size = || -> Option<usize> {
        let mut value = 0usize;
        let mut shift = 0;
        loop {
            let byte = d.next()?;
            if shift > 57 {
                return None;
            }
            value |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
    };
    let (from, to) = (size()?, size()?);
    if from != base.len() || to > MAX_OBJECT {
        return None;
    }
    let mut out = Vec::with_capacity(to);
    while let Some(op) = d.next() {
        if op & 0x80 != 0 {
            // Copy from the base: offset and length, each byte present
            // only when its bit is set.
            let mut offset = 0usize;
            for i in 0..4 {
                if op & (1 << i) != 0 {
                    offset |= usize::from(d.next()?) << (8 * i);
                }
            }
            let mut len = 0usize;
            for i in 0..3 {
                if op & (0x10 << i) != 0 {
                    len |= usize::from(d.next()?) << (8 * i);
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            out.extend_from_slice(base.get(offset..offset.checked_add(len)?)?);
        } else if op != 0 {
            // Insert the next `op` bytes of the delta.
            for _ in 0..op {
                out.push(d.next()?);
            }
        } else {
            return None;
        }
        if out.len() > to {
            return None;
        }
    }
    (out.len() == to).then_some(out)
}
