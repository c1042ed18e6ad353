//! The verdict log from the command line: `--ledger FILE` (or
//! `$VCC_LEDGER`) on `check`, `converge`, the hook and MCP appends one
//! entry per verdict, signed checkpoints with `--ledger-key`; `vcc ledger
//! verify|show|stats|checkpoint|prove|consistency|verify-proof|repair`
//! read it.
//!
//! A verdict that was asked to be logged and could not be is not a
//! verdict: the run becomes `invalid`, as with a report that cannot be
//! written.

use std::path::Path;

use serde_json::json;
use vcc_ledger::stats::By;
use vcc_ledger::{Entry, Kind, Ledger};
use vcc_report::law::exit;
use vcc_report::{LedgerRef, Report, Verdict};
use vcc_trust::keys::{PrivateKey, PublicKey};

use crate::args::{Format, LedgerArgs, LedgerCommand, StatsBy};
use crate::output::{print_stdout, write_atomically};

/// Where verdicts are logged, and the key that signs checkpoints.
pub struct Recorder {
    ledger: Ledger,
    key: Option<PrivateKey>,
}

impl Recorder {
    /// `Ok(None)` when no ledger was asked for.
    pub fn new(ledger: Option<&Path>, key: Option<&Path>) -> Result<Option<Recorder>, String> {
        let Some(path) = ledger else {
            if key.is_some() {
                return Err("--ledger-key without --ledger (or $VCC_LEDGER)".into());
            }
            return Ok(None);
        };
        let key = key
            .map(PrivateKey::read)
            .transpose()
            .map_err(|r| format!("--ledger-key: {}", r.message))?;
        Ok(Some(Recorder {
            ledger: Ledger::new(path),
            key,
        }))
    }

    /// The public half of `--ledger-key`: what `--reuse` checks the log
    /// with.
    pub fn public_key(&self) -> Option<PublicKey> {
        self.key.as_ref().map(PrivateKey::public)
    }

    /// Log a check's report; on failure the report becomes `invalid`.
    pub fn check(&self, kind: Kind, report: &mut Report) {
        self.check_at(kind, report, None);
    }

    /// [`Recorder::check`] for iteration `iteration` of a loop.
    pub fn check_at(&self, kind: Kind, report: &mut Report, iteration: Option<u32>) {
        if let Some(root) = report
            .deliverables
            .as_ref()
            .map(|d| d.root_absolute.clone())
            && self.inside(Path::new(&root))
        {
            report.verdict = Verdict::Invalid;
            report.reason = format!(
                "the verdict log {} lies in the deliverable root {root}: whoever writes the deliverables could rewrite the history, and every append would change the root; keep it outside",
                self.ledger.path.display()
            );
            return;
        }
        let digest = report_digest(report);
        let dirty = report
            .deliverables
            .as_ref()
            .filter(|_| report.run.commit.is_some())
            // Read from the repository's files: `git status` would run
            // what the worker's `.git/config` names (core.fsmonitor, …).
            .and_then(|d| vcc_runtime::git::dirty(Path::new(&d.root_absolute)));
        let mut entry = Entry::of_check(kind, report, Some(digest), dirty);
        entry.iteration = iteration;
        self.append(entry, report);
    }

    /// Whether the log's file lies under `root` (also through a link).
    fn inside(&self, root: &Path) -> bool {
        crate::paths::inside(&self.ledger.path, root)
    }

    /// Log an entry; on failure `report` (what is printed) becomes invalid.
    pub fn append(&self, entry: Entry, report: &mut Report) {
        match self.ledger.append(entry, self.key.as_ref()) {
            Ok(appended) => {
                report.ledger = Some(LedgerRef {
                    file: self.ledger.path.display().to_string(),
                    seq: appended.seq,
                });
            }
            Err(e) => {
                report.verdict = Verdict::Invalid;
                report.reason = format!("the verdict could not be logged: {e}");
            }
        }
    }

    /// Log an entry that belongs to no report (a loop's end); `Err` says
    /// why it could not be.
    pub fn append_plain(&self, entry: Entry) -> Result<u64, String> {
        self.ledger
            .append(entry, self.key.as_ref())
            .map(|a| a.seq)
            .map_err(|e| format!("the verdict could not be logged: {e}"))
    }
}

/// The verdict the ledger holds for `reuse_key`: the latest entry of a
/// full check that was computed (not itself reused) with that reuse key
/// and no `error` row, covered by a checkpoint `key` signed, in a log that
/// verifies with `key`. A hash chain alone proves nothing about who
/// appended an entry: without the key nothing is reused. `Err` says why
/// nothing is (the report's `not_reused`).
pub fn prior(
    path: &Path,
    key: Option<&PublicKey>,
    reuse_key: &str,
) -> Result<vcc_report::PriorVerdict, String> {
    let Some(key) = key else {
        return Err(
            "no --ledger-key: a logged verdict is reused only when a checkpoint signed with the verifier's ledger key covers it (anyone who can write the log can append a correctly chained entry); the verdict was computed".into(),
        );
    };
    // Read once: the entries searched are the entries verified.
    let (lines, v, _) =
        match vcc_ledger::verify::read_and_verify(&Ledger::new(path), Some(key), None) {
            Ok(read) => read,
            Err(vcc_ledger::Error::Io(_, e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "the ledger {} does not exist yet: nothing to reuse",
                    path.display()
                ));
            }
            Err(e) => return Err(format!("the ledger could not be read: {e}")),
        };
    if let Some(p) = v.problem {
        return Err(format!(
            "the ledger {} does not verify with the key ({} at seq {}: {}): nothing is reused",
            path.display(),
            p.kind.as_str(),
            p.seq,
            p.message
        ));
    }
    let covered = &lines.lines[..v.covered as usize];
    let found = covered.iter().rev().find_map(|line| {
        let e: Entry = serde_json::from_slice(line).ok()?;
        // A full check's rows only (a shard or a loop's end holds other
        // rows); a kind this code does not know is not reused.
        let full_check = matches!(
            e.kind,
            Kind::Check | Kind::ConvergeCheck | Kind::Hook | Kind::Mcp
        );
        let usable = full_check
            && e.reuse_key.as_deref() == Some(reuse_key)
            && e.reused_from.is_none()
            && !e
                .criteria
                .iter()
                .any(|c| c.status == vcc_report::Status::Error);
        usable.then(|| vcc_report::PriorVerdict {
            reused: vcc_report::Reused {
                ledger: path.display().to_string(),
                seq: e.seq,
                run_id: e.run_id.clone(),
            },
            criteria: e
                .criteria
                .iter()
                .map(|c| vcc_report::PriorCriterion {
                    id: c.id.clone(),
                    severity: c.severity,
                    status: c.status,
                    reason: c.reason,
                    summary: c.summary.clone(),
                })
                .collect(),
        })
    });
    found.ok_or_else(|| {
        format!(
            "the ledger holds no signed verdict computed for these inputs (reuse key {reuse_key})"
        )
    })
}

/// blake3 of the JSON report (without `ledger`, which the entry cannot
/// know yet).
pub fn report_digest(report: &Report) -> String {
    let mut copy = report.clone();
    copy.ledger = None;
    let text = serde_json::to_string_pretty(&copy).unwrap_or_default() + "\n";
    format!("blake3:{}", blake3::hash(text.as_bytes()).to_hex())
}

/// `vcc ledger …`
pub fn run(command: &LedgerCommand) -> i32 {
    match command {
        LedgerCommand::Verify {
            file,
            key,
            checkpoint,
            format,
        } => verify(file, key.as_deref(), checkpoint.as_deref(), *format),
        LedgerCommand::Show {
            file,
            last,
            contract,
            format,
        } => show(file, *last, contract.as_deref(), *format),
        LedgerCommand::Stats { file, by, format } => stats(file, *by, *format),
        LedgerCommand::Prove {
            file,
            seq,
            key,
            out,
        } => prove(file, *seq, key.as_deref(), out.as_deref()),
        LedgerCommand::Checkpoint { file, key, out } => {
            crate::trust::ledger_proofs::checkpoint(file, key, out.as_deref())
        }
        LedgerCommand::Consistency {
            file,
            from,
            from_size,
            out,
        } => crate::trust::ledger_proofs::consistency(
            file,
            from.as_deref(),
            *from_size,
            out.as_deref(),
        ),
        LedgerCommand::VerifyProof {
            receipt,
            key,
            checkpoint,
        } => crate::trust::ledger_proofs::verify_proof(receipt, key, checkpoint.as_deref()),
        LedgerCommand::Repair { file, key } => repair(file, key.as_deref()),
    }
}

fn verify(file: &Path, key: Option<&Path>, kept: Option<&Path>, format: Format) -> i32 {
    let key = match key.map(crate::trust::ledger_proofs::public_key).transpose() {
        Ok(k) => k,
        Err(code) => return code,
    };
    // A kept checkpoint counts only when the key signed it.
    let kept = match (kept, &key) {
        (Some(path), Some(key)) => match crate::trust::ledger_proofs::kept_checkpoint(path, key) {
            Ok(cp) => Some((path.display().to_string(), cp)),
            Err(why) => {
                eprintln!("vcc ledger verify: --checkpoint {}: {why}", path.display());
                return exit::INVALID;
            }
        },
        _ => None,
    };
    let against = kept
        .as_ref()
        .map(|(name, checkpoint)| vcc_ledger::verify::Kept { checkpoint, name });
    let verified =
        vcc_ledger::verify::read_and_verify(&Ledger::new(file), key.as_ref(), against.as_ref());
    let v = match verified {
        Ok((_, v, _)) => v,
        Err(e) => {
            eprintln!("vcc ledger verify: {e}");
            return exit::INVALID;
        }
    };
    match format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "ledger": file.display().to_string(),
                "intact": v.intact(),
                "verification": v,
            }))
            .unwrap_or_default()
        )),
        Format::Human => {
            let mut signed = match (&key, v.checkpoints) {
                (_, 0) => "no checkpoints".to_string(),
                (Some(_), n) => format!(
                    "{} of {n} checkpoint(s) verified with the key, every entry covered",
                    v.checkpoints_verified
                ),
                (None, n) => format!(
                    "{n} checkpoint(s), signatures not checked and entries after the last one not refused (give --key)"
                ),
            };
            if let (Some(size), Some((name, _))) = (v.extends, &kept) {
                signed.push_str(&format!(
                    "; extends the checkpoint kept in {name} (size {size})"
                ));
            }
            if let Some(torn) = v.torn_tail {
                eprintln!(
                    "vcc ledger: a torn last line ({torn} bytes, a write cut off) is ignored; `vcc ledger repair` removes it"
                );
            }
            match &v.problem {
                None => eprintln!(
                    "{}: intact: {} entries, root {}, {signed}",
                    file.display(),
                    v.entries,
                    v.root
                ),
                Some(p) => eprintln!(
                    "{}: BROKEN at seq {}: {}: {}",
                    file.display(),
                    p.seq,
                    p.kind.as_str(),
                    p.message
                ),
            }
        }
    }
    if v.intact() {
        exit::ACCEPTED
    } else {
        exit::NOT_ACCEPTED
    }
}

/// The whole entries of a ledger file, read leniently (for show and stats;
/// `verify` is what says whether they can be trusted).
fn entries(file: &Path) -> Result<Vec<Entry>, String> {
    let lines = Ledger::new(file).read().map_err(|e| e.to_string())?;
    lines
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_slice(l).map_err(|e| {
                format!(
                    "{}: line {}: not a ledger entry: {}",
                    file.display(),
                    i + 1,
                    vcc_ledger::file::in_line(&e)
                )
            })
        })
        .collect()
}

fn show(file: &Path, last: Option<usize>, contract: Option<&str>, format: Format) -> i32 {
    let all = match entries(file) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vcc ledger show: {e}");
            return exit::INVALID;
        }
    };
    let mut picked: Vec<&Entry> = all
        .iter()
        .filter(|e| contract.is_none_or(|c| e.contract.id.as_deref() == Some(c)))
        .collect();
    if let Some(n) = last {
        let skip = picked.len().saturating_sub(n);
        picked.drain(..skip);
    }
    match format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&picked).unwrap_or_default()
        )),
        Format::Human => {
            let mut out = String::new();
            for e in picked {
                out.push_str(&format!(
                    "{:>6}  {}  {:<14} {:<24} {:<9} {:<8} {}{}\n",
                    e.seq,
                    e.time,
                    e.kind.as_str(),
                    crate::render::clean(e.contract.id.as_deref().unwrap_or(&e.contract.path)),
                    e.verdict.as_str(),
                    e.outcome.as_str(),
                    crate::render::clean(&e.reason),
                    e.reused_from
                        .map(|s| format!(" (reused from seq {s})"))
                        .unwrap_or_default()
                ));
            }
            print_stdout(&out);
        }
    }
    exit::ACCEPTED
}

fn stats(file: &Path, by: StatsBy, format: Format) -> i32 {
    let all = match entries(file) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vcc ledger stats: {e}");
            return exit::INVALID;
        }
    };
    let by = match by {
        StatsBy::All => By::Nothing,
        StatsBy::Contract => By::Contract,
        StatsBy::Day => By::Day,
    };
    let groups = vcc_ledger::stats::stats(&all, by);
    match format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&groups).unwrap_or_default()
        )),
        Format::Human => {
            let share =
                |s: Option<f64>| s.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
            let mut out = format!(
                "{:<24} {:<6} {:>6} {:>8} {:>8} {:>7} {:>8} {:>6} {:>16} {:>14}\n",
                "group",
                "level",
                "rows",
                "success",
                "blocked",
                "failed",
                "skipped",
                "known",
                "success/known",
                "success/all"
            );
            for (name, g) in &groups {
                for (level, c) in [
                    ("check", &g.checks),
                    ("loop", &g.loops),
                    ("shard", &g.shards),
                ] {
                    if c.rows == 0 {
                        continue;
                    }
                    out.push_str(&format!(
                        "{:<24} {:<6} {:>6} {:>8} {:>8} {:>7} {:>8} {:>6} {:>16} {:>14}\n",
                        crate::render::clean(name),
                        level,
                        c.rows,
                        c.success,
                        c.blocked,
                        c.failed,
                        c.skipped,
                        c.known,
                        format!("{}/{} {}", c.success, c.known, share(c.success_of_known)),
                        format!("{}/{} {}", c.success, c.rows, share(c.success_of_all)),
                    ));
                }
            }
            print_stdout(&out);
        }
    }
    exit::ACCEPTED
}

fn prove(file: &Path, seq: u64, key: Option<&Path>, out: Option<&Path>) -> i32 {
    let key = match key.map(PrivateKey::read).transpose() {
        Ok(k) => k,
        Err(r) => {
            eprintln!("vcc ledger prove: --key: {}", r.message);
            return exit::INVALID;
        }
    };
    let receipt = match vcc_ledger::receipt::prove(&Ledger::new(file), seq, key.as_ref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("vcc ledger prove: {e}");
            return exit::NOT_ACCEPTED;
        }
    };
    let text = serde_json::to_string_pretty(&receipt).unwrap_or_default() + "\n";
    match out {
        Some(path) => {
            if let Err(e) = write_atomically(path, text.as_bytes()) {
                eprintln!("vcc ledger prove: {}: {e}", path.display());
                return exit::INVALID;
            }
            eprintln!(
                "wrote {}: seq {seq} in a tree of {} entries",
                path.display(),
                receipt.tree_size
            );
        }
        None => print_stdout(&text),
    }
    exit::ACCEPTED
}

fn repair(file: &Path, key: Option<&Path>) -> i32 {
    let key = match key.map(crate::trust::ledger_proofs::public_key).transpose() {
        Ok(k) => k,
        Err(code) => return code,
    };
    match Ledger::new(file).repair(key.as_ref()) {
        Ok(done) if done.nothing() => {
            eprintln!(
                "{}: nothing to repair (no torn last line{})",
                file.display(),
                if key.is_some() {
                    ", every entry covered by a checkpoint the key signed"
                } else {
                    ""
                }
            );
            exit::ACCEPTED
        }
        Ok(done) => {
            if done.torn > 0 {
                eprintln!(
                    "{}: removed a torn last line of {} bytes (a write cut off); the entries before it are untouched",
                    file.display(),
                    done.torn
                );
            }
            if done.torn_checkpoints > 0 {
                eprintln!(
                    "{}.checkpoints: removed a torn last line of {} bytes",
                    file.display(),
                    done.torn_checkpoints
                );
            }
            if let Some((first, last)) = done.uncovered {
                eprintln!(
                    "{}: removed {}, which no checkpoint signed by the key covered, and {} checkpoint line(s) the key did not sign or that counted them; they are kept in {}.removed (look at them: a run killed before it signed, or entries someone else appended)",
                    file.display(),
                    vcc_ledger::verify::seq_range(first, last, "", "").trim_end(),
                    done.checkpoints_removed,
                    file.display()
                );
            } else if done.checkpoints_removed > 0 {
                eprintln!(
                    "{}: removed {} checkpoint line(s) the key did not sign or that counted entries the log does not hold; they are kept in {}.removed",
                    file.display(),
                    done.checkpoints_removed,
                    file.display()
                );
            }
            exit::ACCEPTED
        }
        Err(e) => {
            eprintln!("vcc ledger repair: {e}");
            exit::INVALID
        }
    }
}

impl LedgerArgs {
    pub fn recorder(&self) -> Result<Option<Recorder>, String> {
        Recorder::new(self.ledger.as_deref(), self.ledger_key.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use vcc_ledger::Kind;
    use vcc_report::fixture;
    use vcc_trust::keys::PrivateKey;

    use super::{Recorder, prior};

    /// A key pair written under `dir` (as `vcc key generate` writes it).
    fn key_pair(dir: &std::path::Path, name: &str) -> (std::path::PathBuf, PrivateKey) {
        let key = PrivateKey::generate().unwrap();
        key.write(&dir.join(name)).unwrap();
        (dir.join(format!("{name}.key")), key)
    }

    /// An accepted report with `reuse_key`, judged outside any repository.
    fn report(reuse_key: &str) -> vcc_report::Report {
        let mut r = fixture::accepted();
        r.runtime.reuse_key = Some(reuse_key.into());
        r.run.commit = None;
        r
    }

    #[test]
    fn a_verdict_is_reused_only_under_a_checkpoint_the_key_signed() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ledger.jsonl");
        let (key_file, key) = key_pair(dir.path(), "verifier");
        let recorder = Recorder::new(Some(&log), Some(&key_file)).unwrap().unwrap();
        let mut judged = report("inputs-1");
        recorder.check(Kind::Check, &mut judged);
        assert_eq!(
            judged.verdict,
            vcc_report::Verdict::Accepted,
            "{}",
            judged.reason
        );

        let prior = prior(&log, Some(&key.public()), "inputs-1").unwrap();
        assert_eq!(prior.reused.seq, 0);
        assert_eq!(prior.criteria.len(), judged.criteria.len());
        // Other inputs, no key, another key: nothing is reused.
        let other = prior_err(&log, Some(&key.public()), "inputs-2");
        assert!(other.contains("no signed verdict"), "{other}");
        let keyless = prior_err(&log, None, "inputs-1");
        assert!(keyless.contains("no --ledger-key"), "{keyless}");
        let (_, stranger) = key_pair(dir.path(), "stranger");
        let forged = prior_err(&log, Some(&stranger.public()), "inputs-1");
        assert!(forged.contains("does not verify"), "{forged}");
    }

    /// Whoever can write the log can append a correctly chained entry; one
    /// no checkpoint of the key covers is never reused.
    #[test]
    fn an_entry_appended_without_the_key_is_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ledger.jsonl");
        let (key_file, key) = key_pair(dir.path(), "verifier");
        let signed = Recorder::new(Some(&log), Some(&key_file)).unwrap().unwrap();
        signed.check(Kind::Check, &mut report("inputs-1"));
        // vcc refuses to append to a signed log without the key, so the
        // forger writes the line itself: the first entry under another
        // reuse key, chained to the log's root as `vcc ledger verify`
        // prints it.
        let (lines, v, _) =
            vcc_ledger::verify::read_and_verify(&vcc_ledger::Ledger::new(&log), None, None)
                .unwrap();
        let mut forged: serde_json::Value = serde_json::from_slice(&lines.lines[0]).unwrap();
        forged["seq"] = v.entries.into();
        forged["prev_root"] = v.root.into();
        forged["reuse_key"] = "inputs-forged".into();
        let mut text = std::fs::read_to_string(&log).unwrap();
        text.push_str(&format!("{forged}\n"));
        std::fs::write(&log, text).unwrap();
        let chained =
            vcc_ledger::verify::read_and_verify(&vcc_ledger::Ledger::new(&log), None, None)
                .unwrap()
                .1;
        assert_eq!((chained.entries, chained.problem.is_none()), (2, true));

        // The chain holds, but no checkpoint of the key covers seq 1: the
        // log does not verify, and nothing in it is reused, the forged
        // entry least of all.
        let why = prior_err(&log, Some(&key.public()), "inputs-forged");
        assert!(
            why.contains("seq 1 is covered by no checkpoint the key signed"),
            "{why}"
        );
        let signed_too = prior_err(&log, Some(&key.public()), "inputs-1");
        assert!(signed_too.contains("nothing is reused"), "{signed_too}");
    }

    /// A verdict with an `error` row was not a judgement of the inputs:
    /// it is computed again.
    #[test]
    fn a_verdict_with_an_error_row_is_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("ledger.jsonl");
        let (key_file, key) = key_pair(dir.path(), "verifier");
        let recorder = Recorder::new(Some(&log), Some(&key_file)).unwrap().unwrap();
        let mut withheld = fixture::withheld();
        withheld.runtime.reuse_key = Some("inputs-1".into());
        withheld.run.commit = None;
        assert!(
            withheld
                .criteria
                .iter()
                .any(|c| c.status == vcc_report::Status::Error)
        );
        recorder.check(Kind::Check, &mut withheld);
        let why = prior_err(&log, Some(&key.public()), "inputs-1");
        assert!(why.contains("no signed verdict"), "{why}");
    }

    fn prior_err(
        log: &std::path::Path,
        key: Option<&vcc_trust::keys::PublicKey>,
        reuse_key: &str,
    ) -> String {
        match prior(log, key, reuse_key) {
            Ok(p) => panic!("reused seq {}", p.reused.seq),
            Err(why) => why,
        }
    }
}
