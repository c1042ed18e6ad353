//! The fast path of [`Snapshot::changes`]: proving that nothing changed
//! without walking the root again (W5).
//!
//! Every folder the walk entered is opened again and its metadata compared
//! with what the walk saw; then every file the walk found in it that a row
//! may depend on (`judged`) is stat'ed by name, on all cores. A folder's modification and status-change times
//! move whenever an entry is added to it, removed from it or renamed in
//! it, so an unchanged folder has the same names as before, and an
//! unchanged file has the same bytes as far as metadata can tell (the
//! guarantee the full walk gives too). Two cases the times cannot vouch
//! for send the check to the full walk instead:
//!
//! - a folder whose status-change time is within the racy margin of the
//!   walk's start (`stat::is_racy`): an entry added in the same clock tick
//!   as the walk read the folder would leave its times as they were;
//! - anything the walk could not take at face value: unreadable entries,
//!   a truncated walk, an ignore file that is itself excluded (editing it
//!   in place would change what the walk leaves out without touching
//!   any folder).
//!
//! So the answer is "unchanged" or "look properly", never a change missed:
//! any difference, error or doubt returns `false`, and `changes` walks.

use std::collections::HashMap;

use rayon::prelude::*;

use super::{IGNORE_FILES, Snapshot, StatKey};

impl Snapshot {
    /// Whether everything the walk saw is provably as it was: every folder,
    /// and every file `judged` says a verdict may depend on (a file no
    /// criterion targeted or read can only change in place, which no row
    /// saw; adding, removing or renaming it moves its folder).
    pub(super) fn unchanged(&self, judged: &dyn Fn(&str) -> bool) -> bool {
        let excluded_ignore_file = self.excluded.iter().any(|e| {
            let name = e.path.rsplit('/').next().unwrap_or(&e.path);
            IGNORE_FILES.contains(&name)
        });
        if self.truncated.is_some() || !self.walk_unreadable.is_empty() || excluded_ignore_file {
            return false;
        }
        let mut by_folder: HashMap<&str, Vec<(&str, StatKey)>> = HashMap::new();
        let files = self.files.iter().map(|(p, e)| (p, e.stat));
        let unhashed = self.unhashed.iter().map(|(p, s)| (p, *s));
        for (path, stat) in files.chain(unhashed) {
            if self.attached.contains(path) || !judged(path) {
                continue;
            }
            let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
            if !self.dirs.contains_key(folder) {
                return false;
            }
            by_folder.entry(folder).or_default().push((name, stat));
        }
        let unchanged = |(folder, recorded): (&String, &StatKey)| {
            let empty = Vec::new();
            let names = by_folder.get(folder.as_str()).unwrap_or(&empty);
            self.folder_unchanged(folder, recorded, names)
        };
        if self.dirs.len() < super::FEW {
            self.dirs.iter().all(unchanged)
        } else {
            self.dirs.par_iter().all(unchanged)
        }
    }

    fn folder_unchanged(
        &self,
        folder: &str,
        recorded: &StatKey,
        files: &[(&str, StatKey)],
    ) -> bool {
        let opened;
        let dir = if folder.is_empty() {
            &self.dir
        } else {
            match self.dir.open_dir(folder) {
                Ok(dir) => {
                    opened = dir;
                    &opened
                }
                Err(_) => return false,
            }
        };
        // The open folder's own metadata: an inode other than the one the
        // walk entered (a folder swapped for another, or for a link to
        // one) differs here.
        let now = match dir.dir_metadata() {
            Ok(meta) => StatKey::of(&meta),
            Err(_) => return false,
        };
        if now != *recorded || crate::stat::is_racy(&now, self.walked_at) {
            return false;
        }
        files.iter().all(|(name, stat)| {
            matches!(dir.symlink_metadata(name),
                Ok(meta) if meta.is_file() && StatKey::of(&meta) == *stat)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::time::Duration;

    use vcc_contract::Excludes;

    use super::super::{Snapshot, WalkLimits};
    use crate::memo::Memo;

    /// A tree of old files: the snapshot's walk is dated well after them,
    /// as it is when a run looks at a tree written minutes earlier.
    fn settled(files: &[&str]) -> (tempfile::TempDir, Snapshot) {
        let dir = tempfile::tempdir().unwrap();
        for path in files {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
        // Every entry an hour old: a change below shows in the times,
        // however soon it comes (no wait for a coarse timestamp tick).
        backdate(dir.path());
        let mut snap = Snapshot::take(
            dir.path(),
            WalkLimits::default(),
            Excludes::none(),
            &Memo::default(),
        )
        .unwrap();
        snap.walked_at.0 += 10;
        (dir, snap)
    }

    fn backdate(path: &std::path::Path) {
        let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        if path.is_dir() {
            for entry in fs::read_dir(path).unwrap() {
                backdate(&entry.unwrap().path());
            }
        }
        fs::File::open(path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }

    const FILES: &[&str] = &["a.txt", "docs/b.txt", "docs/deep/c.txt"];

    #[test]
    fn an_untouched_tree_is_proved_unchanged_without_a_walk() {
        let (_dir, snap) = settled(FILES);
        assert!(snap.unchanged(&|_| true));
        assert!(snap.changes(&|_| true).is_empty());
    }

    #[test]
    fn a_file_added_deep_in_the_tree_sends_the_check_to_the_walk() {
        let (dir, snap) = settled(FILES);
        fs::write(dir.path().join("docs/deep/new.txt"), "y").unwrap();
        assert!(!snap.unchanged(&|_| true));
        assert_eq!(snap.changes(&|_| true), ["docs/deep/", "docs/deep/new.txt"]);
    }

    #[test]
    fn a_file_rewritten_with_the_same_size_is_a_change() {
        let (dir, snap) = settled(FILES);
        fs::write(dir.path().join("docs/b.txt"), "z").unwrap();
        assert!(!snap.unchanged(&|_| true));
        assert_eq!(snap.changes(&|_| true), ["docs/b.txt"]);
    }

    #[test]
    fn a_file_no_row_depends_on_is_a_change_only_when_its_folder_moves() {
        let (dir, snap) = settled(FILES);
        let others = |path: &str| path != "docs/b.txt";
        fs::write(dir.path().join("docs/b.txt"), "z").unwrap();
        assert!(snap.unchanged(&others));
        assert!(snap.changes(&others).is_empty());
        fs::remove_file(dir.path().join("docs/b.txt")).unwrap();
        assert_eq!(snap.changes(&others), ["docs/", "docs/b.txt"]);
    }

    #[test]
    fn a_folder_swapped_for_a_copy_is_a_change() {
        let (dir, snap) = settled(FILES);
        let docs = dir.path().join("docs");
        fs::rename(&docs, dir.path().join("old")).unwrap();
        fs::create_dir_all(docs.join("deep")).unwrap();
        fs::write(docs.join("b.txt"), "x").unwrap();
        fs::write(docs.join("deep/c.txt"), "x").unwrap();
        assert!(!snap.unchanged(&|_| true));
        assert!(snap.changes(&|_| true).contains(&"docs/".to_string()));
    }

    #[test]
    fn a_folder_written_within_the_racy_margin_is_walked() {
        let (_dir, mut snap) = settled(FILES);
        snap.walked_at.0 -= 10;
        assert!(!snap.unchanged(&|_| true), "the tree was written just now");
        assert!(snap.changes(&|_| true).is_empty());
    }
}
