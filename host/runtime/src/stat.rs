//! What identifies one version of a file without reading it, and the
//! clock it is compared with: shared by the snapshot (which takes it), the
//! memo (which remembers digests by it) and the cache (whose seals hold
//! it), so none of them imports another for it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use cap_std::fs::{Metadata, MetadataExt};

/// Files whose ctime is this close to the start of the hashing run are
/// not trusted next time (covers coarse filesystem timestamps).
const RACY_MARGIN: Duration = Duration::from_secs(2);

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatKey {
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    pub(crate) size: u64,
    pub(crate) mtime: (i64, i64),
    pub(crate) ctime: (i64, i64),
}

impl StatKey {
    /// An attached file's: no walk of the root ever finds it.
    pub(crate) const ATTACHED: StatKey = StatKey {
        dev: 0,
        ino: 0,
        size: 0,
        mtime: (0, 0),
        ctime: (0, 0),
    };

    pub(crate) fn of(m: &Metadata) -> StatKey {
        StatKey {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    pub(crate) fn of_std(m: &std::fs::Metadata) -> StatKey {
        use std::os::unix::fs::MetadataExt;
        StatKey {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

/// Seconds and nanoseconds since the epoch, as ctime is stored.
pub fn now() -> (i64, i64) {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs() as i64, i64::from(d.subsec_nanos()))
}

/// Whether a file with this metadata, seen by a run that started reading
/// at `started`, could still change without its timestamps showing it.
pub fn is_racy(stat: &StatKey, started: (i64, i64)) -> bool {
    stat.ctime >= (started.0 - RACY_MARGIN.as_secs() as i64, started.1)
}

/// `dev ino size mtime mtime_ns ctime ctime_ns`, as memos and seals keep it.
pub fn format_stat(stat: &StatKey) -> String {
    format!(
        "{} {} {} {} {} {} {}",
        stat.dev, stat.ino, stat.size, stat.mtime.0, stat.mtime.1, stat.ctime.0, stat.ctime.1
    )
}

/// The inverse of [`format_stat`].
pub fn parse_stat(text: &str) -> Option<StatKey> {
    let mut parts = text.split(' ');
    let mut int = || parts.next()?.parse::<i64>().ok();
    let (dev, ino, size) = (int()?, int()?, int()?);
    let mtime = (int()?, int()?);
    let ctime = (int()?, int()?);
    if parts.next().is_some() {
        return None;
    }
    Some(StatKey {
        dev: dev as u64,
        ino: ino as u64,
        size: size as u64,
        mtime,
        ctime,
    })
}
