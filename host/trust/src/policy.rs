//! The trust policy: which keys vcc trusts, for which bundles, and which
//! contracts are pinned. It never lives in the deliverable root: `--trust
//! FILE`, else `$VCC_TRUST`, else `~/.config/vcc/trust.yaml`.
//!
//! ```yaml
//! trust: 1
//! keys:
//!   - { id: platform, public_key: platform.pub }   # a path relative to this file, or inline PEM
//! bundles:
//!   - { name: "acme/*", signers: [platform], threshold: 1, min_version: 1.2.0, source: "registry.example" }
//! require_signed: true    # every validator of a checked contract is std/ or from a trusted bundle
//! contracts:
//!   - { path: "contracts/*.yaml", digest: "blake3:…" }
//! records: { signers: [ci], threshold: 1 }   # who may sign `vcc record` records
//! attestations: { signers: [ci] }            # whose `vcc check --attest` attestations are trusted
//! roles: { Reviewer: [alice, bob] }           # whose signed approvals (`vcc approve`) count for a gate's role
//! judges: { endpoints: [...], limits: {...} }  # which endpoints may serve AI judges (see vcc-judge's config)
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::keys::PublicKey;
use crate::refusal::{Code, Refusal};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    trust: u32,
    #[serde(default)]
    keys: Vec<KeyEntry>,
    #[serde(default)]
    bundles: Vec<RuleEntry>,
    #[serde(default)]
    require_signed: bool,
    #[serde(default)]
    contracts: Vec<Pin>,
    #[serde(default)]
    records: Option<RecordsEntry>,
    #[serde(default)]
    attestations: Option<RecordsEntry>,
    #[serde(default)]
    roles: BTreeMap<String, Vec<String>>,
    /// The judge configuration (read by `vcc-judge`), when it lives here.
    #[serde(default)]
    judges: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordsEntry {
    signers: Vec<String>,
    #[serde(default = "one")]
    threshold: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyEntry {
    id: String,
    public_key: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    name: String,
    signers: Vec<String>,
    #[serde(default = "one")]
    threshold: usize,
    min_version: Option<String>,
    source: Option<String>,
}

fn one() -> usize {
    1
}

/// A contract pinned by digest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// A glob over the contract's path as given on the command line.
    pub path: String,
    /// `blake3:<hex>` of the contract's bytes.
    pub digest: String,
}

/// Which signers a bundle (by name) needs.
#[derive(Debug, Clone)]
pub struct Rule {
    pub name: String,
    matcher: globset::GlobMatcher,
    /// Key ids of this policy.
    pub signers: Vec<String>,
    pub threshold: usize,
    pub min_version: Option<semver::Version>,
    /// Where `vcc lock` pulls a bundle from when it is not in the store:
    /// a registry and optional path prefix (`HOST[:PORT][/PREFIX]`); the
    /// bundle is the repository `SOURCE/NAME`, its tags are versions.
    pub source: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Policy {
    /// Where it was read from.
    pub path: PathBuf,
    /// blake3 of the policy file's bytes.
    pub digest: String,
    pub keys: BTreeMap<String, PublicKey>,
    pub rules: Vec<Rule>,
    pub require_signed: bool,
    pub contracts: Vec<Pin>,
    /// Who may sign command records.
    pub records: Option<RecordRule>,
    /// Whose verification attestations are trusted.
    pub attestations: Option<RecordRule>,
    /// Role (without `role:`) → key ids whose signed approvals count for it.
    pub roles: BTreeMap<String, Vec<String>>,
    /// `judges:`: which endpoints may serve AI judges (`vcc-judge` reads
    /// it), when the policy holds the judge configuration.
    pub judges: Option<serde_json::Value>,
}

/// Which keys may sign `vcc record` records, and how many must.
#[derive(Debug, Clone)]
pub struct RecordRule {
    /// Key ids of this policy.
    pub signers: Vec<String>,
    pub threshold: usize,
}

impl Policy {
    /// The policy a command uses: `explicit`, else `$VCC_TRUST`, else
    /// `~/.config/vcc/trust.yaml` if it exists; `None` when there is none.
    pub fn locate(explicit: Option<&Path>) -> Option<PathBuf> {
        if let Some(path) = explicit {
            return Some(path.to_path_buf());
        }
        if let Some(env) = std::env::var_os("VCC_TRUST").filter(|v| !v.is_empty()) {
            return Some(PathBuf::from(env));
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(config.join("vcc/trust.yaml")).filter(|p| p.exists())
    }

    pub fn read(path: &Path) -> Result<Policy, Refusal> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Refusal::new(Code::MalformedPolicy, format!("{}: {e}", path.display())))?;
        Policy::parse(path, &text)
    }

    /// A policy's text; `path` names it in messages, and key files are
    /// read relative to its folder.
    pub fn parse(path: &Path, text: &str) -> Result<Policy, Refusal> {
        let bad =
            |m: String| Refusal::new(Code::MalformedPolicy, format!("{}: {m}", path.display()));
        let file: File = serde_yaml::from_str(text).map_err(|e| bad(e.to_string()))?;
        if file.trust != 1 {
            return Err(bad(format!(
                "`trust: {}` (this vcc reads `trust: 1`)",
                file.trust
            )));
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut keys = BTreeMap::new();
        for k in &file.keys {
            // A key that cannot be read is named with the policy that
            // lists it: the key file alone says nothing of where it came from.
            let key = if k.public_key.contains("-----BEGIN") {
                PublicKey::from_pem(&k.public_key, &format!("key `{}`", k.id))
            } else {
                PublicKey::read(&dir.join(&k.public_key))
            }
            .map_err(|r| {
                Refusal::new(
                    r.code,
                    format!("{}: key `{}`: {}", path.display(), k.id, r.message),
                )
            })?;
            if keys.insert(k.id.clone(), key).is_some() {
                return Err(bad(format!("key id `{}` is listed twice", k.id)));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for key in keys.values() {
            if !seen.insert(key.id().to_string()) {
                return Err(bad("the same public key is listed under two ids: a threshold would count one signer twice".into()));
            }
        }
        let mut rules = Vec::new();
        for r in file.bundles {
            for s in &r.signers {
                if !keys.contains_key(s) {
                    return Err(bad(format!(
                        "bundle rule `{}` names signer `{s}`, which is not under `keys`",
                        r.name
                    )));
                }
            }
            if r.threshold == 0 || r.threshold > r.signers.len() {
                return Err(bad(format!(
                    "bundle rule `{}`: threshold {} with {} signer(s)",
                    r.name,
                    r.threshold,
                    r.signers.len()
                )));
            }
            let min_version = r
                .min_version
                .as_deref()
                .map(semver::Version::parse)
                .transpose()
                .map_err(|e| bad(format!("bundle rule `{}`: min_version: {e}", r.name)))?;
            let matcher = globset::GlobBuilder::new(&r.name)
                .literal_separator(true)
                .build()
                .map_err(|e| bad(format!("bundle rule `{}`: {e}", r.name)))?
                .compile_matcher();
            rules.push(Rule {
                name: r.name,
                matcher,
                signers: r.signers,
                threshold: r.threshold,
                min_version,
                source: r.source,
            });
        }
        let signer_rule =
            |what: &str, entry: Option<RecordsEntry>| -> Result<Option<RecordRule>, Refusal> {
                let Some(r) = entry else {
                    return Ok(None);
                };
                for s in &r.signers {
                    if !keys.contains_key(s) {
                        return Err(bad(format!(
                            "{what} names signer `{s}`, which is not under `keys`"
                        )));
                    }
                }
                if r.threshold == 0 || r.threshold > r.signers.len() {
                    return Err(bad(format!(
                        "{what}: threshold {} with {} signer(s)",
                        r.threshold,
                        r.signers.len()
                    )));
                }
                Ok(Some(RecordRule {
                    signers: r.signers,
                    threshold: r.threshold,
                }))
            };
        let records = signer_rule("records", file.records)?;
        let attestations = signer_rule("attestations", file.attestations)?;
        for pin in &file.contracts {
            if !pin.digest.starts_with("blake3:") || pin.digest.len() != 71 {
                return Err(bad(format!(
                    "contract pin `{}`: digest must be blake3:<64 hex>",
                    pin.path
                )));
            }
        }
        let mut roles = BTreeMap::new();
        for (role, signers) in file.roles {
            for s in &signers {
                if !keys.contains_key(s) {
                    return Err(bad(format!(
                        "role `{role}` names signer `{s}`, which is not under `keys`"
                    )));
                }
            }
            roles.insert(role.trim_start_matches("role:").to_string(), signers);
        }
        Ok(Policy {
            path: path.to_path_buf(),
            digest: format!("blake3:{}", blake3::hash(text.as_bytes()).to_hex()),
            keys,
            rules,
            require_signed: file.require_signed,
            contracts: file.contracts,
            records,
            attestations,
            roles,
            judges: file.judges,
        })
    }

    /// The first rule whose name glob matches `bundle`.
    pub fn rule_for(&self, bundle: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.matcher.is_match(bundle))
    }

    /// The policy key id of a public key id, if listed.
    pub fn key_name(&self, key_id: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|(_, k)| k.id() == key_id)
            .map(|(name, _)| name.as_str())
    }

    /// Check a contract against the pins whose glob matches its path: `Err`
    /// when one matches and its digest differs.
    pub fn check_contract(&self, path: &Path, digest: &str) -> Result<(), Refusal> {
        let shown = path.to_string_lossy();
        let shown = shown.trim_start_matches("./");
        for pin in &self.contracts {
            let Ok(glob) = globset::GlobBuilder::new(&pin.path)
                .literal_separator(true)
                .build()
            else {
                continue;
            };
            if glob.compile_matcher().is_match(shown) && pin.digest != digest {
                return Err(Refusal::new(
                    Code::ContractNotPinned,
                    format!(
                        "{shown} is {digest}, but the trust policy ({}) pins contracts matching `{}` to {}: the contract was changed",
                        self.path.display(),
                        pin.path,
                        pin.digest
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::PrivateKey;

    #[test]
    fn policies_are_read_strictly() {
        let dir = tempfile::tempdir().unwrap();
        let key = PrivateKey::generate().unwrap();
        key.write(&dir.path().join("platform")).unwrap();
        let path = dir.path().join("trust.yaml");
        let good = "trust: 1\nkeys:\n  - { id: platform, public_key: platform.pub }\nbundles:\n  - { name: \"acme/*\", signers: [platform], min_version: 1.2.0 }\nrequire_signed: true\n";
        std::fs::write(&path, good).unwrap();
        let policy = Policy::read(&path).unwrap();
        assert_eq!(policy.rule_for("acme/security").unwrap().threshold, 1);
        assert!(
            policy.rule_for("acme/a/b").is_none(),
            "* stays in one segment"
        );
        assert!(policy.rule_for("other/x").is_none());
        assert_eq!(policy.key_name(key.id()), Some("platform"));
        for bad in [
            good.replace("signers: [platform]", "signers: [nobody]"),
            good.replace("min_version: 1.2.0", "min_version: one"),
            good.replace("require_signed", "require_signd"),
            good.replace("trust: 1", "trust: 2"),
            good.replace("}\nrequire", ", threshold: 2 }\nrequire"),
        ] {
            std::fs::write(&path, bad).unwrap();
            assert_eq!(Policy::read(&path).unwrap_err().code, Code::MalformedPolicy);
        }
        let inline = format!(
            "trust: 1\nkeys:\n  - id: platform\n    public_key: |\n{}",
            key.public()
                .to_pem()
                .lines()
                .map(|l| format!("      {l}\n"))
                .collect::<String>()
        );
        std::fs::write(&path, inline).unwrap();
        assert!(Policy::read(&path).is_ok(), "inline PEM");
    }
}
