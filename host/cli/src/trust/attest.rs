//! `vcc check --attest FILE --key KEY`: append a signed SLSA Verification
//! Summary and an in-toto test result for each report to FILE (an
//! `.intoto.jsonl`: one DSSE envelope per line); and `vcc attest verify`,
//! which checks such a file against the trust policy and, with `--dir`,
//! that every subject is still the bytes on disk.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::Digest as _;
use vcc_report::law::exit;
use vcc_report::{Report, Verdict};
use vcc_trust::keys::PrivateKey;
use vcc_trust::policy::Policy;

use crate::args::Format;
use crate::output::print_stdout;

/// Where attestations go, and the key that signs them.
pub struct Attester {
    file: PathBuf,
    key: PrivateKey,
    resource: Option<String>,
}

impl Attester {
    pub fn new(
        file: Option<&Path>,
        key: Option<&Path>,
        resource: Option<&str>,
    ) -> Result<Option<Attester>, String> {
        match (file, key) {
            (None, None) => Ok(None),
            (None, Some(_)) => Err("--key signs attestations: give --attest FILE too".into()),
            (Some(_), None) => {
                Err("--attest needs --key KEY (a private key from `vcc key generate`)".into())
            }
            (Some(file), Some(key)) => Ok(Some(Attester {
                file: file.to_path_buf(),
                key: PrivateKey::read(key).map_err(|r| format!("--key: {}", r.message))?,
                resource: resource.map(str::to_string),
            })),
        }
    }

    /// Append the report's two envelopes; a report with no hashed
    /// deliverable has no subject to attest, which is said. On failure the
    /// report becomes `invalid`.
    pub fn attest(&self, report: &mut Report) {
        let has_subjects = report
            .deliverables
            .as_ref()
            .is_some_and(|d| !d.subjects.is_empty());
        if !has_subjects {
            eprintln!(
                "vcc check: no attestation for {}: the run has no hashed deliverable to name as its subject ({})",
                report.contract.path, report.reason
            );
            return;
        }
        let resource = self.resource.clone().unwrap_or_else(|| {
            format!(
                "file://{}/",
                report
                    .deliverables
                    .as_ref()
                    .map_or("", |d| d.root_absolute.trim_end_matches('/'))
            )
        });
        let lines =
            vcc_formats::attest::lines(report, &resource, &vcc_report::now_rfc3339(), &self.key);
        let appended = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(&self.file)
            .and_then(|mut f| {
                f.write_all(lines.as_bytes())?;
                f.sync_all()
            });
        if let Err(e) = appended {
            report.verdict = Verdict::Invalid;
            report.reason = format!(
                "the attestation could not be written to {}: {e}",
                self.file.display()
            );
        }
    }
}

/// What one envelope of an attestation file says, once verified.
#[derive(serde::Serialize)]
struct Checked {
    line: usize,
    #[serde(flatten)]
    checked: vcc_formats::attest::Checked,
    /// Subjects whose bytes on disk are not what was attested (`--dir`).
    changed: Vec<String>,
}

/// `vcc attest verify FILE --trust FILE [--dir ROOT]`: exit 0 when every
/// envelope is signed by a trusted key, every result passed and (with
/// `--dir`) every subject matches; 1 when a result failed or a subject
/// changed; 2 when an envelope cannot be trusted at all.
pub fn verify(file: &Path, trust: Option<&Path>, dir: Option<&Path>, format: Format) -> i32 {
    let policy = match Policy::locate(trust).map(|p| Policy::read(&p)).transpose() {
        Ok(Some(p)) => p,
        Ok(None) => {
            eprintln!("vcc attest verify: no trust policy: give --trust FILE or set VCC_TRUST");
            return exit::INVALID;
        }
        Err(r) => {
            eprintln!("vcc attest verify: {}", r.message);
            return exit::INVALID;
        }
    };
    let Some(rule) = &policy.attestations else {
        eprintln!(
            "vcc attest verify: the trust policy {} names no attestation signers (`attestations: {{ signers: [...] }}`)",
            policy.path.display()
        );
        return exit::INVALID;
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("vcc attest verify: {}: {e}", file.display());
            return exit::INVALID;
        }
    };
    let mut checked = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        checked.push(one(i + 1, line, &policy, rule, dir));
    }
    let code = if checked.is_empty() || checked.iter().any(|c| c.checked.problem.is_some()) {
        exit::INVALID
    } else if checked.iter().any(|c| {
        !c.changed.is_empty() || !matches!(c.checked.result.as_deref(), Some("PASSED" | "WARNED"))
    }) {
        exit::NOT_ACCEPTED
    } else {
        exit::ACCEPTED
    };
    match format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&checked).unwrap_or_default()
        )),
        Format::Human => {
            for c in &checked {
                let k = &c.checked;
                match &k.problem {
                    Some(p) => eprintln!("{}:{}: NOT TRUSTED: {p}", file.display(), c.line),
                    None => eprintln!(
                        "{}:{}: {} {} signed by {}; {} subject(s){}",
                        file.display(),
                        c.line,
                        k.predicate_type,
                        k.result.as_deref().unwrap_or("?"),
                        k.signers.join(", "),
                        k.subjects.len(),
                        if c.changed.is_empty() {
                            if dir.is_some() {
                                ", all match the files"
                            } else {
                                ""
                            }
                            .to_string()
                        } else {
                            format!(", CHANGED since: {}", c.changed.join(", "))
                        }
                    ),
                }
            }
            if checked.is_empty() {
                eprintln!("{}: no attestation in the file", file.display());
            }
        }
    }
    code
}

fn one(
    line: usize,
    text: &str,
    policy: &Policy,
    rule: &vcc_trust::policy::RecordRule,
    dir: Option<&Path>,
) -> Checked {
    let keys: Vec<(String, vcc_trust::keys::PublicKey)> = rule
        .signers
        .iter()
        .filter_map(|id| policy.keys.get(id).map(|k| (id.clone(), k.clone())))
        .collect();
    let checked = vcc_formats::attest::check_line(text, &keys, rule.threshold);
    let mut changed = Vec::new();
    if let Some(root) = dir.filter(|_| checked.problem.is_none()) {
        for (name, want) in &checked.subjects {
            let safe =
                !name.is_empty() && !name.starts_with('/') && !name.split('/').any(|p| p == "..");
            let now = safe
                .then(|| std::fs::read(root.join(name)).ok())
                .flatten()
                .map(|b| format!("{:x}", sha2::Sha256::digest(&b)));
            if now.as_deref() != Some(want.as_str()) {
                changed.push(name.clone());
            }
        }
    }
    Checked {
        line,
        checked,
        changed,
    }
}
