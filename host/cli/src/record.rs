//! `vcc record --out FILE -- CMD ARGS…`: evidence from outside the sandbox.
//!
//! Validators never run commands. Tests, linters and type checkers run
//! here instead, and what happened becomes a deliverable: a JSON record
//! (command, exit code, start/end, duration, blake3 of the whole stdout and
//! stderr) plus the captured output (capped) in `FILE.stdout` and
//! `FILE.stderr`. The output still streams to the terminal as it comes.
//! `std/exit-record` checks such records.
//!
//! The captures are written first and the record last, atomically: a record
//! on disk always describes complete captures. `vcc record` exits with the
//! command's exit code (128 + N when killed by signal N; 127 when it could
//! not be started), so it can stand in for the command in a script.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Instant, SystemTime};

use serde_json::{Value, json};

/// The record format (`std/exit-record` checks `vcc_record`).
pub const RECORD_VERSION: u64 = 1;

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

pub fn run(out: &Path, max_capture: u64, command: &[String]) -> i32 {
    let Some((program, args)) = command.split_first() else {
        eprintln!(
            "vcc record: give the command after `--`, e.g. `vcc record --out out/tests.json -- cargo test`"
        );
        return 2;
    };
    let cap = usize::try_from(max_capture).unwrap_or(usize::MAX);
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let started_at = SystemTime::now();
    let started = Instant::now();
    let child = Command::new(program)
        .args(args)
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

    use std::os::unix::process::ExitStatusExt;
    let exit_code = status.and_then(|s| s.code());
    let signal = status.and_then(|s| s.signal());
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".into());
    let stdout_file = format!("{name}.stdout");
    let stderr_file = format!("{name}.stderr");
    let record = json!({
        "vcc_record": RECORD_VERSION,
        "command": command,
        "cwd": cwd,
        "started_at": humantime::format_rfc3339_millis(started_at).to_string(),
        "ended_at": humantime::format_rfc3339_millis(ended_at).to_string(),
        "duration_ms": duration_ms,
        "exit_code": exit_code,
        "signal": signal,
        "error": error.as_ref().map(|e| e.to_string()),
        "stdout": stdout.json(&stdout_file),
        "stderr": stderr.json(&stderr_file),
        "vcc_version": env!("CARGO_PKG_VERSION"),
    });

    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| crate::commands::write_atomically(&dir.join(&stdout_file), &stdout.captured))
        .and_then(|()| crate::commands::write_atomically(&dir.join(&stderr_file), &stderr.captured))
        .and_then(|()| {
            let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
            crate::commands::write_atomically(out, text.as_bytes())
        });
    if let Err(err) = written {
        eprintln!("vcc record: cannot write {}: {err}", out.display());
        return 2;
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
