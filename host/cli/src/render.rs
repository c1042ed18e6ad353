//! Human output: what a person reads on a terminal (always on stderr).
//!
//! Every string that came from a validator, a file name or a contract is
//! escaped: control characters and bidi overrides never reach the terminal.

use std::fmt::Write as _;
use std::io::IsTerminal;

use vcc_contract::{Level, Problem, Severity};
pub use vcc_report::text::{clean, clean_block};
use vcc_report::{CriterionReport, Report, Status, Verdict};

use crate::args::Color;

/// At most this many findings per criterion are printed (JSON has them all).
const FINDINGS_SHOWN: usize = 20;

#[derive(Clone, Copy)]
pub struct Style {
    color: bool,
}

#[derive(Clone, Copy)]
enum Paint {
    Green,
    Red,
    Yellow,
    Magenta,
    Bold,
    Dim,
}

impl Style {
    pub fn new(choice: Color) -> Style {
        let color = match choice {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stderr().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |t| t != "dumb")
            }
        };
        Style { color }
    }

    fn paint(&self, paint: Paint, text: &str) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match paint {
            Paint::Green => "32",
            Paint::Red => "31",
            Paint::Yellow => "33",
            Paint::Magenta => "35",
            Paint::Bold => "1",
            Paint::Dim => "2",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

pub fn problem(p: &Problem, style: &Style) -> String {
    let mut at = clean(&p.file).into_owned();
    if let Some(line) = p.line {
        let _ = write!(at, ":{line}");
        if let Some(col) = p.column {
            let _ = write!(at, ":{col}");
        }
    }
    let level = match p.level {
        Level::Error => style.paint(Paint::Red, "error"),
        Level::Warning => style.paint(Paint::Yellow, "warning"),
        Level::Note => style.paint(Paint::Dim, "note"),
    };
    let field = p
        .field
        .as_deref()
        .map(|f| format!(" {}:", clean(f)))
        .unwrap_or_default();
    let mut out = format!("{at}: {level}[{}]{field} {}\n", p.code, clean(&p.message));
    if let Some(help) = &p.help {
        let _ = writeln!(
            out,
            "  {} {}",
            style.paint(Paint::Dim, "help:"),
            clean(help)
        );
    }
    out
}

fn status_label(status: Status, style: &Style) -> String {
    let (text, paint) = match status {
        Status::Pass => ("PASS ", Paint::Green),
        Status::Fail => ("FAIL ", Paint::Red),
        Status::Skip => ("SKIP ", Paint::Yellow),
        Status::Error => ("ERROR", Paint::Magenta),
    };
    style.paint(paint, text)
}

fn severity_label(s: Severity) -> &'static str {
    match s {
        Severity::Must => "MUST  ",
        Severity::Should => "SHOULD",
        Severity::May => "MAY   ",
    }
}

/// The human report, headed by the command that made it (`vcc check`,
/// `vcc merge`): a merge refused before it merged is still the merge's.
pub fn report(r: &Report, command: &str, style: &Style) -> String {
    let mut out = String::new();
    let format = match r.contract.format.as_deref() {
        Some(f) if f != "vcc: 1" => format!(", {}", clean(f)),
        _ => String::new(),
    };
    // A contract that could not be read has no id: name the file alone.
    let name = match r.contract.id.as_deref() {
        Some(id) => format!("{} ({}{format})", clean(id), clean(&r.contract.path)),
        None => clean(&r.contract.path).into_owned(),
    };
    let _ = writeln!(out, "{} {name}", style.paint(Paint::Bold, command));
    if let Some(m) = &r.merged {
        let bound = match m.binding {
            vcc_report::partition::Binding::Contract => "the contract and the root as read now",
            vcc_report::partition::Binding::Digests => "the digests given",
            vcc_report::partition::Binding::Unbound => "nothing (--unbound)",
        };
        let _ = writeln!(
            out,
            "merged: {} of {} shard(s), bound to {bound}{}",
            m.shards.len(),
            m.total,
            if m.unsigned {
                "; UNSIGNED (--allow-unsigned)"
            } else {
                ""
            }
        );
    }
    for p in &r.problems {
        out.push_str(&problem(p, style));
    }
    if let Some(d) = &r.deliverables {
        let _ = writeln!(
            out,
            "deliverables: {} file(s), {} in {} (root {})",
            d.files,
            bytes(d.bytes),
            clean(&d.root),
            short(&d.root_digest)
        );
        if !d.unreadable.is_empty() {
            let shown: Vec<String> = d
                .unreadable
                .iter()
                .take(5)
                .map(|u| format!("{} ({})", clean(&u.path), u.kind))
                .collect();
            let more = d.unreadable.len().saturating_sub(shown.len());
            let _ = writeln!(
                out,
                "  not hashed: {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                }
            );
        }
        if d.excluded.entries > 0 {
            let shown: Vec<String> = d
                .excluded
                .first
                .iter()
                .take(5)
                .map(|e| {
                    let slash = if e.folder { "/" } else { "" };
                    format!("{}{slash}", clean(&e.path))
                })
                .collect();
            let more = (d.excluded.entries as usize).saturating_sub(shown.len());
            let _ = writeln!(
                out,
                "  excluded: {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                }
            );
        }
    }
    for c in &r.criteria {
        criterion(&mut out, c, style);
    }
    if let Some(reused) = &r.reused {
        let _ = writeln!(
            out,
            "{}",
            style.paint(
                Paint::Yellow,
                &format!(
                    "reused from ledger {} seq {} (run {}): nothing changed since, and no validator was run",
                    clean(&reused.ledger),
                    reused.seq,
                    clean(&reused.run_id)
                )
            )
        );
    }
    if let Some(why) = &r.not_reused {
        let _ = writeln!(
            out,
            "{}",
            style.paint(Paint::Yellow, &format!("not reused: {}", clean(why)))
        );
    }
    if let Some(l) = &r.ledger {
        let _ = writeln!(out, "ledger: {} seq {}", clean(&l.file), l.seq);
    }
    if let Some(j) = &r.judging {
        let _ = writeln!(out, "judging: {}", clean(&j.line()));
    }
    let cache = &r.runtime.cache;
    let _ = writeln!(
        out,
        "{}",
        style.paint(
            Paint::Dim,
            &format!(
                "components: {} built in, {} compiled, {} from cache{}; {} ms",
                cache.embedded,
                cache.misses,
                cache.hits,
                if cache.winch > 0 {
                    format!(" ({} on Winch code: a first run)", cache.winch)
                } else {
                    String::new()
                },
                r.runtime.duration_ms
            )
        )
    );
    let (label, paint) = match r.verdict {
        Verdict::Accepted => ("ACCEPTED", Paint::Green),
        Verdict::Rejected => ("REJECTED", Paint::Red),
        Verdict::Withheld => ("WITHHELD", Paint::Yellow),
        Verdict::Invalid => ("INVALID", Paint::Red),
        Verdict::Advisory => ("ADVISORY", Paint::Yellow),
    };
    let _ = writeln!(
        out,
        "verdict: {} — {}",
        style.paint(paint, label),
        clean(&r.reason)
    );
    out
}

fn criterion(out: &mut String, c: &CriterionReport, style: &Style) {
    // VCC v1: the evidence id the row stands for, where an auditor looks.
    let evidence = c
        .produced_artifact
        .as_deref()
        .map(|e| format!(" (evidence {})", clean(e)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  {} {} {}{evidence}  {}  [{}]",
        status_label(c.status, style),
        severity_label(c.severity),
        clean(&c.id),
        clean(&c.summary),
        clean(&c.validator.component)
    );
    if !c.suspect_inputs.is_empty() {
        let _ = writeln!(
            out,
            "      {} upstream deliverables did not pass their MUST criteria: {}",
            style.paint(Paint::Yellow, "suspect inputs:"),
            clean(&c.suspect_inputs.join(", "))
        );
    }
    for f in c.findings.iter().take(FINDINGS_SHOWN) {
        let mut at = String::new();
        if let Some(path) = &f.path {
            at = clean(path).into_owned();
            if let Some(line) = f.line {
                let _ = write!(at, ":{line}");
                if let Some(col) = f.column {
                    let _ = write!(at, ":{col}");
                }
            }
            at.push_str(": ");
        }
        let rule = f
            .rule
            .as_deref()
            .map(|r| format!(" [{}]", clean(r)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "      - {at}{}{rule}",
            clean_block(&f.message, "        ")
        );
    }
    if c.findings.len() > FINDINGS_SHOWN {
        let _ = writeln!(
            out,
            "      … and {} more finding(s) (see the JSON report)",
            c.findings.len() - FINDINGS_SHOWN
        );
    }
    if !c.judge_calls.is_empty() {
        let _ = writeln!(
            out,
            "      {} {}",
            style.paint(Paint::Dim, "judges:"),
            vcc_report::judge::calls_line(&c.judge_calls)
        );
        for call in c.judge_calls.iter().filter(|c| c.error.is_some()) {
            let _ = writeln!(
                out,
                "      - {} (judge `{}`): {}",
                clean(&call.id),
                clean(&call.judge),
                clean_block(call.error.as_deref().unwrap_or_default(), "        ")
            );
        }
    }
    // What the criterion asks, and what its author says to do: the first
    // things a person fixing a failure wants to read.
    if c.status != Status::Pass {
        if let Some(d) = &c.description {
            let _ = writeln!(
                out,
                "      {} {}",
                style.paint(Paint::Dim, "criterion:"),
                clean_block(d, "        ")
            );
        }
        if let Some(prompt) = c.on_fail.as_ref().and_then(|o| o.prompt.as_deref()) {
            let _ = writeln!(
                out,
                "      {} {}",
                style.paint(Paint::Dim, "to fix:"),
                clean_block(prompt, "        ")
            );
        }
    }
}

fn short(digest: &str) -> String {
    digest.chars().take(7 + 12).collect::<String>() + "…"
}

pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// A validator's parameters as a table (name, type, required, default,
/// description), from its parameter schema; lines are indented by
/// `indent`.
pub fn params_table(schema: &serde_json::Value, indent: &str) -> String {
    use serde_json::Value;
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return format!("{indent}(no parameters)\n");
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows: Vec<[String; 5]> = props
        .iter()
        .map(|(name, p)| {
            [
                name.clone(),
                type_of(p),
                if required.contains(&name.as_str()) {
                    "yes"
                } else {
                    "no"
                }
                .to_string(),
                p.get("default").map_or("-".to_string(), Value::to_string),
                p.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .replace('\n', " "),
            ]
        })
        .collect();
    let header = ["NAME", "TYPE", "REQUIRED", "DEFAULT", "DESCRIPTION"].map(str::to_string);
    let width = |i: usize| {
        rows.iter()
            .chain(std::iter::once(&header))
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2), width(3)];
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(
            out,
            "{indent}{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
            clean(&row[0]),
            clean(&row[1]),
            row[2],
            clean(&row[3]),
            clean(&row[4]),
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        );
    }
    out
}

/// A schema's type in words: `string`, `integer|null`, `one of: a, b`,
/// `array of string`, or the types of its alternatives.
fn type_of(schema: &serde_json::Value) -> String {
    use serde_json::Value;
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        return format!("one of: {}", names.join(", "));
    }
    let base = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => {
            let alternatives = ["oneOf", "anyOf"]
                .iter()
                .find_map(|k| schema.get(*k).and_then(Value::as_array));
            return match alternatives {
                Some(alts) => alts.iter().map(type_of).collect::<Vec<_>>().join("|"),
                None => "any".into(),
            };
        }
    };
    match (base.as_str(), schema.get("items")) {
        ("array", Some(items)) => format!("array of {}", type_of(items)),
        _ => base,
    }
}
