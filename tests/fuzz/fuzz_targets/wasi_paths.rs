//! The read-only WASI view's path handling: the folders a snapshot's file
//! paths make, and a guest's path resolved against one of them. No path —
//! `..` past the root, absolute, `//`, NUL, very long — resolves above
//! the mount, and what resolves names a folder or file of the snapshot or
//! nothing.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use vcc_contract::view::{Miss, Tree};

#[derive(Debug, Arbitrary)]
struct Input {
    /// The snapshot's files (paths a snapshot could hold).
    files: Vec<String>,
    /// (base folder index, guest path).
    lookups: Vec<(u8, String)>,
}

fuzz_target!(|input: Input| {
    // A snapshot holds relative, normalised paths, sorted.
    let mut files: Vec<String> = input
        .files
        .into_iter()
        .filter(|p| {
            vcc_contract::paths::check(p)
                .is_ok_and(|s| matches!(s, vcc_contract::paths::PathSpec::Literal(ref l) if l == p))
        })
        .collect();
    files.sort();
    files.dedup();
    // A name is a file or a folder, never both (as on any disk).
    let folders_of: std::collections::HashSet<&str> = files
        .iter()
        .flat_map(|f| f.match_indices('/').map(move |(i, _)| &f[..i]))
        .collect();
    let files: Vec<String> = files
        .iter()
        .filter(|f| !folders_of.contains(f.as_str()))
        .cloned()
        .collect();
    let tree = Tree::of(&files);
    let mut folders: Vec<String> = vec![String::new()];
    for f in &files {
        let mut at = f.as_str();
        while let Some((parent, _)) = at.rsplit_once('/') {
            assert!(tree.is_dir(parent), "{parent} holds {f} but is no folder");
            folders.push(parent.to_string());
            at = parent;
        }
    }
    for (base, path) in input.lookups {
        let base = &folders[usize::from(base) % folders.len()];
        match tree.resolve(base, &path) {
            Ok((target, is_dir)) => {
                assert!(
                    !target.starts_with('/') && !target.ends_with('/'),
                    "{target:?}"
                );
                assert!(
                    !target.split('/').any(|p| p == ".." || p == "."),
                    "{target:?}"
                );
                assert!(!target.contains("//"), "{target:?}");
                // What resolves is a folder or a file of the snapshot.
                if is_dir {
                    assert!(tree.is_dir(&target), "{target:?} is no folder");
                } else {
                    assert!(
                        files.binary_search(&target).is_ok(),
                        "{target:?} is no file"
                    );
                }
                if let Some(entries) = tree.entries(&target) {
                    for (name, is_dir) in entries.iter() {
                        let child = if target.is_empty() {
                            name.clone()
                        } else {
                            format!("{target}/{name}")
                        };
                        assert_eq!(*is_dir, tree.is_dir(&child));
                        assert!(*is_dir || files.binary_search(&child).is_ok());
                    }
                }
            }
            Err(Miss::Absolute) => assert!(path.starts_with('/')),
            Err(Miss::AboveRoot) => assert!(path.contains("..")),
            Err(Miss::NoEntry | Miss::NotDirectory) => {}
        }
    }
});
