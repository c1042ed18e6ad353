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
//!   # or signer groups (Kubewarden's allOf/anyOf): one of the platform keys AND security
//!   - { name: "core/*", all_of: [ { any_of: [platform, platform2] }, security ] }
//! revoked:                # refused everywhere (REVOKED), even from the store or a lock
//!   - { bundle: "acme/security@1.0.1", reason: "CVE-2026-1234: reads outside its targets" }
//!   - { digest: "sha256:…", reason: "…" }   # a bundle manifest, or any component or contract in one
//! require_signed: true    # every validator of a checked contract is std/ or from a trusted bundle
//! contracts:
//!   - { path: "contracts/*.yaml", digest: "blake3:…" }
//! records: { signers: [ci], threshold: 1 }   # who may sign `vcc record` records
//! attestations: { signers: [ci] }            # whose `vcc check --attest` attestations are trusted
//! roles: { Reviewer: [alice, bob] }           # whose signed approvals (`vcc approve`) count for a gate's role
//! judges: { endpoints: [...], limits: {...} }  # which endpoints may serve AI judges (see vcc-judge's config)
//! ```

use std::collections::{BTreeMap, BTreeSet};
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
    revoked: Vec<RevokedEntry>,
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
    /// The flat form: `threshold` of `signers`.
    signers: Option<Vec<String>>,
    threshold: Option<usize>,
    /// The group form: every item (a key id or a group) must be met …
    all_of: Option<Vec<serde_yaml::Value>>,
    /// … or `minimum` (1) of them.
    any_of: Option<Vec<serde_yaml::Value>>,
    minimum: Option<usize>,
    min_version: Option<String>,
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevokedEntry {
    bundle: Option<String>,
    digest: Option<String>,
    reason: String,
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
    /// Whose signatures it takes, as a tree of groups over key ids.
    pub require: Signers,
    pub min_version: Option<semver::Version>,
    /// Where `vcc lock` pulls a bundle from when it is not in the store:
    /// a registry and optional path prefix (`HOST[:PORT][/PREFIX]`); the
    /// bundle is the repository `SOURCE/NAME`, its tags are versions.
    pub source: Option<String>,
}

/// A signer requirement: one key, every item of a group, or `minimum` of
/// them. The flat `signers` + `threshold` form is `AnyOf`.
#[derive(Debug, Clone, PartialEq)]
pub enum Signers {
    Key(String),
    AllOf(Vec<Signers>),
    AnyOf { of: Vec<Signers>, minimum: usize },
}

impl Signers {
    /// Is it met by signatures of these key ids?
    pub fn met(&self, signed: &BTreeSet<String>) -> bool {
        match self {
            Signers::Key(id) => signed.contains(id),
            Signers::AllOf(all) => all.iter().all(|s| s.met(signed)),
            Signers::AnyOf { of, minimum } => {
                of.iter().filter(|s| s.met(signed)).count() >= *minimum
            }
        }
    }

    /// Every key id it names, in order.
    pub fn keys(&self) -> Vec<&str> {
        match self {
            Signers::Key(id) => vec![id.as_str()],
            Signers::AllOf(of) | Signers::AnyOf { of, .. } => {
                of.iter().flat_map(Signers::keys).collect()
            }
        }
    }

    /// The parts not met, as words: the top group's unmet items (a whole
    /// requirement when it is a single key or an `any_of`).
    pub fn unmet(&self, signed: &BTreeSet<String>) -> Vec<String> {
        match self {
            Signers::AllOf(all) => all
                .iter()
                .filter(|s| !s.met(signed))
                .map(Signers::to_string)
                .collect(),
            other if !other.met(signed) => vec![other.to_string()],
            _ => Vec::new(),
        }
    }
}

impl std::fmt::Display for Signers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |of: &[Signers]| {
            of.iter()
                .map(Signers::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Signers::Key(id) => write!(f, "{id}"),
            Signers::AllOf(of) => write!(f, "all of ({})", list(of)),
            Signers::AnyOf { of, minimum: 1 } => write!(f, "any of ({})", list(of)),
            Signers::AnyOf { of, minimum } => write!(f, "{minimum} of ({})", list(of)),
        }
    }
}

/// A bundle the policy refuses whatever its signatures say.
#[derive(Debug, Clone, PartialEq)]
pub struct Revoked {
    pub what: Revocation,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Revocation {
    /// `sha256:…` of a bundle manifest, or of a component or contract
    /// layer (revoked in whatever bundle carries it).
    Digest(String),
    /// An exact name and version.
    Version {
        name: String,
        version: semver::Version,
    },
}

#[derive(Debug, Clone)]
pub struct Policy {
    /// Where it was read from.
    pub path: PathBuf,
    /// blake3 of the policy file's bytes.
    pub digest: String,
    pub keys: BTreeMap<String, PublicKey>,
    pub rules: Vec<Rule>,
    pub revoked: Vec<Revoked>,
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
            let require =
                signers_of(&r, &keys).map_err(|m| bad(format!("bundle rule `{}`: {m}", r.name)))?;
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
            // First match decides: a rule for one bundle after a glob that
            // covers it would never apply, and its stricter signers with it.
            if !r.name.contains(['*', '?', '[', '{'])
                && let Some(earlier) = rules.iter().find(|e: &&Rule| e.matcher.is_match(&r.name))
            {
                return Err(bad(format!(
                    "bundle rule `{}` can never apply: rule `{}` before it covers that name, and the first matching rule decides; put the more specific rule first",
                    r.name, earlier.name
                )));
            }
            rules.push(Rule {
                name: r.name,
                matcher,
                require,
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
        let revoked = file
            .revoked
            .into_iter()
            .enumerate()
            .map(|(i, r)| revocation(r).map_err(|m| bad(format!("revoked[{i}]: {m}"))))
            .collect::<Result<Vec<_>, _>>()?;
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
            revoked,
            require_signed: file.require_signed,
            contracts: file.contracts,
            records,
            attestations,
            roles,
            judges: file.judges,
        })
    }

    /// Why the policy revokes a bundle (its name, version, manifest digest
    /// and the digests of its layers), if it does.
    pub fn revocation(&self, name: &str, version: &str, digests: &[&str]) -> Option<&Revoked> {
        self.revoked.iter().find(|r| match &r.what {
            Revocation::Digest(d) => digests.contains(&d.as_str()),
            // Build metadata does not make another version (semver 2.0
            // §10): revoking 1.0.1 revokes 1.0.1+build.7.
            Revocation::Version {
                name: n,
                version: v,
            } => {
                n == name
                    && semver::Version::parse(version)
                        .is_ok_and(|ver| ver.cmp_precedence(v) == std::cmp::Ordering::Equal)
            }
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

/// A rule's signer requirement: the flat form (`signers`, `threshold`) or
/// the group form (`all_of` / `any_of` with `minimum`), never both. A key
/// may appear once per rule: named in two groups, one signature would
/// meet both, and a rotation could quietly lower the bar.
fn signers_of(r: &RuleEntry, keys: &BTreeMap<String, PublicKey>) -> Result<Signers, String> {
    let require = match (&r.signers, &r.all_of, &r.any_of) {
        (Some(signers), None, None) => {
            if r.minimum.is_some() {
                return Err("`minimum` goes with `any_of`; the flat form takes `threshold`".into());
            }
            let threshold = r.threshold.unwrap_or(1);
            if threshold == 0 || threshold > signers.len() {
                return Err(format!(
                    "threshold {threshold} with {} signer(s)",
                    signers.len()
                ));
            }
            Signers::AnyOf {
                of: signers.iter().cloned().map(Signers::Key).collect(),
                minimum: threshold,
            }
        }
        (None, all, any) if all.is_some() != any.is_some() => {
            if r.threshold.is_some() {
                return Err("`threshold` goes with `signers`; a group takes `minimum`".into());
            }
            let mut group = serde_yaml::Mapping::new();
            for (k, v) in [("all_of", all), ("any_of", any)] {
                if let Some(v) = v {
                    group.insert(k.into(), serde_yaml::Value::Sequence(v.clone()));
                }
            }
            if let Some(m) = r.minimum {
                group.insert("minimum".into(), m.into());
            }
            group_of(&serde_yaml::Value::Mapping(group), "")?
        }
        (None, None, None) => {
            return Err("names no signers: give `signers: [...]`, or `all_of:` / `any_of:`".into());
        }
        _ => {
            return Err(
                "give one of `signers` (with `threshold`), `all_of` or `any_of` at its top".into(),
            );
        }
    };
    let mut seen = BTreeSet::new();
    for key in require.keys() {
        if !keys.contains_key(key) {
            return Err(format!("names signer `{key}`, which is not under `keys`"));
        }
        if !seen.insert(key) {
            return Err(format!(
                "names signer `{key}` twice: one signature would count for two groups"
            ));
        }
    }
    Ok(require)
}

/// One item of a group: a key id, or `{ all_of: [...] }` / `{ any_of:
/// [...], minimum: N }`. `at` names it in messages.
fn group_of(value: &serde_yaml::Value, at: &str) -> Result<Signers, String> {
    use serde_yaml::Value;
    let map = match value {
        Value::String(id) => return Ok(Signers::Key(id.clone())),
        Value::Mapping(map) => map,
        other => {
            return Err(format!(
                "{at}: {other:?} is neither a key id nor a group (`all_of:` or `any_of:`)"
            ));
        }
    };
    let items = |key: &str| -> Result<Option<Vec<Signers>>, String> {
        let Some(v) = map.get(key) else {
            return Ok(None);
        };
        let Value::Sequence(list) = v else {
            return Err(format!("{at}{key}: a list of key ids or groups"));
        };
        if list.is_empty() {
            return Err(format!("{at}{key}: an empty group"));
        }
        list.iter()
            .enumerate()
            .map(|(i, item)| group_of(item, &format!("{at}{key}[{i}].")))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    };
    for key in map.keys() {
        if !matches!(key.as_str(), Some("all_of" | "any_of" | "minimum")) {
            return Err(format!(
                "{at}{key:?}: a group takes `all_of`, `any_of` and `minimum`"
            ));
        }
    }
    let minimum = match map.get("minimum") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|m| usize::try_from(m).ok())
                .ok_or_else(|| format!("{at}minimum: a whole number"))?,
        ),
    };
    match (items("all_of")?, items("any_of")?) {
        (Some(all), None) if minimum.is_none() => Ok(Signers::AllOf(all)),
        (None, Some(of)) => {
            let minimum = minimum.unwrap_or(1);
            if minimum == 0 || minimum > of.len() {
                return Err(format!(
                    "{at}minimum {minimum} with {} item(s) in any_of",
                    of.len()
                ));
            }
            Ok(Signers::AnyOf { of, minimum })
        }
        (Some(_), None) => Err(format!("{at}minimum: goes with any_of, not all_of")),
        _ => Err(format!(
            "{at}a group has exactly one of `all_of` and `any_of`"
        )),
    }
}

/// A `revoked:` entry: by `bundle: NAME@VERSION` or `digest: sha256:…`,
/// with a reason every refusal repeats.
fn revocation(r: RevokedEntry) -> Result<Revoked, String> {
    if r.reason.trim().is_empty() {
        return Err("`reason` is empty: say why, it is what every refusal shows".into());
    }
    let what = match (r.bundle, r.digest) {
        (Some(b), None) => {
            let (name, version) = b
                .rsplit_once('@')
                .ok_or_else(|| format!("bundle `{b}`: write NAME@VERSION (acme/security@1.0.1)"))?;
            // An exact bundle name: a glob or a misspelt name would revoke
            // nothing, silently.
            vcc_contract::check_bundle_name(name).map_err(|e| {
                format!("bundle `{b}`: {e} (a revocation names one bundle exactly; no globs)")
            })?;
            let version = semver::Version::parse(version)
                .map_err(|e| format!("bundle `{b}`: version: {e}"))?;
            Revocation::Version {
                name: name.to_string(),
                version,
            }
        }
        (None, Some(d)) => {
            let hex = d.strip_prefix("sha256:").unwrap_or("");
            if hex.len() != 64 || !hex.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
                return Err(format!("digest `{d}`: write sha256:<64 lowercase hex>"));
            }
            Revocation::Digest(d)
        }
        _ => {
            return Err("give exactly one of `bundle: NAME@VERSION` and `digest: sha256:…`".into());
        }
    };
    Ok(Revoked {
        what,
        reason: r.reason,
    })
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
        assert_eq!(
            policy
                .rule_for("acme/security")
                .unwrap()
                .require
                .to_string(),
            "any of (platform)"
        );
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

        // Groups, and what a group cannot say.
        let key2 = PrivateKey::generate().unwrap();
        key2.write(&dir.path().join("security")).unwrap();
        let keys = "trust: 1\nkeys:\n  - { id: platform, public_key: platform.pub }\n  - { id: security, public_key: security.pub }\nbundles:\n";
        let grouped = format!(
            "{keys}  - {{ name: \"acme/*\", all_of: [ {{ any_of: [platform] }}, security ] }}\n"
        );
        std::fs::write(&path, &grouped).unwrap();
        let policy = Policy::read(&path).unwrap();
        assert_eq!(
            policy.rule_for("acme/x").unwrap().require.to_string(),
            "all of (any of (platform), security)"
        );
        std::fs::write(
            &path,
            format!("{keys}  - {{ name: \"acme/*\", signers: [platform] }}\n  - {{ name: acme/security, signers: [security] }}\n"),
        )
        .unwrap();
        let shadowed = Policy::read(&path).unwrap_err();
        assert!(
            shadowed
                .message
                .contains("bundle rule `acme/security` can never apply: rule `acme/*` before it"),
            "{}",
            shadowed.message
        );
        for (bad, says) in [
            (
                "all_of: [platform, { any_of: [platform, security] }]",
                "names signer `platform` twice",
            ),
            ("all_of: [platform], signers: [security]", "give one of"),
            (
                "any_of: [platform, security], minimum: 3",
                "minimum 3 with 2 item(s)",
            ),
            (
                "all_of: [platform], threshold: 1",
                "`threshold` goes with `signers`",
            ),
            (
                "all_of: [{ all_of: [] }]",
                "all_of[0].all_of: an empty group",
            ),
            ("all_of: [{ one_of: [platform] }]", "a group takes"),
            ("all_of: [nobody]", "`nobody`, which is not under `keys`"),
        ] {
            std::fs::write(&path, format!("{keys}  - {{ name: \"acme/*\", {bad} }}\n")).unwrap();
            let refused = Policy::read(&path).unwrap_err();
            assert_eq!(refused.code, Code::MalformedPolicy);
            assert!(refused.message.contains(says), "{bad}: {}", refused.message);
        }
        for (bad, says) in [
            ("{ bundle: acme/x, reason: r }", "NAME@VERSION"),
            (
                "{ bundle: acme/x@1.0.0, reason: \" \" }",
                "`reason` is empty",
            ),
            (
                "{ digest: \"sha256:AB\", reason: r }",
                "sha256:<64 lowercase hex>",
            ),
            ("{ bundle: \"acme/*@1.0.0\", reason: r }", "no globs"),
            ("{ bundle: \"ACME/security@1.0.0\", reason: r }", "no globs"),
            (
                "{ bundle: \"acme/security @1.0.0\", reason: r }",
                "no globs",
            ),
            (
                "{ bundle: acme/x@1.0.0, digest: \"sha256:ab\", reason: r }",
                "exactly one of",
            ),
        ] {
            std::fs::write(&path, format!("{grouped}revoked:\n  - {bad}\n")).unwrap();
            let refused = Policy::read(&path).unwrap_err();
            assert!(refused.message.contains(says), "{bad}: {}", refused.message);
            assert!(
                refused.message.contains("revoked[0]"),
                "{}",
                refused.message
            );
        }
    }
}
