//! `vcc merge`: read shard reports (plain, or signed in DSSE envelopes),
//! check their signatures against the trust policy when it asks for them,
//! and let `vcc_report::partition::merge` put them together. Exits like
//! `vcc check`: 0 accepted, 1 not, 2 when the shards cannot be merged.

use std::path::{Path, PathBuf};

use vcc_formats::Format as FileFormat;
use vcc_report::partition::{SHARD_PAYLOAD_TYPE, Shard};
use vcc_report::{Report, Verdict};
use vcc_trust::dsse::Envelope;
use vcc_trust::policy::Policy;

use crate::args::MergeArgs;
use crate::deliver::Delivery;
use crate::render::Style;

/// A shard report larger than this is not read.
const MAX_SHARD_BYTES: u64 = 256 << 20;

pub fn run(args: &MergeArgs, style: &Style) -> i32 {
    let report = match read_and_merge(args) {
        Ok(r) => r,
        Err(why) => invalid(args, why),
    };
    let delivery = Delivery {
        command: "vcc merge",
        files: files(args),
        format: args.format,
        allow_advisory: args.allow_advisory,
        signer: None,
    };
    delivery.finish(vec![report], style)
}

fn read_and_merge(args: &MergeArgs) -> Result<Report, String> {
    let policy = match Policy::locate(args.trust.as_deref()) {
        Some(path) => Some(Policy::read(&path).map_err(|r| r.message)?),
        None => None,
    };
    let required = policy.as_ref().and_then(|p| p.attestations.as_ref());
    let mut shards = Vec::new();
    for path in &args.shards {
        let shard = read_shard(path, policy.as_ref())?;
        if let Some(rule) = required {
            let trusted = shard
                .signed_by
                .iter()
                .filter(|k| rule.signers.contains(k))
                .count();
            if trusted < rule.threshold {
                return Err(format!(
                    "{}: {} — the trust policy ({}) requires shards signed by {} of [{}]",
                    path.display(),
                    if shard.signed_by.is_empty() {
                        "UNSIGNED: no signature by a key it lists".to_string()
                    } else {
                        format!("UNTRUSTED: signed only by {}", shard.signed_by.join(", "))
                    },
                    policy
                        .as_ref()
                        .map_or(String::new(), |p| p.path.display().to_string()),
                    rule.threshold,
                    rule.signers.join(", ")
                ));
            }
        }
        shards.push(shard);
    }
    vcc_report::partition::merge(shards)
}

/// One shard file: a report, or a DSSE envelope holding one (then who of
/// the policy's keys signed it).
fn read_shard(path: &Path, policy: Option<&Policy>) -> Result<Shard, String> {
    let name = path.display().to_string();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{name}: {e}"))?
        .len();
    if size > MAX_SHARD_BYTES {
        return Err(format!("{name}: over {MAX_SHARD_BYTES} bytes"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        format!("{name}: not JSON ({e}): give the JSON of `vcc check --partition … --report`")
    })?;
    let (payload, signed_by) = if value.get("payloadType").is_some() {
        let envelope: Envelope = serde_json::from_value(value)
            .map_err(|e| format!("{name}: not a DSSE envelope: {e}"))?;
        if envelope.payload_type != SHARD_PAYLOAD_TYPE {
            return Err(format!(
                "{name}: an envelope of {}, not of a shard report ({SHARD_PAYLOAD_TYPE})",
                envelope.payload_type
            ));
        }
        let signed_by: Vec<String> = policy
            .map(|p| {
                p.keys
                    .iter()
                    .filter(|(_, key)| envelope.signed_by(key))
                    .map(|(id, _)| id.clone())
                    .collect()
            })
            .unwrap_or_default();
        let payload = envelope
            .payload_bytes()
            .ok_or_else(|| format!("{name}: the envelope's payload is not base64"))?;
        (payload, signed_by)
    } else {
        (bytes, Vec::new())
    };
    let report: Report =
        serde_json::from_slice(&payload).map_err(|e| format!("{name}: not a vcc report: {e}"))?;
    Ok(Shard {
        file: name,
        report,
        signed_by,
    })
}

/// The merge that could not be made: `invalid`, with why.
fn invalid(args: &MergeArgs, why: String) -> Report {
    let path = args
        .shards
        .first()
        .map_or_else(String::new, |p| p.display().to_string());
    let mut report = Report::unfinished(&path);
    report.verdict = Verdict::Invalid;
    report.reason = format!("the shards cannot be merged: {why}");
    report
}

fn files(args: &MergeArgs) -> Vec<(PathBuf, FileFormat)> {
    [
        (&args.report, FileFormat::Json),
        (&args.report_junit, FileFormat::Junit),
        (&args.report_sarif, FileFormat::Sarif),
        (&args.report_markdown, FileFormat::Markdown),
        (&args.report_gitlab, FileFormat::Gitlab),
        (&args.report_html, FileFormat::Html),
    ]
    .into_iter()
    .filter_map(|(p, f)| p.clone().map(|p| (p, f)))
    .collect()
}
