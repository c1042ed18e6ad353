//! `vcc merge`: read shard reports (plain, or signed in DSSE envelopes),
//! hold them to what the merge decides about, and let
//! `vcc_report::partition::merge` put them together. Exits like `vcc
//! check`: 0 accepted, 1 not, 2 when the shards cannot be merged.
//!
//! A set of shards that agree with each other is not enough: shards of
//! an old commit, of another contract or lock, or checked under another
//! trust policy agree too. So the merge is bound — to the contract it
//! reads and the root it walks (`--contract`, as `vcc check` reads and
//! walks them), to digests it is given (`--expect-*`), or, said aloud,
//! to nothing (`--unbound`) — and every shard must be signed by a key the
//! trust policy names for shards, unless `--allow-unsigned` is said. The
//! trust policy is refused where `vcc check` refuses it (in the root).

use std::path::{Path, PathBuf};
use std::time::Instant;

use vcc_ledger::Kind;
use vcc_report::partition::{Binding, Expect, Expected, SHARD_PAYLOAD_TYPE, Shard};
use vcc_report::{Report, Verdict};
use vcc_runtime::{CheckOptions, Runtime};
use vcc_trust::dsse::Envelope;
use vcc_trust::policy::Policy;

use crate::args::{Cli, MergeArgs};
use crate::checking::deliver::Delivery;
use crate::checking::evaluate::Ready;
use crate::render::Style;
use crate::settings::RuntimeSettings;
use crate::trust::attest::Attester;

/// A shard report larger than this is not read.
const MAX_SHARD_BYTES: u64 = 256 << 20;

pub fn run(cli: &Cli, args: &MergeArgs, style: &Style) -> i32 {
    let delivery = Delivery {
        command: "vcc merge",
        reports: &args.reports,
        allow_advisory: args.allow_advisory,
        signer: None,
    };
    let named = named(args);
    // First of all: a report an earlier merge left must not outlive this
    // one, whatever stops this one.
    if let Err(code) = delivery.unfinished_first(std::slice::from_ref(&named), style) {
        return code;
    }
    let started = Instant::now();
    let report = match after(args) {
        Err(why) => invalid(&named, why),
        Ok((recorder, attester)) => {
            let mut report = merged(cli, args).unwrap_or_else(|r| *r);
            report.runtime.duration_ms = started.elapsed().as_millis() as u64;
            if let Some(attester) = &attester {
                attester.attest(&mut report);
            }
            if let Some(recorder) = &recorder {
                recorder.check(Kind::Merge, &mut report);
            }
            report
        }
    };
    delivery.finish(vec![report], style)
}

/// The verdict log and the attestation file, as asked.
fn after(
    args: &MergeArgs,
) -> Result<(Option<crate::trust::ledger::Recorder>, Option<Attester>), String> {
    let recorder = args.ledger.recorder()?;
    let attester = Attester::new(
        args.attest.as_deref(),
        args.key.as_deref(),
        args.resource.as_deref(),
    )?;
    Ok((recorder, attester))
}

/// What the reports name before anything is read.
fn named(args: &MergeArgs) -> String {
    args.contract
        .as_ref()
        .or(args.shards.first())
        .map_or_else(String::new, |p| p.display().to_string())
}

/// What the merge learnt by reading the contract and walking the root.
struct Walked {
    root: PathBuf,
    subjects: Vec<vcc_report::SubjectFile>,
}

/// The merged report; `Err`: the `invalid` report saying why not.
fn merged(cli: &Cli, args: &MergeArgs) -> Result<Report, Box<Report>> {
    let named = named(args);
    let fail = |why: String| Box::new(invalid(&named, why));
    let binding = binding(args).map_err(fail)?;
    let runtime = RuntimeSettings::of(cli).runtime().map_err(fail)?;
    let mut expected = Expected {
        binding,
        ..Expected::default()
    };
    // Shards judged by another vcc are another judgment.
    expected.fields.push(Expect::version(
        env!("CARGO_PKG_VERSION"),
        "the vcc merging them",
    ));
    expected
        .fields
        .push(Expect::host(runtime.host_digest(), "the vcc merging them"));
    let (policy, walked) = match binding {
        Binding::Contract => {
            let (policy, walked) = bind_to_contract(&runtime, args, &mut expected)?;
            (policy, Some(walked))
        }
        Binding::Digests | Binding::Unbound => {
            let policy = match Policy::locate(args.binding.trust.trust.as_deref()) {
                Some(path) => Some(Policy::read(&path).map_err(|r| fail(r.message))?),
                None => None,
            };
            if binding == Binding::Digests {
                for (flag, digest) in [
                    ("--expect-contract", &args.expect_contract),
                    ("--expect-root", &args.expect_root),
                ] {
                    if let Some(d) = digest {
                        check_digest(flag, d).map_err(fail)?;
                    }
                }
                let (contract, root) = (
                    args.expect_contract.as_deref().unwrap_or_default(),
                    args.expect_root.as_deref().unwrap_or_default(),
                );
                expected
                    .fields
                    .push(Expect::contract(contract, "--expect-contract"));
                expected.fields.push(Expect::root(root, "--expect-root"));
                expected.fields.push(Expect::policy(
                    policy.as_ref().map(|p| p.digest.clone()),
                    &policy_source(policy.as_ref()),
                ));
            }
            (policy, None)
        }
    };
    let mut shards = Vec::new();
    for path in &args.shards {
        shards.push(read_shard(path, policy.as_ref()).map_err(fail)?);
    }
    if walked.is_none() {
        policy_outside_roots(policy.as_ref(), &shards).map_err(fail)?;
    }
    expected.unsigned =
        signed_enough(&shards, policy.as_ref(), args.allow_unsigned).map_err(fail)?;
    let mut report = vcc_report::partition::merge(shards, &expected).map_err(fail)?;
    if let Some(w) = walked {
        // The merge saw the tree: the report is about it, here.
        report.run.commit = vcc_runtime::git::head_commit(&w.root);
        if let Some(d) = report.deliverables.as_mut() {
            d.root = w.root.display().to_string();
            d.root_absolute = std::fs::canonicalize(&w.root)
                .unwrap_or_else(|_| w.root.clone())
                .display()
                .to_string();
            d.subjects = w.subjects;
        }
    }
    Ok(report)
}

/// Which binding the command line asks for; `Err` when none.
fn binding(args: &MergeArgs) -> Result<Binding, String> {
    let given = |flags: &[(&'static str, bool)]| -> Vec<&'static str> {
        flags
            .iter()
            .filter_map(|(flag, given)| given.then_some(*flag))
            .collect()
    };
    let j = &args.binding.judge;
    let judging = given(&[
        ("--judge-record", j.judge_record.is_some()),
        ("--judge-replay", j.judge_replay.is_some()),
        ("--judge-calls", j.judge_calls.is_some()),
        ("--judge-tokens", j.judge_tokens.is_some()),
        ("--judge-cost", j.judge_cost.is_some()),
        ("--judge-deadline", j.judge_deadline.is_some()),
    ]);
    if !judging.is_empty() {
        return Err(format!(
            "{}: a merge asks no judge (its shards did); drop them",
            judging.join(", ")
        ));
    }
    let binding = &args.binding;
    // Flags that only mean something to a merge that reads the contract
    // (clap lets `requires` pass when a conflicting flag is given).
    let contract_only = given(&[
        ("--dir", args.dir.is_some()),
        ("--exclude", !args.exclude.is_empty()),
        ("--max-files", args.max_files.is_some()),
        ("--max-depth", args.max_depth.is_some()),
        ("--max-file-size", args.max_file_size.is_some()),
        ("--attest", args.attest.is_some()),
        ("--locked", binding.locked),
        ("--policy", binding.policy.is_some()),
        ("--artifact-root", !binding.artifact_roots.is_empty()),
        ("--adapters", binding.adapters.is_some()),
        ("--approvals", binding.approvals.is_some()),
        ("--judges", j.config.is_some()),
    ]);
    if args.contract.is_none() && !contract_only.is_empty() {
        return Err(format!(
            "{}: only with --contract FILE (they say how the merge reads the contract)",
            contract_only.join(", ")
        ));
    }
    if args.contract.is_some() {
        Ok(Binding::Contract)
    } else if args.expect_contract.is_some() || args.expect_root.is_some() {
        Ok(Binding::Digests)
    } else if args.unbound {
        Ok(Binding::Unbound)
    } else {
        Err("the merge is bound to nothing: give --contract FILE [--dir ROOT] (the merge reads the contract and walks the deliverables as `vcc check` does, and every shard must have judged them), or --expect-contract DIGEST --expect-root DIGEST, or say --unbound (any self-consistent set of shards, of any commit, merges)".into())
    }
}

/// `--contract`: read it as `vcc check` does (trust policy, lock, bases;
/// refusals included), lint the whole of it, walk the root; every shard
/// must hold what that gives. `Ok`: the trust policy in force and what was
/// walked.
fn bind_to_contract(
    runtime: &Runtime,
    args: &MergeArgs,
    expected: &mut Expected,
) -> Result<(Option<Policy>, Walked), Box<Report>> {
    let Some(contract) = args.contract.as_deref() else {
        return Err(Box::new(invalid("", "no --contract".into())));
    };
    let shown = contract.display().to_string();
    let ready = Ready::read(runtime, contract, args.dir.as_deref(), &args.binding).map_err(
        |mut report| {
            let first = report
                .problems
                .first()
                .map_or(report.reason.clone(), |p| {
                    format!("{}: {}", p.code.as_str(), p.message)
                });
            report.reason = format!(
                "the shards cannot be merged: the contract {shown} cannot be read as `vcc check` reads it: {first}"
            );
            report
        },
    )?;
    let doc = &ready.prepared.doc;
    let refuse = |why: String, problems: Vec<vcc_contract::Problem>| {
        let mut report = invalid(&shown, why);
        report.contract.digest = Some(doc.digest.clone());
        report.problems = problems;
        Box::new(report)
    };
    // The whole contract's problems: a shard's are of its slice.
    let (mut problems, _) =
        vcc_runtime::lint_with_validators(runtime.loader(), doc, Some(&ready.root));
    problems.extend(ready.prepared.judging.problems(doc));
    let errors = problems.iter().filter(|p| p.is_error()).count();
    if errors > 0 {
        return Err(refuse(
            format!("the contract has {errors} integrity error(s): its shards cannot be merged"),
            problems,
        ));
    }
    // The walk `vcc check` makes with the same flags: limits change what
    // is read, hence the root digest.
    let defaults = CheckOptions::default();
    let walk = vcc_runtime::WalkLimits {
        max_files: args.max_files.unwrap_or(defaults.walk.max_files),
        max_depth: args.max_depth.unwrap_or(defaults.walk.max_depth),
        max_file_size: args
            .max_file_size
            .map_or(defaults.walk.max_file_size, |s| s.0),
        ..defaults.walk.clone()
    };
    let options = CheckOptions {
        walk,
        exclude: args.exclude.clone(),
        host_exclude: ready.host_exclude(doc),
        subjects: args.attest.is_some(),
        ..CheckOptions::default()
    };
    let (root_digest, subjects) =
        vcc_runtime::root_look(runtime.loader(), doc, &ready.root, &options).map_err(|e| {
            refuse(
                format!(
                    "the shards cannot be merged: the deliverables under {} cannot be walked as `vcc check` walks them: {e}",
                    ready.root.display()
                ),
                Vec::new(),
            )
        })?;
    let from = format!("the contract {shown} as read now");
    let policy = ready.prepared.policy.clone();
    expected.fields.extend([
        Expect::contract(&doc.digest, &from),
        Expect::sources(&ready.sources.fingerprint(), &from),
        Expect::bases(
            Expect::bases_of(
                doc.bases
                    .iter()
                    .map(|b| (b.label.as_str(), b.digest.as_str())),
            ),
            &from,
        ),
        Expect::policy(
            ready.prepared.policy_digest.clone(),
            &policy_source(policy.as_ref()),
        ),
        Expect::root(
            &root_digest,
            &format!(
                "the deliverables under {} as walked now",
                ready.root.display()
            ),
        ),
    ]);
    expected.rows = Some(vcc_report::partition::rows_of(&doc.contract));
    expected.advisory = Some(doc.contract.advisory);
    expected.problems = Some(problems);
    Ok((
        policy,
        Walked {
            root: ready.root.clone(),
            subjects,
        },
    ))
}

/// Where the trust policy in force came from, for messages.
fn policy_source(policy: Option<&Policy>) -> String {
    match policy {
        Some(p) => format!("the trust policy {}", p.path.display()),
        None => "no trust policy".into(),
    }
}

/// A digest as reports write them: `blake3:` and 64 hex digits.
fn check_digest(flag: &str, digest: &str) -> Result<(), String> {
    let hex = digest.strip_prefix("blake3:").unwrap_or("");
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(format!(
            "{flag} {digest}: not a digest as a report writes it (blake3: and 64 hex digits, e.g. `contract.digest` or `deliverables.root_digest` of `vcc check --format json`)"
        ))
    }
}

/// Without the tree, the roots the shards name are where a checkout may
/// be: a trust policy inside one is the worker's to rewrite (`vcc check`
/// refuses it in its root: TRUST_IN_ROOT).
fn policy_outside_roots(policy: Option<&Policy>, shards: &[Shard]) -> Result<(), String> {
    let Some(policy) = policy else {
        return Ok(());
    };
    for s in shards {
        let Some(root) = s.report.deliverables.as_ref() else {
            continue;
        };
        let root = Path::new(&root.root_absolute);
        if root.exists() && crate::paths::inside(&policy.path, root) {
            return Err(format!(
                "TRUST_IN_ROOT: the trust policy {} lies in the deliverable root {} that {} judged: whoever writes the deliverables could rewrite it (and list their own key for shards); keep it where they cannot",
                policy.path.display(),
                root.display(),
                s.file
            ));
        }
    }
    Ok(())
}

/// Every shard signed by enough of the keys the trust policy names for
/// shards (`attestations:`); with no such rule, only `--allow-unsigned`
/// merges them. `Ok(true)`: merged unsigned.
fn signed_enough(
    shards: &[Shard],
    policy: Option<&Policy>,
    allow_unsigned: bool,
) -> Result<bool, String> {
    let Some(rule) = policy.and_then(|p| p.attestations.as_ref()) else {
        if allow_unsigned {
            return Ok(true);
        }
        let first = shards.first().map_or("", |s| s.file.as_str());
        let none = match policy {
            Some(p) => format!(
                "the trust policy {} names no keys that sign shards",
                p.path.display()
            ),
            None => "there is no trust policy (--trust FILE, $VCC_TRUST or ~/.config/vcc/trust.yaml) to name the keys that sign shards".into(),
        };
        return Err(format!(
            "{first}: UNSIGNED: {none}, so no shard can be trusted; sign them (`vcc check --partition … --key KEY`) and list the key under `attestations: {{ signers: [...] }}` in the trust policy, or give --allow-unsigned to merge them on the files' word"
        ));
    };
    for shard in shards {
        let trusted = shard
            .signed_by
            .iter()
            .filter(|k| rule.signers.contains(k))
            .count();
        if trusted < rule.threshold {
            return Err(format!(
                "{}: {} — the trust policy ({}) requires shards signed by {} of [{}]",
                shard.file,
                if shard.signed_by.is_empty() {
                    "UNSIGNED: no signature by a key it lists".to_string()
                } else {
                    format!("UNTRUSTED: signed only by {}", shard.signed_by.join(", "))
                },
                policy.map_or(String::new(), |p| p.path.display().to_string()),
                rule.threshold,
                rule.signers.join(", ")
            ));
        }
    }
    Ok(false)
}

/// One shard file: a report, or a DSSE envelope holding one (then who of
/// the policy's keys signed it).
fn read_shard(path: &Path, policy: Option<&Policy>) -> Result<Shard, String> {
    let name = path.display().to_string();
    let bytes =
        crate::attach::read_capped(path, MAX_SHARD_BYTES).map_err(|e| format!("{name}: {e}"))?;
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
fn invalid(named: &str, why: String) -> Report {
    let mut report = Report::unfinished(named);
    report.verdict = Verdict::Invalid;
    report.reason = if why.starts_with("the shards cannot be merged") {
        why
    } else {
        format!("the shards cannot be merged: {why}")
    };
    report
}
