//! `vcc check`: evaluate each contract, then keep the verdict where it is
//! asked for — report files in every format, the job summary and
//! annotations under GitHub Actions — and print it.
//!
//! Report files are replaced by a "did not finish" report before the run
//! (in their own format), so a crash or kill never leaves an earlier
//! verdict behind; each is written atomically after it. A report that
//! cannot be written makes the run `invalid`: what is printed never says
//! accepted when what was asked for was not kept.

use vcc_ledger::Kind;
use vcc_report::law::exit;
use vcc_report::{Report, Verdict};
use vcc_runtime::{CheckOptions, Runtime, WalkLimits};
use vcc_trust::keys::PrivateKey;

use crate::args::{CheckArgs, Cli, Print};
use crate::checking::deliver::Delivery;
use crate::checking::evaluate::evaluate;
use crate::render::Style;
use crate::settings::runtime;
use crate::trust::attest::Attester;
use crate::trust::ledger::Recorder;

pub fn run(cli: &Cli, args: &CheckArgs, style: &Style) -> i32 {
    if args.contracts.len() > 1 && args.reports.json().next().is_some() {
        eprintln!(
            "vcc check: --report keeps the report of one contract; run `vcc check` once per contract to keep each"
        );
        return exit::INVALID;
    }
    // First of all: a report left by an earlier run must not outlive this
    // one.
    if let Err(code) = unfinished_first(args, style) {
        return code;
    }
    let recorder = match args.ledger.recorder() {
        Ok(r) => r,
        Err(why) => {
            eprintln!("vcc check: {why}");
            return exit::INVALID;
        }
    };
    // With --partition, --key signs the shard report (--report) instead.
    let shard_key = match (&args.partition, &args.key) {
        (Some(_), Some(key)) => {
            if args.reports.json().next().is_none() {
                eprintln!(
                    "vcc check: --partition --key signs the shard report that --report FILE writes: give --report"
                );
                return exit::INVALID;
            }
            match PrivateKey::read(key) {
                Ok(k) => Some(k),
                Err(r) => {
                    eprintln!("vcc check: --key: {}", r.message);
                    return exit::INVALID;
                }
            }
        }
        _ => None,
    };
    let attester = match Attester::new(
        args.attest.as_deref(),
        args.key.as_deref().filter(|_| args.partition.is_none()),
        args.resource.as_deref(),
    ) {
        Ok(a) => a,
        Err(why) => {
            eprintln!("vcc check: {why}");
            return exit::INVALID;
        }
    };
    let runtime = match runtime(cli) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut attached = Vec::new();
    for spec in &args.attach {
        match crate::attach::parse(spec) {
            Ok(file) => attached.push(file),
            Err(why) => {
                eprintln!("vcc check: {why}");
                return exit::INVALID;
            }
        }
    }
    let defaults = CheckOptions::default();
    let walk = WalkLimits {
        max_files: args.max_files.unwrap_or(defaults.walk.max_files),
        max_depth: args.max_depth.unwrap_or(defaults.walk.max_depth),
        max_file_size: args
            .max_file_size
            .map_or(defaults.walk.max_file_size, |s| s.0),
        ..defaults.walk.clone()
    };
    let options = CheckOptions {
        jobs: args.jobs.unwrap_or(defaults.jobs),
        evidence_dir: args.evidence_dir.clone(),
        walk,
        exclude: args.exclude.clone(),
        only: args.only.clone(),
        attached,
        subjects: attester.is_some(),
        signs_attestation: attester.is_some(),
        gate: args.gate.clone(),
        partition: args.partition,
        // The report files are vcc's: one written inside the deliverable
        // root is never part of the evidence.
        writes: args.reports.flags(),
        ..defaults
    };
    let mut options = options;
    if args.reuse {
        let Some(ledger) = args.ledger.ledger.clone() else {
            eprintln!("vcc check: --reuse reuses verdicts from a ledger: give --ledger FILE too");
            return exit::INVALID;
        };
        if attester.is_some() {
            eprintln!(
                "vcc check: --reuse and --attest: an attestation is made from a computed run; drop one"
            );
            return exit::INVALID;
        }
        // Only what the verifier's key signed is reused: its public half
        // checks the log (no key: nothing is, and the report says why).
        let public = recorder.as_ref().and_then(Recorder::public_key);
        options.reuse = Some(vcc_runtime::Reuse(std::sync::Arc::new(move |key: &str| {
            crate::trust::ledger::prior(&ledger, public.as_ref(), key)
        })));
    }
    let after = After {
        recorder,
        attester,
        shard_key,
    };
    if args.watch {
        return crate::checking::watch::run(args, || {
            if let Err(code) = unfinished_first(args, style) {
                return code;
            }
            once(&runtime, args, &options, &after, style)
        });
    }
    once(&runtime, args, &options, &after, style)
}

/// What is done with each report before it is written and printed.
struct After {
    recorder: Option<Recorder>,
    attester: Option<Attester>,
    /// `--partition --key`: signs the shard report files.
    shard_key: Option<PrivateKey>,
}

/// Where this run's reports go.
fn delivery<'a>(args: &'a CheckArgs, signer: Option<&'a PrivateKey>) -> Delivery<'a> {
    Delivery {
        command: "vcc check",
        reports: &args.reports,
        allow_advisory: args.allow_advisory,
        signer,
    }
}

/// Until the run ends, each report file says it did not finish. `Err`: one
/// cannot be written (said in the format asked), the exit code.
fn unfinished_first(args: &CheckArgs, style: &Style) -> Result<(), i32> {
    let names: Vec<String> = args
        .contracts
        .iter()
        .map(|c| c.display().to_string())
        .collect();
    delivery(args, None).unfinished_first(&names, style)
}

/// One check of every contract given; the worst exit code.
fn once(
    runtime: &Runtime,
    args: &CheckArgs,
    options: &CheckOptions,
    after: &After,
    style: &Style,
) -> i32 {
    let spinner = crate::progress::spinner(
        runtime.loader().progress(),
        args.reports.print == Print::Human,
    );
    let reports: Vec<Report> = args
        .contracts
        .iter()
        .map(|contract| {
            let mut report = evaluate(
                runtime,
                contract,
                args.dir.as_deref(),
                &args.binding,
                options.clone(),
            )
            .report;
            if !args.only.is_empty() {
                partial(&mut report, &args.only);
            }
            if let Some(p) = &args.partition {
                shard(&mut report, p);
            }
            if let Some(attester) = &after.attester {
                attester.attest(&mut report);
            }
            if let Some(recorder) = &after.recorder {
                // A shard is a share of a check, not one: `vcc merge` decides.
                let kind = if args.partition.is_some() {
                    Kind::Shard
                } else {
                    Kind::Check
                };
                recorder.check(kind, &mut report);
            }
            report
        })
        .collect();
    drop(spinner);
    delivery(args, after.shard_key.as_ref()).finish(reports, style)
}

/// `--partition`: a shard judges a share of the rows and is never
/// accepted; `vcc merge` of every shard decides.
fn shard(report: &mut Report, p: &vcc_report::partition::Partition) {
    let label = p.label();
    report.partial = report.criteria.iter().map(|c| c.id.clone()).collect();
    match report.verdict {
        Verdict::Accepted => {
            report.verdict = Verdict::Withheld;
            report.reason = format!(
                "shard {label}: every MUST it judged passed; a shard is never accepted, `vcc merge` of all {} shards decides",
                p.total
            );
        }
        Verdict::Invalid => {}
        _ => report.reason = format!("shard {label}: {}", report.reason),
    }
}

/// `--only`: a partial run is never accepted.
fn partial(report: &mut Report, only: &[String]) {
    report.partial = only.to_vec();
    let which = only.join(", ");
    match report.verdict {
        Verdict::Accepted => {
            report.verdict = Verdict::Withheld;
            report.reason = format!(
                "a partial run (--only {which}): every MUST it checked passed, but a partial run is never accepted"
            );
        }
        Verdict::Invalid => {}
        _ => report.reason = format!("a partial run (--only {which}): {}", report.reason),
    }
}
