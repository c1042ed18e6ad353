//! An OCI image layout as a bundle arrives (from a registry, a tarball or
//! a folder someone else wrote): its index, a bundle manifest and the
//! bundle config, split at 0xFF bytes. None may panic; a blob is only ever
//! looked up by a well-formed sha256 digest (never a path); and a config
//! is only accepted when every file it names is a layer of the manifest
//! with that digest, under a name that stays in its folder.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use vcc_trust::bundle::{Bundle, check_config, listed, parse_manifest};
use vcc_trust::layout::{self, Layout};

/// One layout for the whole run, holding one real blob; each input
/// replaces its index.
fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<(tempfile::TempDir, Layout)> = OnceLock::new();
    &LAYOUT
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let layout = Layout::create(dir.path()).expect("a layout");
            layout
                .put("application/octet-stream", b"a blob")
                .expect("a blob");
            (dir, layout)
        })
        .1
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == 0xFF);
    let index = parts.next().unwrap_or_default();
    let manifest = parts.next().unwrap_or_default();
    let config = parts.next().unwrap_or_default();

    let layout = layout();
    std::fs::write(layout.dir().join("index.json"), index).expect("write the index");
    if let Ok(found) = listed(layout) {
        for d in &found {
            // A digest that is not sha256:<64 hex> names no file at all.
            if let Ok(bytes) = layout.get(d, layout::MAX_MANIFEST) {
                assert_eq!(layout::sha256(&bytes), d.digest);
            }
        }
        let _ = Bundle::open(layout);
    }

    if let Ok(m) = parse_manifest(manifest)
        && let Ok(c) = check_config(&m, config)
    {
        let named = c
            .validators
            .values()
            .map(|e| (&e.file, &e.sha256))
            .chain(c.contracts.values().map(|e| (&e.file, &e.sha256)));
        for (file, sha256) in named {
            assert!(
                m.layers.iter().any(|l| &l.digest == sha256),
                "a config file that is no layer of the manifest"
            );
            assert!(
                !file.contains('/') && !file.contains(".."),
                "{file:?} leaves its folder"
            );
        }
    }
});
