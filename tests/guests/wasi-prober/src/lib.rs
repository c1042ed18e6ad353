//! Probes the read-only WASI view of the deliverables with raw
//! `wasi:filesystem` calls, chosen by `params.probe`, and reports what each
//! attempt got as evidence (`probe.txt`, one `attempt => result` line):
//!
//! - `traversal`: `..` past the root, absolute paths, `//`, NUL bytes,
//!   links, creating files;
//! - `long-names`: a 4 KiB name, a 1 MiB name, 100,000 path components;
//! - `descriptors`: opens one file until the host says no (never closing);
//! - `past-end`: reads and streams at offsets past the end, huge lengths;
//! - `readdir`: lists folder `big` whole, then holds 1,000 listings of it;
//! - `threads`: tries to start 64 threads, then reads every file.
//!
//! It claims a pass whatever it saw: the host's answers are what a test
//! checks, and the run must end (pass or error), never hang or crash.
use std::fmt::Write as _;

use vcc_sdk::serde::Deserialize;
use vcc_sdk::{Criterion, Description, Outcome, Validator};
use wasip2::filesystem::preopens::get_directories;
use wasip2::filesystem::types::{Descriptor, DescriptorFlags, ErrorCode, OpenFlags, PathFlags};

struct WasiProber;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde")]
struct Params {
    probe: String,
}

/// The preopened `/deliverables`.
fn root() -> Result<Descriptor, String> {
    get_directories()
        .into_iter()
        .find(|(_, name)| name == vcc_sdk::MOUNT)
        .map(|(d, _)| d)
        .ok_or_else(|| "no /deliverables preopen".to_string())
}

fn open(dir: &Descriptor, path: &str) -> Result<Descriptor, ErrorCode> {
    dir.open_at(
        PathFlags::empty(),
        path,
        OpenFlags::empty(),
        DescriptorFlags::READ,
    )
}

/// What opening `path` under `dir` gives: `ok N bytes` or the error.
fn try_open(dir: &Descriptor, path: &str) -> String {
    match open(dir, path) {
        Ok(d) => match d.read(1 << 20, 0) {
            Ok((bytes, _)) => format!("ok {} bytes", bytes.len()),
            Err(e) => format!("opened, read: {}", e.name()),
        },
        Err(e) => e.name().to_string(),
    }
}

fn shown(path: &str) -> String {
    if path.len() > 40 {
        format!("{}… ({} bytes)", &path[..20], path.len())
    } else {
        format!("{path:?}")
    }
}

fn traversal(out: &mut String) -> Result<(), String> {
    let root = root()?;
    for path in [
        "notes.md",
        "..",
        "../..",
        "../etc/passwd",
        "sub/../../notes.md",
        "sub/../notes.md",
        "/etc/passwd",
        "/deliverables/notes.md",
        "//notes.md",
        ".//notes.md",
        "sub//deep.md",
        "notes.md\0.txt",
        "\0",
        "notes.md/",
        "notes.md/..",
    ] {
        let _ = writeln!(out, "open {} => {}", shown(path), try_open(&root, path));
    }
    let sub = open(&root, "sub").map_err(|e| format!("sub: {}", e.name()))?;
    for path in ["..", "../notes.md", "../..", "../../etc/passwd"] {
        let _ = writeln!(out, "open sub/{} => {}", shown(path), try_open(&sub, path));
    }
    let name = |r: Result<(), ErrorCode>| r.err().map_or("ok", |e| e.name()).to_string();
    let _ = writeln!(
        out,
        "stat .. => {}",
        root.stat_at(PathFlags::empty(), "..")
            .err()
            .map_or("ok", |e| e.name())
    );
    let _ = writeln!(
        out,
        "readlink notes.md => {}",
        root.readlink_at("notes.md")
            .err()
            .map_or("ok", |e| e.name())
    );
    let _ = writeln!(
        out,
        "symlink x -> /etc/passwd => {}",
        name(root.symlink_at("/etc/passwd", "x"))
    );
    let created = root.open_at(
        PathFlags::empty(),
        "new.md",
        OpenFlags::CREATE,
        DescriptorFlags::READ | DescriptorFlags::WRITE,
    );
    let _ = writeln!(
        out,
        "create new.md => {}",
        created.err().map_or("ok", |e| e.name())
    );
    Ok(())
}

fn long_names(out: &mut String) -> Result<(), String> {
    let root = root()?;
    let long = "a".repeat(4096);
    let huge = "b".repeat(1 << 20);
    let deep = format!("{}notes.md", "d/".repeat(100_000));
    let up = "../".repeat(100_000);
    let down_up = format!("{}notes.md", "x/../".repeat(100_000));
    for path in [&long, &huge, &deep, &up, &down_up] {
        let _ = writeln!(out, "open {} => {}", shown(path), try_open(&root, path));
    }
    Ok(())
}

fn descriptors(out: &mut String) -> Result<(), String> {
    let root = root()?;
    let mut held = Vec::new();
    for _ in 0..200_000 {
        match open(&root, "notes.md") {
            Ok(d) => held.push(d),
            Err(e) => {
                let _ = writeln!(out, "open stopped after {} => {}", held.len(), e.name());
                return Ok(());
            }
        }
    }
    let _ = writeln!(out, "held {} descriptors", held.len());
    Ok(())
}

fn past_end(out: &mut String) -> Result<(), String> {
    let root = root()?;
    let file = open(&root, "notes.md").map_err(|e| e.name().to_string())?;
    let size = file.stat().map_err(|e| e.name().to_string())?.size;
    let _ = writeln!(out, "size => {size}");
    for (len, offset) in [
        (16, size),
        (16, size + 1),
        (16, 1 << 40),
        (16, u64::MAX),
        (u64::MAX, 0),
        (u64::MAX, u64::MAX),
        (0, 0),
    ] {
        let r = match file.read(len, offset) {
            Ok((bytes, eof)) => format!("{} bytes, eof {eof}", bytes.len()),
            Err(e) => e.name().to_string(),
        };
        let _ = writeln!(out, "read {len} at {offset} => {r}");
    }
    for offset in [size, 1 << 40, u64::MAX] {
        let r = match file.read_via_stream(offset) {
            Ok(stream) => match stream.blocking_read(1 << 20) {
                Ok(bytes) => format!("{} bytes", bytes.len()),
                Err(e) => format!("stream {e:?}").to_lowercase(),
            },
            Err(e) => e.name().to_string(),
        };
        let _ = writeln!(out, "stream at {offset} => {r}");
    }
    let dir = open(&root, "sub").map_err(|e| e.name().to_string())?;
    let _ = writeln!(
        out,
        "read a folder => {}",
        dir.read(16, 0).err().map_or("ok", |e| e.name())
    );
    Ok(())
}

fn readdir(out: &mut String) -> Result<(), String> {
    let root = root()?;
    let big = root
        .open_at(
            PathFlags::empty(),
            "big",
            OpenFlags::DIRECTORY,
            DescriptorFlags::READ,
        )
        .map_err(|e| format!("big: {}", e.name()))?;
    let listing = big.read_directory().map_err(|e| e.name().to_string())?;
    let mut count = 0u64;
    while let Ok(Some(_)) = listing.read_directory_entry() {
        count += 1;
    }
    let _ = writeln!(out, "entries => {count}");
    // Listings held open at once: each must not cost the host a copy.
    let mut held = Vec::new();
    for _ in 0..1000 {
        match big.read_directory() {
            Ok(l) => {
                let _ = l.read_directory_entry();
                held.push(l);
            }
            Err(e) => {
                let _ = writeln!(out, "listings stopped after {} => {}", held.len(), e.name());
                return Ok(());
            }
        }
    }
    let _ = writeln!(out, "listings held => {}", held.len());
    Ok(())
}

fn threads(out: &mut String) -> Result<(), String> {
    let mut started = 0;
    let mut refused = String::new();
    for _ in 0..64 {
        match std::thread::Builder::new().spawn(|| ()) {
            Ok(h) => {
                started += 1;
                let _ = h.join();
            }
            Err(e) => refused = format!("{:?}", e.kind()),
        }
    }
    let _ = writeln!(out, "threads started => {started} (refused: {refused})");
    // Then read every file (the host runs many of these at once).
    let mut files = Vec::new();
    list("/deliverables", &mut files)?;
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).map_err(|e| format!("{f}: {e}"))?;
        let _ = writeln!(out, "{} => {} bytes", vcc_sdk::relative(&f), bytes.len());
    }
    Ok(())
}

fn list(dir: &str, out: &mut Vec<String>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{dir}: {e}"))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            list(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

impl Validator for WasiProber {
    fn describe() -> Description {
        Description::new("wasi-prober", "0.1.0", "probes the WASI view")
            .params_schema(vcc_sdk::serde_json::json!({"type": "object", "required": ["probe"]}))
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let mut out = String::new();
        match params.probe.as_str() {
            "traversal" => traversal(&mut out)?,
            "long-names" => long_names(&mut out)?,
            "descriptors" => descriptors(&mut out)?,
            "past-end" => past_end(&mut out)?,
            "readdir" => readdir(&mut out)?,
            "threads" => threads(&mut out)?,
            other => return Err(format!("no probe {other}")),
        }
        Ok(Outcome::pass("probed").evidence("probe.txt", "text/plain", out))
    }
}

vcc_sdk::export_validator!(WasiProber);
