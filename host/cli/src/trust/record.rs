//! `vcc record [--inputs PATH…] [--outputs PATH…] --out FILE -- CMD ARGS…`:
//! evidence from outside the sandbox.
//!
//! Validators never run commands. Tests, linters and type checkers run
//! here instead, and what happened becomes a deliverable: a JSON record
//! (command, working folder, exit code, start/end, duration, blake3 of the
//! whole stdout and stderr, of every input before the command ran and of
//! every output after) plus the captured output (capped) in `FILE.stdout`
//! and `FILE.stderr`. The output still streams to the terminal as it comes.
//! Paths in the record are relative to the deliverable root (`--root`, by
//! default the current folder), so `std/exit-record` can compare them with
//! the files `vcc check` hashed.
//!
//! The record carries `record_digest` over its own canonical form (see the
//! `vcc-record` crate): an edited record no longer matches it. That is
//! integrity, not authenticity — the record is the word of whoever ran the
//! command.
//!
//! The captures are written first and the record last, atomically: a record
//! on disk always describes complete captures. `vcc record` exits with the
//! command's exit code (128 + N when killed by signal N; 127 when it could
//! not be started), so it can stand in for the command in a script.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};
use vcc_contract::exclude::{IGNORE_FILES, MAX_IGNORE_FILE};
use vcc_contract::{Decision, Excludes, IgnoreFile};

use crate::args::RecordArgs;

/// At most this many input or output files (the `vcc check` default cap).
const MAX_FILES: usize = 1_000_000;

/// What one output stream produced.
struct Stream {
    bytes: u64,
    hasher: blake3::Hasher,
    captured: Vec<u8>,
}

impl Stream {
    fn json(&self, file: &str) -> Value {
        json!({
            "bytes": self.bytes,
            "digest": format!("blake3:{}", self.hasher.finalize().to_hex()),
            "file": file,
            "captured_bytes": self.captured.len(),
            "captured_digest": format!("blake3:{}", blake3::hash(&self.captured).to_hex()),
            "truncated": self.captured.len() as u64 != self.bytes,
        })
    }
}

/// Copy a child's stream to our own, hashing all of it and keeping the
/// first `cap` bytes.
fn pump(mut from: impl Read, mut to: impl Write, cap: usize) -> Stream {
    let mut stream = Stream {
        bytes: 0,
        hasher: blake3::Hasher::new(),
        captured: Vec::new(),
    };
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let chunk = &buf[..n];
        // The terminal going away must not stop the recording.
        let _ = to.write_all(chunk).and_then(|()| to.flush());
        stream.bytes += n as u64;
        stream.hasher.update(chunk);
        let room = cap.saturating_sub(stream.captured.len());
        stream.captured.extend_from_slice(&chunk[..n.min(room)]);
    }
    stream
}

/// A hashed file: its digest, size and the metadata it had when hashed.
#[derive(Clone, PartialEq)]
struct Hashed {
    digest: String,
    size: u64,
    stamp: (u64, u64, i64, i64, i64, i64),
}

fn stamp(meta: &std::fs::Metadata) -> (u64, u64, i64, i64, i64, i64) {
    (
        meta.dev(),
        meta.ino(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    )
}

fn hash_file(path: &Path) -> io::Result<Hashed> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let mut hasher = blake3::Hasher::new();
    let size = io::copy(&mut file, &mut hasher)?;
    Ok(Hashed {
        digest: format!("blake3:{}", hasher.finalize().to_hex()),
        size,
        stamp: stamp(&meta),
    })
}

/// Where the record's paths are relative to, and the files it must not
/// list (its own, and what the excludes leave out).
struct Layout {
    root: PathBuf,
    cwd: PathBuf,
    /// The record file (canonical folder).
    record: PathBuf,
    own: BTreeSet<PathBuf>,
    /// `.git`, `--exclude`, and with `--gitignore` the root's ignore
    /// files: the same rules, with the same matcher, as `vcc check`.
    excludes: Excludes,
    /// The ignore files of each folder read so far (relative to the root).
    ignore_files: RefCell<HashMap<String, Vec<IgnoreFile>>>,
    /// Files left out, for the message.
    left_out: RefCell<usize>,
}

impl Layout {
    /// The files a path names (a file, or every file under a folder), as
    /// (path relative to the root, path on disk), sorted.
    fn files(&self, spec: &Path) -> Result<Vec<(String, PathBuf)>, String> {
        let at = self.cwd.join(spec);
        let canonical =
            std::fs::canonicalize(&at).map_err(|e| format!("{}: {e}", spec.display()))?;
        if !canonical.starts_with(&self.root) {
            return Err(format!(
                "{} is outside the root {} (give --root the folder `vcc check --dir` will use)",
                spec.display(),
                self.root.display()
            ));
        }
        let mut out = Vec::new();
        let mut todo = vec![canonical];
        while let Some(path) = todo.pop() {
            let meta =
                std::fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let kind = meta.file_type();
            if self.excluded(&path, kind.is_dir())? {
                *self.left_out.borrow_mut() += 1;
                continue;
            }
            if kind.is_dir() {
                let entries =
                    std::fs::read_dir(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                for entry in entries {
                    todo.push(
                        entry
                            .map_err(|e| format!("{}: {e}", path.display()))?
                            .path(),
                    );
                }
            } else if kind.is_file() {
                if self.own.contains(&path) {
                    continue;
                }
                let rel = path
                    .strip_prefix(&self.root)
                    .ok()
                    .and_then(Path::to_str)
                    .ok_or_else(|| format!("{}: the name is not UTF-8", path.display()))?
                    .to_string();
                out.push((rel, path));
                if out.len() > MAX_FILES {
                    return Err(format!(
                        "{} holds more than {MAX_FILES} files",
                        spec.display()
                    ));
                }
            } else {
                // `vcc check` never reads symlinks or special files, so a
                // digest of one could never be compared: say so now.
                return Err(format!(
                    "{} is not a regular file or folder (vcc check does not read symlinks or special files); name the files instead",
                    path.display()
                ));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Whether the excludes leave out `path` (under the root), judged on
    /// the folders above it too, as `vcc check`'s walk judges it.
    fn excluded(&self, path: &Path, is_dir: bool) -> Result<bool, String> {
        let Some(rel) = path.strip_prefix(&self.root).ok().and_then(Path::to_str) else {
            return Ok(false);
        };
        if rel.is_empty() {
            return Ok(false);
        }
        let parts: Vec<&str> = rel.split('/').collect();
        let mut layers: Vec<Vec<IgnoreFile>> = vec![self.ignore_files_of("")?];
        for depth in 1..=parts.len() {
            let here = parts[..depth].join("/");
            let dir = depth < parts.len() || is_dir;
            let refs: Vec<&[IgnoreFile]> = layers.iter().map(Vec::as_slice).collect();
            if let Decision::Excluded(_) = self.excludes.decide(&here, dir, &refs) {
                return Ok(true);
            }
            if depth < parts.len() {
                layers.push(self.ignore_files_of(&here)?);
            }
        }
        Ok(false)
    }

    /// The ignore files of a folder (relative to the root), with
    /// `--gitignore`; one that cannot be read or parsed is an error, as it
    /// is for `vcc check` (what it leaves out would be a guess).
    fn ignore_files_of(&self, folder: &str) -> Result<Vec<IgnoreFile>, String> {
        if !self.excludes.gitignore {
            return Ok(Vec::new());
        }
        if let Some(files) = self.ignore_files.borrow().get(folder) {
            return Ok(files.clone());
        }
        let mut files = Vec::new();
        for name in IGNORE_FILES {
            let path = self.root.join(folder).join(name);
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => {}
                _ => continue,
            }
            let bytes = crate::attach::read_capped(&path, MAX_IGNORE_FILE)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            files.push(IgnoreFile::parse(folder, name, &bytes)?);
        }
        self.ignore_files
            .borrow_mut()
            .insert(folder.to_string(), files.clone());
        Ok(files)
    }

    /// Hash every file the specs name.
    fn hash(&self, specs: &[PathBuf]) -> Result<BTreeMap<String, (PathBuf, Hashed)>, String> {
        let mut all = BTreeMap::new();
        for spec in specs {
            for (rel, path) in self.files(spec)? {
                let hashed = hash_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                all.insert(rel, (path, hashed));
            }
        }
        Ok(all)
    }

    /// A path relative to the root, or absolute when outside it.
    fn relative(&self, path: &Path) -> Value {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => json!("."),
            Ok(rel) => json!(rel.to_string_lossy()),
            Err(_) => Value::Null,
        }
    }
}

fn list(files: &BTreeMap<String, (PathBuf, Hashed)>) -> Value {
    Value::Array(
        files
            .iter()
            .map(|(rel, (_, h))| json!({"path": rel, "digest": h.digest, "size": h.size}))
            .collect(),
    )
}

/// The inputs that changed while the command ran: metadata first, and the
/// bytes again for any whose metadata moved.
fn changed(inputs: &BTreeMap<String, (PathBuf, Hashed)>) -> Vec<String> {
    inputs
        .iter()
        .filter(
            |(_, (path, before))| match std::fs::symlink_metadata(path) {
                Ok(meta) if stamp(&meta) == before.stamp && meta.len() == before.size => false,
                Ok(_) => hash_file(path).map_or(true, |now| now.digest != before.digest),
                Err(_) => true,
            },
        )
        .map(|(rel, _)| rel.clone())
        .collect()
}

pub fn run(args: &RecordArgs) -> i32 {
    let command = &args.command;
    let Some((program, rest)) = command.split_first() else {
        eprintln!(
            "vcc record: give the command after `--`, e.g. `vcc record --out out/tests.json -- cargo test`"
        );
        return 2;
    };
    let out = &args.out;
    let cap = usize::try_from(args.max_capture).unwrap_or(usize::MAX);
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into());
    let stdout_file = format!("{name}.stdout");
    let stderr_file = format!("{name}.stderr");
    let key = match args
        .key
        .as_deref()
        .map(vcc_trust::keys::PrivateKey::read)
        .transpose()
    {
        Ok(key) => key,
        Err(r) => {
            eprintln!("vcc record: --key: {}", r.message);
            return 2;
        }
    };
    let layout = match layout(args, &dir, &name, &stdout_file, &stderr_file) {
        Ok(layout) => layout,
        Err(err) => {
            eprintln!("vcc record: {err}");
            return 2;
        }
    };
    let inputs = match layout.hash(&args.inputs) {
        Ok(inputs) => inputs,
        Err(err) => {
            eprintln!("vcc record: --inputs {err}");
            return 2;
        }
    };

    let started_at = SystemTime::now();
    let started = Instant::now();
    let child = Command::new(program)
        .args(rest)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let (status, stdout, stderr, error) = match child {
        Err(err) => {
            let empty = || pump(io::empty(), io::sink(), 0);
            (None, empty(), empty(), Some(err))
        }
        Ok(mut child) => {
            let out_pipe = child.stdout.take();
            let err_pipe = child.stderr.take();
            let out_thread = thread::spawn(move || match out_pipe {
                Some(p) => pump(p, io::stdout(), cap),
                None => pump(io::empty(), io::sink(), 0),
            });
            let err_thread = thread::spawn(move || match err_pipe {
                Some(p) => pump(p, io::stderr(), cap),
                None => pump(io::empty(), io::sink(), 0),
            });
            let status = child.wait();
            let stdout = out_thread
                .join()
                .unwrap_or_else(|_| pump(io::empty(), io::sink(), 0));
            let stderr = err_thread
                .join()
                .unwrap_or_else(|_| pump(io::empty(), io::sink(), 0));
            match status {
                Ok(status) => (Some(status), stdout, stderr, None),
                Err(err) => (None, stdout, stderr, Some(err)),
            }
        }
    };
    let duration_ms = started.elapsed().as_millis() as u64;
    let ended_at = SystemTime::now();
    let inputs_changed = changed(&inputs);
    let mut outputs = BTreeMap::new();
    let mut outputs_missing = Vec::new();
    for spec in &args.outputs {
        match layout.hash(std::slice::from_ref(spec)) {
            Ok(found) => outputs.extend(found),
            Err(why) => {
                outputs_missing.push(json!({"path": spec.display().to_string(), "why": why}))
            }
        }
    }

    use std::os::unix::process::ExitStatusExt;
    let exit_code = status.and_then(|s| s.code());
    let signal = status.and_then(|s| s.signal());
    let mut record = json!({
        "vcc_record": vcc_record::VERSION,
        "command": command,
        "root": layout.root.display().to_string(),
        "cwd": layout.relative(&layout.cwd),
        "cwd_absolute": layout.cwd.display().to_string(),
        "path": layout.relative(&layout.record),
        "started_at": humantime::format_rfc3339_millis(started_at).to_string(),
        "ended_at": humantime::format_rfc3339_millis(ended_at).to_string(),
        "duration_ms": duration_ms,
        "exit_code": exit_code,
        "signal": signal,
        "error": error.as_ref().map(|e| e.to_string()),
        "stdout": stdout.json(&stdout_file),
        "stderr": stderr.json(&stderr_file),
        "inputs": list(&inputs),
        "inputs_changed": inputs_changed,
        "outputs": list(&outputs),
        "outputs_missing": outputs_missing,
        "vcc_version": env!("CARGO_PKG_VERSION"),
    });
    // The rules that left files out, so a reader of the record knows.
    if !args.exclude.is_empty() || args.gitignore {
        record["exclude"] = json!(args.exclude);
        record["gitignore"] = json!(args.gitignore);
    }
    let digest = vcc_record::digest(&record);
    record[vcc_record::DIGEST_FIELD] = json!(digest);

    let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
    let envelope_path = PathBuf::from(format!("{}{}", out.display(), vcc_record::ENVELOPE_SUFFIX));
    // Captures first, then the record, then its signature: a record on
    // disk always describes complete captures, and a signature always
    // covers a complete record.
    let written = crate::output::write_atomically(&dir.join(&stdout_file), &stdout.captured)
        .and_then(|()| crate::output::write_atomically(&dir.join(&stderr_file), &stderr.captured))
        .and_then(|()| crate::output::write_atomically(out, text.as_bytes()))
        .and_then(|()| match &key {
            Some(key) => {
                let envelope =
                    vcc_trust::dsse::Envelope::sign(vcc_record::PAYLOAD_TYPE, text.as_bytes(), key);
                let json = serde_json::to_string_pretty(&envelope).unwrap_or_default() + "\n";
                crate::output::write_atomically(&envelope_path, json.as_bytes())
            }
            // An envelope left by an earlier, signed run would sign other
            // bytes: remove it rather than leave it lying.
            None => match std::fs::remove_file(&envelope_path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        });
    if let Err(err) = written {
        eprintln!("vcc record: cannot write {}: {err}", out.display());
        return 2;
    }
    let left_out = *layout.left_out.borrow();
    if left_out > 0 {
        eprintln!(
            "vcc record: {left_out} file(s) or folder(s) under --inputs/--outputs left out by .git, --exclude or --gitignore"
        );
    }
    if !inputs_changed.is_empty() {
        eprintln!(
            "vcc record: {} input(s) changed while the command ran ({}); std/exit-record will not accept this record",
            inputs_changed.len(),
            inputs_changed
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    match (exit_code, signal, &error) {
        (_, _, Some(err)) => {
            eprintln!(
                "vcc record: cannot run `{program}`: {err} (recorded in {})",
                out.display()
            );
            if err.kind() == io::ErrorKind::PermissionDenied {
                126
            } else {
                127
            }
        }
        (Some(code), _, None) => code,
        (None, Some(signal), None) => 128 + signal,
        (None, None, None) => 1,
    }
}

/// The root, the working folder, and the record's own files (canonical),
/// with the record's folder created.
fn layout(
    args: &RecordArgs,
    dir: &Path,
    name: &str,
    stdout_file: &str,
    stderr_file: &str,
) -> Result<Layout, String> {
    let cwd = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|e| format!("cannot read the current folder: {e}"))?;
    let root_arg = args.root.clone().unwrap_or_else(|| PathBuf::from("."));
    let root = std::fs::canonicalize(&root_arg)
        .map_err(|e| format!("--root {}: {e}", root_arg.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let dir = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let envelope = format!("{name}{}", vcc_record::ENVELOPE_SUFFIX);
    let own = [name, stdout_file, stderr_file, envelope.as_str()]
        .into_iter()
        .map(|f| dir.join(f))
        .collect();
    let excludes = Excludes::new(&[], &args.exclude, args.gitignore).map_err(|bad| {
        format!(
            "--exclude `{}`: {}",
            args.exclude.get(bad.index).map_or("", String::as_str),
            bad.message
        )
    })?;
    Ok(Layout {
        root,
        cwd,
        record: dir.join(name),
        own,
        excludes,
        ignore_files: RefCell::new(HashMap::new()),
        left_out: RefCell::new(0),
    })
}
