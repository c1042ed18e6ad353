//! Links under a glob target. The walk never follows a link, but the tools
//! that consume the deliverables often do (a site generator, a compiler's
//! module lookup, `tar -h`): a link to a folder puts every file behind it
//! under the glob's reach. Such a link blocks the criterion — unless every
//! file a tool would read through it is judged anyway, at its own path.

use globset::GlobMatcher;

use vcc_report::UnreadableEntry;

use super::{Snapshot, overlaps};
use vcc_contract::paths;

impl Snapshot {
    /// Does the link `entry` lead to files the glob `glob` (`matcher`)
    /// would reach through it but no criterion judges?
    pub(super) fn link_hides(
        &self,
        entry: &UnreadableEntry,
        glob: &str,
        matcher: &GlobMatcher,
    ) -> bool {
        if entry.kind != "symlink"
            || !self.root.join(&entry.path).is_dir()
            || !may_match_below(glob, &entry.path)
        {
            return false;
        }
        // Where it leads, as a folder of the root; outside it (or not
        // resolvable) nothing behind the link was judged.
        let (Ok(root), Ok(target)) = (
            std::fs::canonicalize(&self.root),
            std::fs::canonicalize(self.root.join(&entry.path)),
        ) else {
            return true;
        };
        let Ok(inner) = target.strip_prefix(&root) else {
            return true;
        };
        let Some(inner) = inner.to_str() else {
            return true;
        };
        // Something there the walk did not take (left out, another link,
        // an unreadable folder) would be read through the link unjudged.
        if self.excluded.iter().any(|e| overlaps(&e.path, inner))
            || self.unreadable.iter().any(|u| overlaps(&u.path, inner))
        {
            return true;
        }
        let under = if inner.is_empty() {
            String::new()
        } else {
            format!("{inner}/")
        };
        self.files
            .range(under.clone()..)
            .take_while(|(f, _)| f.starts_with(&under))
            .any(|(f, _)| {
                let seen = format!("{}/{}", entry.path, &f[under.len()..]);
                matcher.is_match(&seen) && !matcher.is_match(f)
            })
    }
}

/// Could the glob match a path below `path` (`docs/**/*.md` below
/// `docs/sub`: yes; `*.md` below `out`: no)? Component by component until
/// a `**`, which can match anything below.
pub(super) fn may_match_below(glob: &str, path: &str) -> bool {
    let pattern: Vec<&str> = glob.split('/').collect();
    let parts: Vec<&str> = path.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        match pattern.get(i) {
            Some(&"**") => return true,
            Some(p) => match paths::matcher(p) {
                Ok(m) if m.is_match(part) => {}
                Ok(_) => return false,
                // A pattern it cannot read: assume the worst.
                Err(_) => return true,
            },
            None => return false,
        }
    }
    pattern.len() > parts.len()
}

#[cfg(test)]
mod tests {
    use super::may_match_below;

    #[test]
    fn a_glob_reaches_below_a_path_only_where_its_parts_allow() {
        assert!(may_match_below("docs/**/*.md", "docs/sub"));
        assert!(may_match_below("**/*.rs", "src/vendor"));
        assert!(may_match_below("docs/*/*.md", "docs/sub"));
        assert!(!may_match_below("*.md", "out"));
        assert!(!may_match_below("docs/*.md", "docs/sub"));
        assert!(!may_match_below("docs/**/*.md", "notes/sub"));
        assert!(!may_match_below("src/*.rs", "docs"));
    }
}
