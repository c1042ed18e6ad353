//! The verdict log from the command line: `--ledger FILE` (or
//! `$VCC_LEDGER`) on `check`, `converge`, the hook and MCP appends one
//! entry per verdict, signed checkpoints with `--ledger-key`; `vcc ledger
//! verify|show|stats|prove|verify-proof|repair` read it.
//!
//! A verdict that was asked to be logged and could not be is not a
//! verdict: the run becomes `invalid`, as with a report that cannot be
//! written.

use std::path::{Path, PathBuf};

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

    /// Whether the log's file lies under `root`.
    fn inside(&self, root: &Path) -> bool {
        let folder = match self.ledger.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        canon(&folder).starts_with(canon(root))
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

/// The verdict an intact ledger holds for `key`: the latest entry that was
/// computed (not itself reused) with that reuse key and no `error` row.
/// A broken ledger reuses nothing (and says so).
pub fn prior(path: &Path, key: &str) -> Option<vcc_report::PriorVerdict> {
    let ledger = Ledger::new(path);
    match vcc_ledger::verify(&ledger, None) {
        Ok((v, _)) if v.intact() => {}
        Ok((v, _)) => {
            if let Some(p) = v.problem {
                eprintln!(
                    "vcc: the ledger {} is not intact ({} at seq {}): nothing is reused, the verdict is computed",
                    path.display(),
                    p.kind.as_str(),
                    p.seq
                );
            }
            return None;
        }
        Err(_) => return None,
    }
    let lines = ledger.read().ok()?;
    lines.lines.iter().rev().find_map(|line| {
        let e: Entry = serde_json::from_slice(line).ok()?;
        let usable = e.reuse_key.as_deref() == Some(key)
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
        LedgerCommand::Verify { file, key, format } => verify(file, key.as_deref(), *format),
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
        LedgerCommand::VerifyProof { receipt, key } => verify_proof(receipt, key),
        LedgerCommand::Repair { file } => repair(file),
    }
}

fn public_key(path: &Path) -> Result<PublicKey, i32> {
    PublicKey::read(path).map_err(|r| {
        eprintln!("vcc ledger: --key: {}", r.message);
        exit::INVALID
    })
}

fn verify(file: &Path, key: Option<&Path>, format: Format) -> i32 {
    let key = match key.map(public_key).transpose() {
        Ok(k) => k,
        Err(code) => return code,
    };
    let (v, _) = match vcc_ledger::verify(&Ledger::new(file), key.as_ref()) {
        Ok(v) => v,
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
            let signed = match (&key, v.checkpoints) {
                (_, 0) => "no checkpoints".to_string(),
                (Some(_), n) => format!(
                    "{} of {n} checkpoint(s) verified with the key",
                    v.checkpoints_verified
                ),
                (None, n) => format!("{n} checkpoint(s), signatures not checked (give --key)"),
            };
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
                    "{}: line {}: not a ledger entry: {e}",
                    file.display(),
                    i + 1
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
                for (level, c) in [("check", &g.checks), ("loop", &g.loops)] {
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

fn verify_proof(receipt: &Path, key: &Path) -> i32 {
    let key = match public_key(key) {
        Ok(k) => k,
        Err(code) => return code,
    };
    let bytes = match crate::attach::read_capped(receipt, vcc_ledger::receipt::MAX_RECEIPT as u64) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("vcc ledger verify-proof: {}: {e}", receipt.display());
            return exit::INVALID;
        }
    };
    match vcc_ledger::receipt::verify_receipt(&bytes, &key) {
        Ok(cp) => {
            eprintln!(
                "{}: the entry is in {} at size {}, signed by the key",
                receipt.display(),
                cp.origin,
                cp.size
            );
            exit::ACCEPTED
        }
        Err(why) => {
            eprintln!("{}: NOT proven: {why}", receipt.display());
            exit::NOT_ACCEPTED
        }
    }
}

fn repair(file: &Path) -> i32 {
    match Ledger::new(file).repair() {
        Ok(0) => {
            eprintln!("{}: nothing to repair (no torn last line)", file.display());
            exit::ACCEPTED
        }
        Ok(n) => {
            eprintln!(
                "{}: removed a torn last line of {n} bytes (a write cut off); the entries before it are untouched",
                file.display()
            );
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
