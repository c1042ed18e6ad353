//! Problems found while loading or linting a contract.
//!
//! Every problem has a stable code (tools match on it), a level, the field it
//! is about and, when the parser could tell, its line and column.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Stable problem codes. Renaming one is a breaking change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    // The file itself.
    ContractUnreadable,
    ContractTooLarge,
    NotUtf8,
    SyntaxError,
    MultipleDocuments,
    DuplicateKey,
    YamlTag,
    UnsupportedVersion,
    UnknownField,
    MissingField,
    InvalidValue,
    // Structure.
    InvalidId,
    DuplicateId,
    UnknownTarget,
    UnknownDependency,
    UnknownValidator,
    DependencyCycle,
    PathAbsolute,
    PathEscapesRoot,
    PathInvalid,
    /// An `exclude` pattern that is not a valid gitignore pattern.
    InvalidExclude,
    /// A deliverable whose path only names excluded files.
    ExcludedDeliverable,
    InvalidDigest,
    LimitOutOfRange,
    NoMust,
    // Validators.
    UnverifiableMust,
    UnverifiableCriterion,
    InvalidParams,
    UnpinnedValidator,
    /// A file the contract's params name lies under the deliverable root.
    ContractFileInRoot,
    /// `on_fail: { action: warn }` on a MUST: a MUST is never waived.
    WaivesMust,
    // Warnings.
    UnusedValidator,
    UncheckedDeliverable,
    // Bundles, signatures, the trust policy and vcc.lock.
    /// A project contract weakens its base (`extends`, `--policy`).
    WeakensBase,
    /// A validator that is neither `std/` nor from a trusted bundle, under `require_signed`.
    UnsignedValidator,
    /// The trust policy or a `--policy` contract lies in the deliverable root.
    TrustInRoot,
    /// No signature at all.
    Unsigned,
    /// Signed only by keys the trust policy does not list for this bundle.
    UnknownKey,
    /// A listed key's signature does not verify.
    BadSignature,
    /// A blob is not what its digest says, a signature is over another bundle, or a layer is not covered.
    DigestMismatch,
    /// The signed name is not the bundle's.
    NameMismatch,
    /// The signed version is not the bundle's.
    VersionMismatch,
    /// The signature's statement has expired.
    Expired,
    /// The version is below the policy's `min_version` (a rollback).
    BelowMinVersion,
    /// Fewer trusted signers than the policy's `threshold`, or a signer
    /// group of its rule that no signature meets.
    ThresholdNotMet,
    /// The trust policy's `revoked:` names this bundle (by digest or version).
    Revoked,
    /// A registry tag names a manifest whose bundle has another version.
    TagVersionMismatch,
    /// `vcc lock` would move a bundle to a lower version than the lock holds.
    Downgrade,
    /// A DSSE envelope whose payload is not a vcc in-toto Statement.
    PayloadTypeMismatch,
    /// No rule of the trust policy covers this bundle, or there is no trust policy.
    NotTrusted,
    /// Not a well-formed bundle (layout, manifest, config).
    MalformedBundle,
    /// A manifest or blob over its size cap.
    TooLarge,
    /// A file name in a bundle that would leave its folder.
    UnsafePath,
    /// Not an Ed25519 key in PEM.
    MalformedKey,
    /// A private key where a public key belongs.
    PrivateKeyGiven,
    /// The trust policy cannot be read.
    MalformedPolicy,
    /// No `vcc.lock`, or no entry for a bundle the contract names.
    LockMissing,
    /// `vcc.lock` does not match the contract any more.
    LockStale,
    /// What the lock pins is not what the store or registry holds.
    LockMismatch,
    /// A contract the trust policy pins does not have the pinned digest.
    ContractNotPinned,
    /// A bundle or validator that is not in the local store.
    NotInStore,
    /// `extends` names a contract its bundle does not carry.
    UnknownBase,
    // VCC v1 contracts.
    UnknownRubric,
    /// A gate's approval names a `rubricId` the contract does not declare
    /// (the specification's `GATE_RUBRIC_REF_MISSING`).
    GateRubricRefMissing,
    NotEvaluated,
    /// The VCC v1 JSON Schema refuses the document.
    SchemaViolation,
    /// An `execution` criterion names an adapter nothing maps to a
    /// validator (the specification's `EXPLICIT_VALIDATOR_MISSING`).
    ExplicitValidatorMissing,
    // AI judges.
    /// A criterion grants a judge the contract does not define.
    UnknownJudge,
    /// A judge no criterion grants.
    UnusedJudge,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::ContractUnreadable => "CONTRACT_UNREADABLE",
            Code::ContractTooLarge => "CONTRACT_TOO_LARGE",
            Code::NotUtf8 => "NOT_UTF8",
            Code::SyntaxError => "SYNTAX_ERROR",
            Code::MultipleDocuments => "MULTIPLE_DOCUMENTS",
            Code::DuplicateKey => "DUPLICATE_KEY",
            Code::YamlTag => "YAML_TAG",
            Code::UnsupportedVersion => "UNSUPPORTED_VERSION",
            Code::UnknownField => "UNKNOWN_FIELD",
            Code::MissingField => "MISSING_FIELD",
            Code::InvalidValue => "INVALID_VALUE",
            Code::InvalidId => "INVALID_ID",
            Code::DuplicateId => "DUPLICATE_ID",
            Code::UnknownTarget => "UNKNOWN_TARGET",
            Code::UnknownDependency => "UNKNOWN_DEPENDENCY",
            Code::UnknownValidator => "UNKNOWN_VALIDATOR",
            Code::DependencyCycle => "DEPENDENCY_CYCLE",
            Code::PathAbsolute => "PATH_ABSOLUTE",
            Code::PathEscapesRoot => "PATH_ESCAPES_ROOT",
            Code::PathInvalid => "PATH_INVALID",
            Code::InvalidExclude => "INVALID_EXCLUDE",
            Code::ExcludedDeliverable => "EXCLUDED_DELIVERABLE",
            Code::InvalidDigest => "INVALID_DIGEST",
            Code::LimitOutOfRange => "LIMIT_OUT_OF_RANGE",
            Code::NoMust => "NO_MUST",
            Code::UnverifiableMust => "UNVERIFIABLE_MUST",
            Code::UnverifiableCriterion => "UNVERIFIABLE_CRITERION",
            Code::InvalidParams => "INVALID_PARAMS",
            Code::UnpinnedValidator => "UNPINNED_VALIDATOR",
            Code::ContractFileInRoot => "CONTRACT_FILE_IN_ROOT",
            Code::WaivesMust => "WAIVES_MUST",
            Code::UnusedValidator => "UNUSED_VALIDATOR",
            Code::UncheckedDeliverable => "UNCHECKED_DELIVERABLE",
            Code::WeakensBase => "WEAKENS_BASE",
            Code::UnsignedValidator => "UNSIGNED_VALIDATOR",
            Code::TrustInRoot => "TRUST_IN_ROOT",
            Code::Unsigned => "UNSIGNED",
            Code::UnknownKey => "UNKNOWN_KEY",
            Code::BadSignature => "BAD_SIGNATURE",
            Code::DigestMismatch => "DIGEST_MISMATCH",
            Code::NameMismatch => "NAME_MISMATCH",
            Code::VersionMismatch => "VERSION_MISMATCH",
            Code::Expired => "EXPIRED",
            Code::BelowMinVersion => "BELOW_MIN_VERSION",
            Code::ThresholdNotMet => "THRESHOLD_NOT_MET",
            Code::Revoked => "REVOKED",
            Code::TagVersionMismatch => "TAG_VERSION_MISMATCH",
            Code::Downgrade => "DOWNGRADE",
            Code::PayloadTypeMismatch => "PAYLOAD_TYPE_MISMATCH",
            Code::NotTrusted => "NOT_TRUSTED",
            Code::MalformedBundle => "MALFORMED_BUNDLE",
            Code::TooLarge => "TOO_LARGE",
            Code::UnsafePath => "UNSAFE_PATH",
            Code::MalformedKey => "MALFORMED_KEY",
            Code::PrivateKeyGiven => "PRIVATE_KEY_GIVEN",
            Code::MalformedPolicy => "MALFORMED_POLICY",
            Code::LockMissing => "LOCK_MISSING",
            Code::LockStale => "LOCK_STALE",
            Code::LockMismatch => "LOCK_MISMATCH",
            Code::ContractNotPinned => "CONTRACT_NOT_PINNED",
            Code::NotInStore => "NOT_IN_STORE",
            Code::UnknownBase => "UNKNOWN_BASE",
            Code::UnknownRubric => "UNKNOWN_RUBRIC",
            Code::GateRubricRefMissing => "GATE_RUBRIC_REF_MISSING",
            Code::NotEvaluated => "NOT_EVALUATED",
            Code::SchemaViolation => "SCHEMA_VIOLATION",
            Code::ExplicitValidatorMissing => "EXPLICIT_VALIDATOR_MISSING",
            Code::UnknownJudge => "UNKNOWN_JUDGE",
            Code::UnusedJudge => "UNUSED_JUDGE",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    /// Information: something the contract says that vcc does not evaluate.
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub code: Code,
    pub level: Level,
    pub message: String,
    /// The contract file.
    pub file: String,
    /// The field, e.g. `criteria[1].targets[0]`; absent for whole-file problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl Problem {
    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }
}

/// A field inside the contract document: keys and list indexes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(pub Vec<Seg>);

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    Key(String),
    Index(usize),
}

impl FieldPath {
    pub fn root() -> Self {
        FieldPath(Vec::new())
    }
    pub fn key(&self, key: &str) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Key(key.to_string()));
        FieldPath(segs)
    }
    pub fn index(&self, index: usize) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Index(index));
        FieldPath(segs)
    }
    /// `criteria[0].targets[1]`; keys that are not plain words are quoted.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for seg in &self.0 {
            match seg {
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
                Seg::Key(k) if is_plain(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Key(k) => out.push_str(&format!("[{}]", quoted(k))),
            }
        }
        out
    }
}

fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Levenshtein distance, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// `text` in double quotes, escaped as JSON escapes it (`\n`, `\u001b`):
/// one way of showing a string that came from a file, in every message.
pub fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("\"{text}\""))
}

/// The closest of `names` to `got`, if `got` is a likely misspelling of it
/// (case is ignored; at most a third of the letters differ).
pub fn closest<'a>(got: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let got = got.to_lowercase();
    names
        .into_iter()
        .map(|n| (edit_distance(&got, &n.to_lowercase()), n))
        .min()
        .filter(|(d, _)| *d <= (got.chars().count() / 3).max(1))
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_render_like_code() {
        let p = FieldPath::root()
            .key("criteria")
            .index(0)
            .key("targets")
            .index(1);
        assert_eq!(p.render(), "criteria[0].targets[1]");
        let q = FieldPath::root().key("validators").key("my.validator");
        assert_eq!(q.render(), "validators[\"my.validator\"]");
    }

    #[test]
    fn codes_serialize_as_their_stable_names() {
        for code in [
            Code::UnverifiableMust,
            Code::DependencyCycle,
            Code::UnknownTarget,
        ] {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
    }
}
