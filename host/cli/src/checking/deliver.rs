//! Where the reports of `vcc check` and `vcc merge` go: every report file
//! asked for, each written whole, then stdout (a machine format) or stderr
//! (for a person). A file that cannot be written makes the run invalid, so
//! what is printed never says accepted for a run whose record is missing.

use std::io;
use std::path::Path;

use vcc_formats::Format;
use vcc_report::law::exit;
use vcc_report::{Report, Verdict};
use vcc_trust::keys::PrivateKey;

use crate::args::{Print, ReportArgs};
use crate::output::{print_stdout, write_atomically};
use crate::render::{self, Style};

pub struct Delivery<'a> {
    /// How messages on stderr start: `vcc check`, `vcc merge`.
    pub command: &'static str,
    /// What is printed, every report file asked for, and what the
    /// formats are asked beyond the format (`--sarif-passes`).
    pub reports: &'a ReportArgs,
    pub allow_advisory: bool,
    /// `--partition --key`: the JSON report file is a signed shard.
    pub signer: Option<&'a PrivateKey>,
}

impl Delivery<'_> {
    /// Keep the reports where they were asked for, then print them; the
    /// worst exit code.
    pub fn finish(&self, mut reports: Vec<Report>, style: &Style) -> i32 {
        for file in &self.reports.files {
            let (path, format) = (&file.path, file.format);
            let text = match (self.signer, format, reports.first()) {
                (Some(key), Format::Json, Some(report)) => signed_shard(report, key),
                _ => vcc_formats::render_with(format, &reports, self.reports.options),
            };
            if let Err(err) = write_atomically(path, text.as_bytes()) {
                for r in &mut reports {
                    r.verdict = Verdict::Invalid;
                    r.reason = unwritable(path, &err);
                }
            }
        }
        crate::checking::ci::github(&reports);
        self.emit(reports, style)
    }

    /// Before a run: each report file says the run did not finish (one
    /// report per name, in the file's own format), so a crash, a kill or
    /// a refusal never leaves an earlier verdict behind. `Err`: one cannot
    /// be written (said in the format asked), the exit code.
    pub fn unfinished_first(&self, names: &[String], style: &Style) -> Result<(), i32> {
        let unfinished: Vec<Report> = names.iter().map(|n| Report::unfinished(n)).collect();
        for file in &self.reports.files {
            let path = &file.path;
            if let Err(err) = write_atomically(
                path,
                vcc_formats::render(file.format, &unfinished).as_bytes(),
            ) {
                // No run whose report cannot be kept: say so, in the format asked.
                let mut reports = unfinished;
                for r in &mut reports {
                    r.reason = unwritable(path, &err);
                }
                return Err(self.emit(reports, style));
            }
        }
        Ok(())
    }

    /// Print the reports as asked; the worst exit code.
    pub fn emit(&self, reports: Vec<Report>, style: &Style) -> i32 {
        for r in &reports {
            if r.verdict == Verdict::Invalid
                && r.reason.starts_with("the report could not be written")
                && self.reports.print != Print::Human
            {
                // stdout may be piped into a tool; say it where a person looks.
                eprintln!("{}: {}", self.command, r.reason);
            }
        }
        let code = reports
            .iter()
            .map(|r| r.exit_code(self.allow_advisory))
            .max()
            .unwrap_or(exit::INVALID);
        match self.reports.print.machine() {
            Some(format) => print_stdout(&vcc_formats::render_with(
                format,
                &reports,
                self.reports.options,
            )),
            None => {
                for r in &reports {
                    eprint!("{}", render::report(r, self.command, style));
                }
            }
        }
        code
    }
}

/// A shard report in a DSSE envelope signed by `key`: `vcc merge` checks
/// it against the trust policy's `attestations:` keys.
fn signed_shard(report: &Report, key: &PrivateKey) -> String {
    let payload = serde_json::to_vec(report).unwrap_or_default();
    let envelope =
        vcc_trust::dsse::Envelope::sign(vcc_report::partition::SHARD_PAYLOAD_TYPE, &payload, key);
    serde_json::to_string_pretty(&envelope).map_or_else(|_| String::new(), |t| t + "\n")
}

pub fn unwritable(path: &Path, err: &io::Error) -> String {
    format!(
        "the report could not be written to {}: {err}",
        path.display()
    )
}
