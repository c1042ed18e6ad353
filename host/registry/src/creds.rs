//! Registry credentials where docker, podman and skopeo users keep them:
//! `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`. A
//! `credHelpers` entry for the registry wins, then `credsStore`, then the
//! base64 `user:password` under `auths`. No file, or no entry: anonymous.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use base64::Engine;
use oci_client::secrets::RegistryAuth;
use serde::Deserialize;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Config {
    #[serde(default)]
    auths: std::collections::BTreeMap<String, AuthEntry>,
    #[serde(default)]
    creds_store: Option<String>,
    #[serde(default)]
    cred_helpers: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
struct AuthEntry {
    #[serde(default)]
    auth: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct HelperAnswer {
    username: String,
    secret: String,
}

fn config_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("DOCKER_CONFIG").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("config.json"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".docker/config.json"))
}

/// `https://index.docker.io/v1/` → `index.docker.io`; `host:5000` stays.
fn host_of(key: &str) -> &str {
    let key = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    key.split('/').next().unwrap_or(key)
}

/// The credentials for `registry` (`HOST[:PORT]`).
pub fn for_registry(registry: &str) -> Result<RegistryAuth, String> {
    let Some(path) = config_path() else {
        return Ok(RegistryAuth::Anonymous);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RegistryAuth::Anonymous),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let config: Config =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    // Docker Hub's credentials are kept under its v1 index address.
    let wanted = if registry == "docker.io" {
        "index.docker.io"
    } else {
        registry
    };
    let helper = config
        .cred_helpers
        .iter()
        .find(|(k, _)| host_of(k) == wanted)
        .map(|(_, v)| v.clone())
        .or(config.creds_store.clone());
    if let Some(helper) = helper
        && let Some(auth) = from_helper(&helper, registry)?
    {
        return Ok(auth);
    }
    let Some(entry) = config.auths.iter().find(|(k, _)| host_of(k) == wanted) else {
        return Ok(RegistryAuth::Anonymous);
    };
    let Some(encoded) = entry.1.auth.as_deref().filter(|a| !a.is_empty()) else {
        return Ok(RegistryAuth::Anonymous);
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()
        .and_then(|d| String::from_utf8(d).ok())
        .ok_or_else(|| {
            format!(
                "{}: `auths.{}.auth` is not base64 of user:password",
                path.display(),
                entry.0
            )
        })?;
    let (user, password) = decoded.split_once(':').ok_or_else(|| {
        format!(
            "{}: `auths.{}.auth` is not user:password",
            path.display(),
            entry.0
        )
    })?;
    Ok(RegistryAuth::Basic(user.to_string(), password.to_string()))
}

/// Ask `docker-credential-HELPER get`; `None` when it has nothing for the
/// registry.
fn from_helper(helper: &str, registry: &str) -> Result<Option<RegistryAuth>, String> {
    let program = helper_program(helper)?;
    let mut child = match Command::new(&program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            return Err(format!(
                "the docker config names credential helper `{program}`, which cannot be run: {e}"
            ));
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(registry.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{program}: {e}"))?;
    if !out.status.success() {
        return Ok(None);
    }
    let answer: HelperAnswer = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{program} get: unexpected answer: {e}"))?;
    Ok(Some(RegistryAuth::Basic(answer.username, answer.secret)))
}

/// `docker-credential-HELPER`, found on `PATH` only: a helper name with a
/// `/` would make it a path, which could lead into the current folder
/// (the worker's checkout, in CI).
fn helper_program(helper: &str) -> Result<String, String> {
    if helper.is_empty() || helper.contains('/') || helper.contains('\0') {
        return Err(format!(
            "the docker config names credential helper {helper:?}: a helper is a plain name (docker-credential-NAME on PATH)"
        ));
    }
    Ok(format!("docker-credential-{helper}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_helper_is_a_name_on_path_never_a_path() {
        assert_eq!(
            helper_program("secretservice").unwrap(),
            "docker-credential-secretservice"
        );
        for bad in ["", "x/../../tmp/evil", "/usr/bin/true", "a\0b"] {
            assert!(helper_program(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn hosts_are_matched_as_docker_writes_them() {
        assert_eq!(host_of("https://index.docker.io/v1/"), "index.docker.io");
        assert_eq!(host_of("127.0.0.1:5000"), "127.0.0.1:5000");
        assert_eq!(host_of("http://reg.example:443/"), "reg.example:443");
    }
}
