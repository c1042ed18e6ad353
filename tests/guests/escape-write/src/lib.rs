//! Tries every way out of the sandbox it can think of: writes of every kind
//! on the deliverables, `..` and absolute paths, symlinks, environment,
//! arguments, stdin and the network. It returns `pass` only if one of them
//! worked (so a hole in the sandbox makes the test fail loudly), and
//! otherwise `fail` with one finding per attempt that was denied.
use std::fs::{self, OpenOptions};
use std::io::{Read, Write};

use vcc_sdk::{Criterion, Description, Finding, Outcome, Validator};

struct EscapeWrite;

type Attempt = (&'static str, Box<dyn Fn(&str) -> std::io::Result<String>>);

fn attempts() -> Vec<Attempt> {
    vec![
        (
            "create a new file",
            Box::new(|_| fs::write("/deliverables/planted.txt", "PASS").map(|_| "created".into())),
        ),
        (
            "overwrite a target",
            Box::new(|t| {
                OpenOptions::new().write(true).open(t)?.write_all(b"PASS")?;
                Ok("overwrote".into())
            }),
        ),
        (
            "truncate a target",
            Box::new(|t| {
                OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(t)
                    .map(|_| "truncated".into())
            }),
        ),
        (
            "append to a target",
            Box::new(|t| {
                OpenOptions::new()
                    .append(true)
                    .open(t)?
                    .write_all(b"PASS")?;
                Ok("appended".into())
            }),
        ),
        (
            "remove a target",
            Box::new(|t| fs::remove_file(t).map(|_| "removed".into())),
        ),
        (
            "rename a target",
            Box::new(|t| fs::rename(t, "/deliverables/renamed").map(|_| "renamed".into())),
        ),
        (
            "make a directory",
            Box::new(|_| fs::create_dir("/deliverables/newdir").map(|_| "made".into())),
        ),
        (
            "hard-link a target",
            Box::new(|t| fs::hard_link(t, "/deliverables/linked").map(|_| "linked".into())),
        ),
        (
            "symlink out of the root",
            Box::new(|_| {
                root()?
                    .symlink_at("/etc/passwd", "evil")
                    .map(|_| "symlinked".into())
                    .map_err(wasi_err)
            }),
        ),
        (
            "change a target's timestamps",
            Box::new(|t| {
                use wasi::filesystem::types::{NewTimestamp, PathFlags};
                let name = t.trim_start_matches("/deliverables/");
                root()?
                    .set_times_at(
                        PathFlags::empty(),
                        name,
                        NewTimestamp::NoChange,
                        NewTimestamp::Now,
                    )
                    .map(|_| "touched".into())
                    .map_err(wasi_err)
            }),
        ),
        (
            "read through ..",
            Box::new(|_| fs::read_to_string("/deliverables/../../etc/passwd")),
        ),
        (
            "read an absolute host path",
            Box::new(|_| fs::read_to_string("/etc/passwd")),
        ),
        (
            "read through a symlink in the root",
            Box::new(|_| fs::read_to_string("/deliverables/link-out/passwd")),
        ),
        (
            "read /proc",
            Box::new(|_| fs::read_to_string("/proc/self/environ")),
        ),
        (
            "list the guest root",
            Box::new(|_| {
                let names: Vec<String> = fs::read_dir("/")?
                    .filter_map(|e| e.ok())
                    .map(|e| e.path().display().to_string())
                    .collect();
                if names.iter().all(|n| n == "/deliverables") {
                    Err(std::io::Error::other(format!("only {names:?}")))
                } else {
                    Ok(names.join(","))
                }
            }),
        ),
        (
            "read the environment",
            Box::new(|_| {
                let vars: Vec<String> = std::env::vars().map(|(k, _)| k).collect();
                if vars.is_empty() {
                    Err(std::io::Error::other("no variables"))
                } else {
                    Ok(vars.join(","))
                }
            }),
        ),
        (
            "read the arguments",
            Box::new(|_| {
                let args: Vec<String> = std::env::args().collect();
                if args.is_empty() {
                    Err(std::io::Error::other("no arguments"))
                } else {
                    Ok(args.join(" "))
                }
            }),
        ),
        (
            "read stdin",
            Box::new(|_| {
                let mut buf = [0u8; 16];
                match std::io::stdin().read(&mut buf)? {
                    0 => Err(std::io::Error::other("stdin is closed")),
                    n => Ok(format!("{n} bytes")),
                }
            }),
        ),
        (
            "connect to the network",
            Box::new(|_| std::net::TcpStream::connect("127.0.0.1:80").map(|_| "connected".into())),
        ),
        (
            "resolve a host name",
            Box::new(|_| {
                use std::net::ToSocketAddrs;
                ("localhost", 80)
                    .to_socket_addrs()
                    .map(|a| format!("{} addresses", a.count()))
            }),
        ),
    ]
}

/// The preopened `/deliverables` directory, through raw WASI.
fn root() -> std::io::Result<wasi::filesystem::types::Descriptor> {
    wasi::filesystem::preopens::get_directories()
        .into_iter()
        .find(|(_, path)| path == "/deliverables")
        .map(|(dir, _)| dir)
        .ok_or_else(|| std::io::Error::other("no /deliverables preopen"))
}

fn wasi_err(code: wasi::filesystem::types::ErrorCode) -> std::io::Error {
    std::io::Error::other(format!("{code:?}"))
}

impl Validator for EscapeWrite {
    fn describe() -> Description {
        Description::new("escape-write", "0.1.0", "tries to write and escape")
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let target = criterion
            .paths()
            .next()
            .ok_or("give me a target file")?
            .to_string();
        let mut escaped = Vec::new();
        let mut denied = Vec::new();
        for (what, attempt) in attempts() {
            match attempt(&target) {
                Ok(detail) => escaped.push(format!("{what}: {detail}")),
                Err(err) => {
                    denied.push(Finding::new(format!("denied: {what}: {err}")).rule("denied"))
                }
            }
        }
        if escaped.is_empty() {
            Ok(
                Outcome::fail(format!("all {} attempts were denied", denied.len()))
                    .findings(denied),
            )
        } else {
            Ok(Outcome::pass(format!("ESCAPED: {}", escaped.join("; "))))
        }
    }
}

vcc_sdk::export_validator!(EscapeWrite);
