//! A file's bytes for a validator, exactly as hashed: from memory (kept
//! by the walk, or by an earlier read), else read again and checked
//! against the digest, within the call's deadline.

use super::*;

/// Bytes read for validators, and what is left of the retain budget.
#[derive(Default)]
pub(super) struct ReadBytes {
    pub(super) left: u64,
    pub(super) bytes: HashMap<String, Arc<[u8]>>,
}

impl Snapshot {
    /// The bytes of a file, exactly as hashed: from memory, or re-read and
    /// checked against the digest.
    pub fn read(&self, path: &str) -> Result<Arc<[u8]>, String> {
        self.read_before(path, Instant::now() + Duration::from_secs(3600))
    }

    /// Like [`Snapshot::read`], but a re-read stops at `deadline`: a guest
    /// asking for a huge file cannot keep the host busy past its budget.
    pub fn read_before(&self, path: &str, deadline: Instant) -> Result<Arc<[u8]>, String> {
        let entry = self
            .files
            .get(path)
            .ok_or_else(|| format!("{path}: not a file of the snapshot"))?;
        if let Some(bytes) = &entry.bytes {
            return Ok(bytes.clone());
        }
        let read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bytes) = read.bytes.get(path) {
            return Ok(bytes.clone());
        }
        drop(read);
        if Instant::now() >= deadline {
            return Err(format!("{path}: the run's time budget is spent"));
        }
        let mut file = open_regular(&self.dir, path).map_err(|e| format!("{path}: {e}"))?;
        // Read straight into the result, 4 MiB at a time so the deadline is
        // looked at between reads, and one byte past the recorded size
        // (a file that grew). A zeroed 4 MiB chunk per file was 40% of a
        // check of 500 small files (W1).
        let mut bytes = Vec::with_capacity(entry.size as usize + 1);
        let mut file = (&mut file).take(entry.size + 1);
        loop {
            let n = (&mut file)
                .take(4 << 20)
                .read_to_end(&mut bytes)
                .map_err(|e| format!("{path}: {e}"))?;
            if n == 0 {
                break;
            }
            if bytes.len() as u64 > entry.size {
                return Err(format!("{path}: changed since it was hashed"));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{path}: the run's time budget ran out while reading"
                ));
            }
        }
        if blake3::hash(&bytes) != entry.digest {
            return Err(format!("{path}: changed since it was hashed"));
        }
        let bytes: Arc<[u8]> = bytes.into();
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        // Kept as the walk keeps bytes: small files, within the budget.
        if entry.size <= RETAIN_FILE_MAX
            && !read.bytes.contains_key(path)
            && let Some(left) = read.left.checked_sub(entry.size)
        {
            read.left = left;
            read.bytes.insert(path.to_string(), bytes.clone());
        }
        Ok(bytes)
    }
}
