//! Hashing the files a walk found: a remembered digest when the memo
//! vouches for the file's metadata, else the bytes, in parallel parts for
//! large files, refused when the file changed while it was read.

use super::*;

/// Open a regular file without blocking, whatever it has become since the
/// walk (a FIFO swapped in must not hang the host).
pub(super) fn open_regular(dir: &Dir, path: &str) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = dir.open_with(path, &options)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("is no longer a regular file"));
    }
    Ok(file)
}

/// A file known from the memo: its digest, and no bytes (read on demand,
/// and checked, if a validator asks).
pub(super) fn remembered_entry(stat: StatKey, digest: blake3::Hash) -> FileEntry {
    FileEntry {
        size: stat.size,
        digest,
        bytes: None,
        stat,
    }
}

pub(super) fn hash_file(
    dir: &Dir,
    found: Found,
    limits: &WalkLimits,
    budget: &AtomicU64,
) -> Hashed {
    let Found { path, stat } = found;
    let fail = |kind: &str, detail: String| unreadable(&path, kind, detail);
    if stat.size > limits.max_file_size {
        return Err(fail(
            "too_large",
            format!(
                "{} bytes, over the {} byte cap",
                stat.size, limits.max_file_size
            ),
        ));
    }
    let mut file = open_regular(dir, &path).map_err(|e| fail("unreadable", e.to_string()))?;
    let meta = file
        .metadata()
        .map_err(|e| fail("unreadable", e.to_string()))?;
    if StatKey::of(&meta) != stat {
        return Err(fail("changed_during_walk", String::new()));
    }
    let size = stat.size;
    let retain = size <= RETAIN_FILE_MAX
        && budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(size)
            })
            .is_ok();
    let read_error = |e: io::Error| unreadable(&path, "unreadable", e.to_string());
    let (digest, bytes) = if retain {
        let mut bytes = Vec::with_capacity(size as usize);
        (&mut file)
            .take(size + 1)
            .read_to_end(&mut bytes)
            .map_err(read_error)?;
        if bytes.len() as u64 != size {
            return Err(fail(
                "changed_during_walk",
                "size changed while reading".into(),
            ));
        }
        (blake3::hash(&bytes), Some(Arc::from(bytes)))
    } else {
        let digest = hash_open_file(&file, size).map_err(|e| match e.kind() {
            io::ErrorKind::InvalidData => fail("changed_during_walk", e.to_string()),
            _ => read_error(e),
        })?;
        (digest, None)
    };
    Ok((
        path,
        FileEntry {
            size,
            digest,
            bytes,
            stat,
        },
    ))
}

/// Hash exactly `size` bytes of an open file by reading it (never by
/// mapping it: a mapped file truncated by its writer would kill vcc with
/// SIGBUS). A file shorter or longer than `size` is refused as changed
/// (`InvalidData`); a file rewritten in place is caught by the second look.
pub(super) fn hash_open_file(file: &File, size: u64) -> io::Result<blake3::Hash> {
    if size > PARALLEL_MIN {
        let left = blake3::hazmat::left_subtree_len(size);
        let (l, r) = rayon::join(|| part(file, 0, left), || part(file, left, size - left));
        // One more byte past the end means the file grew.
        if file.read_at(&mut [0u8], size)? != 0 {
            return Err(changed_while_hashed());
        }
        return Ok(blake3::hazmat::merge_subtrees_root(
            &l?,
            &r?,
            blake3::hazmat::Mode::Hash,
        ));
    }
    let mut hasher = blake3::Hasher::new();
    if io::copy(&mut file.take(size + 1), &mut hasher)? != size {
        return Err(changed_while_hashed());
    }
    Ok(hasher.finalize())
}

/// The chaining value of the BLAKE3 subtree of `len` bytes at `offset`:
/// halves hashed on two cores (rayon), down to parts one core reads.
pub(super) fn part(
    file: &File,
    offset: u64,
    len: u64,
) -> io::Result<blake3::hazmat::ChainingValue> {
    use blake3::hazmat::{HasherExt, Mode, left_subtree_len, merge_subtrees_non_root};
    if len <= PART {
        let mut hasher = blake3::Hasher::new();
        hasher.set_input_offset(offset);
        let mut buf = vec![0u8; CHUNK];
        let mut at = offset;
        while at < offset + len {
            let want = usize::try_from(offset + len - at).map_or(CHUNK, |w| w.min(CHUNK));
            let n = file.read_at(&mut buf[..want], at)?;
            if n == 0 {
                return Err(changed_while_hashed());
            }
            hasher.update(&buf[..n]);
            at += n as u64;
        }
        return Ok(hasher.finalize_non_root());
    }
    let left = left_subtree_len(len);
    let (l, r) = rayon::join(
        || part(file, offset, left),
        || part(file, offset + left, len - left),
    );
    Ok(merge_subtrees_non_root(&l?, &r?, Mode::Hash))
}

/// The error of a file that changed while it was read (`InvalidData` marks
/// it apart from I/O errors).
pub(super) fn changed_while_hashed() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "changed while it was hashed")
}
