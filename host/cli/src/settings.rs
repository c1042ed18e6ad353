//! The WebAssembly runtime a command uses, made from the global flags.

use std::path::PathBuf;

use vcc_report::law::exit;
use vcc_runtime::{Builtin, Cache, Frame, Raw, Runtime};

use crate::args::Cli;

pub fn runtime(cli: &Cli) -> Result<Runtime, i32> {
    RuntimeSettings::of(cli).runtime().map_err(|e| {
        eprintln!("vcc: {e}");
        exit::INVALID
    })
}

/// What a runtime is made from (for `vcc mcp`, which makes one per call).
#[derive(Clone)]
pub struct RuntimeSettings {
    cache_dir: Option<PathBuf>,
}

impl RuntimeSettings {
    pub fn of(cli: &Cli) -> RuntimeSettings {
        RuntimeSettings {
            cache_dir: if cli.no_cache {
                None
            } else {
                cli.cache_dir.clone().or_else(Cache::default_dir)
            },
        }
    }

    /// The cache folder, unless `--no-cache`.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.cache_dir.clone()
    }

    /// The runtime of a command: a large component's first run gets Winch
    /// code, and Cranelift's is compiled in the background (W15).
    pub fn runtime(&self) -> Result<Runtime, String> {
        let mut runtime = self.plain_runtime()?;
        // VCC_QUICK_COMPILE=0: Cranelift for every first run, as before
        // (and in `vcc cache compile`, which is the background compile).
        if let Some(dir) = &self.cache_dir
            && quick_compile()
        {
            let dir = dir.clone();
            runtime.quick_first_runs(Box::new(move |bytes| compile_in_background(&dir, bytes)));
        }
        Ok(runtime)
    }

    /// A runtime that compiles with Cranelift only.
    pub fn plain_runtime(&self) -> Result<Runtime, String> {
        let frame = |f: &vcc_std::Frame| Frame {
            zst: f.zst,
            size: f.size,
            digest: f.digest,
        };
        let builtins = vcc_std::BUILTINS
            .iter()
            .map(|b| Builtin {
                name: b.name,
                wasm: frame(&b.wasm),
                native: frame(&b.native),
                wasm_dictionary: frame(&vcc_std::WASM_DICTIONARY),
                native_dictionary: Raw {
                    bytes: vcc_std::NATIVE_DICTIONARY.bytes,
                    digest: vcc_std::NATIVE_DICTIONARY.digest,
                },
            })
            .collect();
        // A knob for tests and slow machines: how long one component may take
        // to compile (a duration like `300s`).
        let compile_timeout = match std::env::var("VCC_COMPILE_TIMEOUT") {
            Ok(text) if !text.is_empty() => {
                vcc_contract::DurationSpec::parse(&text)
                    .map_err(|e| format!("VCC_COMPILE_TIMEOUT: {e}"))?
                    .0
            }
            _ => vcc_runtime::DEFAULT_COMPILE_TIMEOUT,
        };
        let (runtime, warning) = Runtime::new(builtins, self.cache_dir.as_deref(), compile_timeout)
            .map_err(|err| format!("cannot start the WebAssembly runtime: {err:#}"))?;
        if let Some(warning) = warning {
            eprintln!("vcc: warning: {warning}");
        }
        Ok(runtime)
    }
}

const QUICK_COMPILE: &str = "VCC_QUICK_COMPILE";

/// VCC_QUICK_COMPILE: `0`, `false`, `no` or `off` turn Winch first runs off.
fn quick_compile() -> bool {
    let value = std::env::var(QUICK_COMPILE).unwrap_or_default();
    !matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "0" | "false" | "no" | "off"
    )
}

/// Start `vcc cache compile -` on `bytes`, and do not wait for it: the run
/// that asked goes on with Winch code, and the next one finds Cranelift's
/// in the cache. The child has its own process group, no stdout or stderr
/// and no other descriptor of this process (a harness or a pipeline
/// waiting for this run's output never waits for it), and the bytes are
/// written from a thread (a stalled child holds this run up 2 s at most);
/// if it is killed, the next first run starts another. Nothing is reported: it
/// only ever saves time.
fn compile_in_background(cache_dir: &std::path::Path, bytes: &[u8]) {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut command = Command::new(exe);
    command
        .arg("--cache-dir")
        .arg(cache_dir)
        .args(["cache", "compile", "-"])
        .env(QUICK_COMPILE, "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // SAFETY: close_range is async-signal-safe and only closes descriptors
    // of the child, above stderr, before it execs.
    unsafe {
        command.pre_exec(|| {
            libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
            Ok(())
        });
    }
    let Ok(mut child) = command.spawn() else {
        return;
    };
    let stdin = child.stdin.take();
    let bytes = bytes.to_vec();
    let (written, done) = std::sync::mpsc::channel::<()>();
    // Reaped when it ends, if this process lives that long (`vcc mcp`).
    std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&bytes);
        }
        drop(written);
        child.wait()
    });
    // The child reads all its input first (about 20 ms for 18 MB): wait
    // for that, or this process could end mid-write and leave the child a
    // truncated component; but never long for a child that does not read.
    let _ = done.recv_timeout(std::time::Duration::from_secs(2));
}
