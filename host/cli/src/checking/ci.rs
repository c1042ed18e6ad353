//! What a CI system reads beyond the exit code. Under GitHub Actions
//! (`GITHUB_ACTIONS=true`): workflow-command annotations on stderr (the
//! runner reads them from either stream; stdout stays the report's), and
//! the Markdown summary appended to `$GITHUB_STEP_SUMMARY`.

use std::io::Write as _;

use vcc_report::Report;

/// Annotate and summarise for GitHub Actions, when running under it. A
/// summary that cannot be written is said, not fatal: the report files
/// and the exit code are what gates.
pub fn github(reports: &[Report]) {
    if std::env::var("GITHUB_ACTIONS").as_deref() != Ok("true") {
        return;
    }
    eprint!("{}", vcc_formats::github::annotations(reports));
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return;
    };
    let summary = vcc_formats::github::summary(reports);
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .and_then(|mut f| f.write_all(format!("{summary}\n").as_bytes()));
    if let Err(e) = appended {
        eprintln!(
            "vcc: warning: the job summary could not be appended to {}: {e}",
            std::path::Path::new(&path).display()
        );
    }
}
