//! `vcc validator build` for validators written in C, Zig, or with any
//! toolchain (`lang: custom`): find a compiler, build a wasip1 core module,
//! and make it a component with `componentize`.
//!
//! The C compilers are tried in the order a newcomer is likeliest to have
//! them: Zig's bundled clang (`pip install ziglang`), wasi-sdk, Debian's
//! clang with wasi-libc. None found is an error naming what to install.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Run a build tool, its stderr shown as it comes; `what` names it in errors.
pub fn run(mut cmd: Command, what: &str) -> Result<std::process::Output, String> {
    let output = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{what} failed ({})", output.status));
    }
    Ok(output)
}

/// `$VCC_TOOLS_DIR`, else `$XDG_CACHE_HOME/vcc-tools`, else
/// `~/.cache/vcc-tools`: where `sdk/install-tools.sh` installs.
pub fn tools_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("VCC_TOOLS_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("vcc-tools")))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("vcc-tools")))
}

pub fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// The core module a C, Zig or custom build leaves for componentize.
pub const CORE: &str = ".vcc/core.wasm";

/// A C compiler that targets wasm32-wasi: the program, and the arguments
/// that come before the sources.
struct CCompiler {
    what: &'static str,
    program: OsString,
    args: Vec<OsString>,
}

/// Zig: `zig` on PATH, `$VCC_ZIG`, or PyPI's `ziglang` (`python-zig`, on
/// PATH or in the tools folder that `sdk/install-tools.sh` fills).
pub fn zig() -> Option<PathBuf> {
    std::env::var_os("VCC_ZIG")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
        .or_else(|| on_path("zig"))
        .or_else(|| on_path("python-zig"))
        .or_else(|| {
            tools_dir()
                .map(|d| d.join("zig-py/bin/python-zig"))
                .filter(|p| p.is_file())
        })
}

const INSTALL_ZIG: &str = "`pip install ziglang` (Zig and its bundled clang; vcc finds `python-zig`), or put `zig` on PATH, or set VCC_ZIG";

fn c_compiler() -> Result<CCompiler, String> {
    let common = ["-mexec-model=reactor", "-O2", "-s"];
    let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
    if let Some(zig) = zig() {
        let mut args = os(&["cc", "--target=wasm32-wasi"]);
        args.extend(os(&common));
        return Ok(CCompiler {
            what: "zig cc",
            program: zig.into(),
            args,
        });
    }
    let wasi_sdk = std::env::var_os("WASI_SDK_PATH")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/opt/wasi-sdk")])
        .map(|d| d.join("bin/clang"))
        .find(|p| p.is_file());
    if let Some(clang) = wasi_sdk {
        let mut args = os(&["--target=wasm32-wasip1"]);
        args.extend(os(&common));
        return Ok(CCompiler {
            what: "wasi-sdk's clang",
            program: clang.into(),
            args,
        });
    }
    // Debian's wasi-libc is multiarch (/usr/lib/wasm32-wasi), which its
    // clang finds by itself; other distributions ship a sysroot.
    let debian = Path::new("/usr/lib/wasm32-wasi/crt1-reactor.o").is_file();
    let sysroot = Path::new("/usr/share/wasi-sysroot");
    if let Some(clang) = on_path("clang").filter(|_| debian || sysroot.is_dir()) {
        let mut args = os(&["--target=wasm32-wasi"]);
        if !debian {
            args.push(format!("--sysroot={}", sysroot.display()).into());
        }
        args.extend(os(&common));
        return Ok(CCompiler {
            what: "clang with wasi-libc",
            program: clang.into(),
            args,
        });
    }
    Err(format!(
        "no C compiler for WebAssembly found: {INSTALL_ZIG}; or install wasi-sdk and set WASI_SDK_PATH; or, on Debian, `apt install clang lld wasi-libc libclang-rt-dev-wasm32`"
    ))
}

/// `lang: c`: the project's sources and the SDK's vcc_sdk.c.
pub fn build_c(dir: &Path, sources: &[String]) -> Result<PathBuf, String> {
    let cc = c_compiler()?;
    let mut cmd = Command::new(&cc.program);
    cmd.current_dir(dir)
        .args(&cc.args)
        .args(["-I", ".vcc/sdk/c", "-o", CORE])
        .args(sources)
        .arg(".vcc/sdk/c/vcc_sdk.c");
    eprintln!(
        "compiling with {} ({})",
        cc.what,
        Path::new(&cc.program).display()
    );
    run(cmd, cc.what)?;
    Ok(dir.join(CORE))
}

/// `lang: zig`: the validator's Zig source, with the C SDK compiled in.
/// Zig 0.17 has no `@cImport`: the header is translated by `zig
/// translate-c` into the module `vcc_sdk` (`@import("vcc_sdk")`).
pub fn build_zig(dir: &Path, source: &str) -> Result<PathBuf, String> {
    let zig = zig().ok_or_else(|| format!("Zig is not installed: {INSTALL_ZIG}"))?;
    let target = ["-target", "wasm32-wasi"];
    let mut translate = Command::new(&zig);
    translate
        .current_dir(dir)
        .args(["translate-c", ".vcc/sdk/c/vcc_sdk.h", "-lc"])
        .args(target);
    let translated = run(translate, "zig translate-c")?;
    let module = dir.join(".vcc/sdk/c/vcc_sdk.zig");
    std::fs::write(&module, &translated.stdout)
        .map_err(|e| format!("cannot write {}: {e}", module.display()))?;
    let mut cmd = Command::new(&zig);
    cmd.current_dir(dir)
        .arg("build-exe")
        .args(target)
        .args([
            "-O",
            "ReleaseSmall",
            "-fno-entry",
            "-mexec-model=reactor",
            "-lc",
            "-fstrip",
        ])
        .args(["-I", ".vcc/sdk/c", ".vcc/sdk/c/vcc_sdk.c"])
        .args(["--dep", "vcc_sdk"])
        .arg(format!("-Mroot={source}"))
        // A module's options come before it: the SDK's module is built for
        // the same target.
        .args(target)
        .args(["-O", "ReleaseSmall", "-Mvcc_sdk=.vcc/sdk/c/vcc_sdk.zig"])
        .arg(format!("-femit-bin={CORE}"));
    eprintln!("compiling with zig build-exe ({})", zig.display());
    run(cmd, "zig build-exe")?;
    Ok(dir.join(CORE))
}

/// `lang: custom`: the project's `build:` command through `sh -c`, in the
/// project folder; it leaves `output:` (a core module or a component).
pub fn build_custom(dir: &Path, build: &str, output: &Path) -> Result<PathBuf, String> {
    let out = dir.join(output);
    // A stale output from an earlier build is never taken for this one's.
    let _ = std::fs::remove_file(&out);
    let mut cmd = Command::new("sh");
    cmd.current_dir(dir)
        .args(["-c", build])
        .env("VCC_WIT_DIR", ".vcc/wit")
        .env("VCC_SDK_C", ".vcc/sdk/c");
    run(cmd, &format!("the build command `{build}`"))?;
    if !out.is_file() {
        return Err(format!(
            "the build command `{build}` succeeded but wrote no {} (the project's `output:`)",
            out.display()
        ));
    }
    Ok(out)
}
