//! A platform team, a project team and a real OCI registry, for the bundle
//! tests: keys, trust policies, a bundle store and a `vcc` that sees only
//! them (its own config, store and docker folders).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Run, shared_cache};

/// `docker-registry` (the CNCF distribution server, from Debian), on
/// 127.0.0.1 with an ephemeral port and a temp storage folder; killed when
/// dropped.
pub struct Registry {
    child: Child,
    pub host: String,
    _dir: tempfile::TempDir,
}

impl Registry {
    pub fn start() -> Registry {
        let program = which("docker-registry").unwrap_or_else(|| {
            panic!("docker-registry is not installed: run `bash tests/install-tools.sh`")
        });
        let dir = tempfile::tempdir().expect("registry folder");
        for _ in 0..5 {
            // An ephemeral port, released for the registry to take.
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port();
            let config = dir.path().join("config.yml");
            std::fs::write(
                &config,
                format!(
                    "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
                    dir.path().join("data").display()
                ),
            )
            .expect("registry config");
            let mut child = Command::new(&program)
                .arg("serve")
                .arg(&config)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start docker-registry");
            let host = format!("127.0.0.1:{port}");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = child.try_wait() {
                    break; // the port was taken meanwhile: try another
                }
                if http_get(&host, "/v2/").is_some_and(|r| r.starts_with("HTTP/1.1 200")) {
                    return Registry {
                        child,
                        host,
                        _dir: dir,
                    };
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("docker-registry did not start");
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A plain HTTP/1.1 GET (status line and headers and body), or `None`.
pub fn http_get(host: &str, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(host).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    Some(text)
}

pub fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(program))
        .find(|p| p.is_file())
}

/// The folder the project's install script puts its tools in.
pub fn tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("VCC_TOOLS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache"));
    cache.join("vcc-tools")
}

/// Verify a DSSE envelope with securesystemslib (not vcc's code):
/// signed by the Ed25519 key in `public_key`, of `payload_type`, its
/// payload exactly `payload`'s bytes (tests/trust/verify_envelope.py).
pub fn securesystemslib_verifies(
    envelope: &Path,
    public_key: &Path,
    payload: &Path,
    payload_type: &str,
) {
    let keyid = vcc_trust::keys::PublicKey::read(public_key)
        .unwrap()
        .id()
        .to_string();
    let out = Command::new(tools_dir().join("trust-py/bin/python"))
        .arg(crate::repo().join("tests/trust/verify_envelope.py"))
        .arg(envelope)
        .arg(public_key)
        .arg(&keyid)
        .arg(payload)
        .arg(payload_type)
        .output()
        .unwrap();
    // Its verdict is on stdout; a Python error (a missing module) on stderr.
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One machine's view: keys, trust policies, a store, projects.
pub struct World {
    dir: tempfile::TempDir,
}

impl World {
    pub fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().expect("world folder"),
        };
        for sub in ["config", "docker", "keys", "bundles"] {
            std::fs::create_dir_all(world.path().join(sub)).expect("world folders");
        }
        world
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn store(&self) -> PathBuf {
        self.path().join("store")
    }

    /// `vcc ARGS` run in the world's folder, seeing only its config, store
    /// and registry credentials.
    pub fn vcc(&self, args: &[&str]) -> Run {
        self.vcc_in(self.path(), args)
    }

    pub fn vcc_in(&self, cwd: &Path, args: &[&str]) -> Run {
        let output = self.command(cwd).args(args).output().expect("run vcc");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    pub fn command(&self, cwd: &Path) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_vcc"));
        command
            .current_dir(cwd)
            .env("VCC_CACHE_DIR", shared_cache())
            .env("VCC_STORE_DIR", self.store())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("DOCKER_CONFIG", self.path().join("docker"))
            .env_remove("VCC_TRUST")
            .env("NO_COLOR", "1");
        command
    }

    /// `vcc key generate keys/NAME`; the public key's id.
    pub fn key(&self, name: &str) -> String {
        let run = self.vcc(&["key", "generate", &format!("keys/{name}")]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.trim().to_string()
    }

    /// Write `trust.yaml` (outside every project) listing `keys` and one
    /// rule per line of `rules`; its path.
    pub fn trust(&self, keys: &[&str], rules: &[&str], more: &str) -> PathBuf {
        let mut text = String::from("trust: 1\nkeys:\n");
        for k in keys {
            text.push_str(&format!("  - {{ id: {k}, public_key: keys/{k}.pub }}\n"));
        }
        text.push_str("bundles:\n");
        for r in rules {
            text.push_str(&format!("  - {r}\n"));
        }
        text.push_str(more);
        let path = self.path().join("trust.yaml");
        std::fs::write(&path, text).expect("write trust.yaml");
        path
    }

    /// Build a bundle of fixture components and base contracts into
    /// `bundles/DIR`; its folder.
    pub fn bundle(
        &self,
        dir: &str,
        name: &str,
        version: &str,
        validators: &[(&str, &str)],
        contracts: &[(&str, &str)],
    ) -> PathBuf {
        let src = self.path().join("src").join(dir);
        std::fs::create_dir_all(&src).expect("bundle sources");
        let mut manifest =
            format!("name: {name}\nversion: {version}\ndescription: test bundle\nvalidators:\n");
        for (v, fixture) in validators {
            std::fs::copy(fixture, src.join(format!("{v}.wasm"))).expect("copy a fixture");
            manifest.push_str(&format!("  {v}: {v}.wasm\n"));
        }
        manifest.push_str("contracts:\n");
        for (c, yaml) in contracts {
            std::fs::write(src.join(format!("{c}.yaml")), yaml).expect("write a base contract");
            manifest.push_str(&format!("  {c}: {c}.yaml\n"));
        }
        std::fs::write(src.join("vcc-bundle.yaml"), manifest).expect("write vcc-bundle.yaml");
        let out = self.path().join("bundles").join(dir);
        let run = self.vcc(&[
            "bundle",
            "build",
            &src.join("vcc-bundle.yaml").display().to_string(),
            "--out",
            &out.display().to_string(),
        ]);
        assert_eq!(run.code, 0, "vcc bundle build: {}", run.stderr);
        out
    }

    pub fn sign(&self, layout: &Path, key: &str) {
        let run = self.vcc(&[
            "bundle",
            "sign",
            &layout.display().to_string(),
            "--key",
            &format!("keys/{key}.key"),
        ]);
        assert_eq!(run.code, 0, "vcc bundle sign: {}", run.stderr);
    }

    /// A project folder `NAME` with these files; its path.
    pub fn project(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.path().join(name);
        for (file, text) in files {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("project folders");
            std::fs::write(path, text).expect("write a project file");
        }
        dir
    }
}

/// The refusal code `vcc` printed (`… refused: CODE: …`), or the codes of
/// a JSON report's problems.
pub fn refusal(run: &Run) -> String {
    if let Some(rest) = run.stderr.split("refused: ").nth(1) {
        return rest.split(':').next().unwrap_or("").to_string();
    }
    String::new()
}
