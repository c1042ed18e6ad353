//! `vcc package manifest DIR`: the manifest `std/package` reads, written
//! from a folder before it is packed, so nobody hand-writes digests.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};
use vcc_report::law::exit;

use crate::output::print_stdout;

/// The names `std/package` takes for a manifest at the top of a package.
const MANIFESTS: &[&str] = &["MANIFEST.json", "manifest.json"];

pub fn manifest(dir: &Path) -> i32 {
    match files(dir) {
        Ok(files) => {
            let doc = serde_json::json!({ "files": files });
            print_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            ));
            exit::ACCEPTED
        }
        Err(why) => {
            eprintln!("vcc package manifest: {why}");
            exit::INVALID
        }
    }
}

/// Every regular file under `dir`: path (relative, `/`-separated) and
/// sha256, in byte order of the path.
fn files(dir: &Path) -> Result<Vec<serde_json::Value>, String> {
    let mut found = Vec::new();
    walk(dir, "", &mut found)?;
    found.sort();
    found
        .into_iter()
        .filter(|path| !MANIFESTS.contains(&path.as_str()))
        .map(|path| {
            let full = dir.join(&path);
            let mut file =
                std::fs::File::open(&full).map_err(|e| format!("{}: {e}", full.display()))?;
            let mut hasher = Sha256::new();
            let mut buf = vec![0u8; 64 << 10];
            loop {
                let n = file
                    .read(&mut buf)
                    .map_err(|e| format!("{}: {e}", full.display()))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
            Ok(serde_json::json!({ "path": path, "sha256": format!("{:x}", hasher.finalize()) }))
        })
        .collect()
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), String> {
    let at = dir.join(prefix);
    let entries = std::fs::read_dir(&at).map_err(|e| format!("{}: {e}", at.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", at.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return Err(format!(
                "{}: a name that is not UTF-8; rename it",
                entry.path().display()
            ));
        };
        let path = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        if kind.is_dir() {
            walk(dir, &path, out)?;
        } else if kind.is_file() {
            out.push(path);
        } else {
            return Err(format!(
                "{}: not a regular file or a folder (std/package refuses links and special files in a package); remove it or replace it with the file",
                entry.path().display()
            ));
        }
    }
    Ok(())
}
