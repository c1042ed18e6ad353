//! One self-contained HTML page (no script, no network: styles inline, a
//! chart drawn as inline SVG): the verdict, every criterion in a table,
//! the findings of those that did not pass linked to their files and
//! lines, the digests; for `vcc converge`, a chart of the MUST criteria
//! still failing after each run of the command. Every text from a
//! validator, a file or a contract is HTML-escaped.

use vcc_report::converge::ConvergeReport;
use vcc_report::{Report, Status, Verdict};

use crate::{at, contract_name, outside, reason_word, severity_word, status_word, verdict_word};

const FINDINGS_SHOWN: usize = 50;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1d1d1f}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}\
table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}\
th{background:#f3f3f3}.pass{color:#1a7f37}.fail{color:#cf222e}.skip{color:#9a6700}.error{color:#8250df}\
.verdict{font-weight:bold;padding:2px 8px;border-radius:4px}.v-accepted{background:#dafbe1}\
.v-rejected,.v-invalid{background:#ffebe9}.v-withheld,.v-advisory{background:#fff8c5}\
code{font-size:.92em}.meta{color:#57606a;font-size:.9em}ul.findings{margin:.3em 0 .3em 1.2em;padding:0}";

/// The page for the reports of one run; with `converge`, the loop's chart
/// and iterations first.
pub fn write(reports: &[Report], converge: Option<&ConvergeReport>) -> String {
    let title = match (converge, reports) {
        (Some(c), _) => format!("vcc converge — {}", c.termination.reason.as_str()),
        (None, [one]) => format!(
            "vcc check {} — {}",
            contract_name(one),
            verdict_word(one.verdict)
        ),
        (None, _) => format!("vcc check — {} contracts", reports.len()),
    };
    // Finding paths relative to the root, as the links join them to it.
    let reports = &crate::rooted(reports)[..];
    let mut body = format!("<h1>{}</h1>\n", esc(&title));
    if let Some(c) = converge {
        body.push_str(&loop_section(c));
    }
    for r in reports {
        body.push_str(&report_section(r));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
<title>{}</title><style>{STYLE}</style></head>\n<body>\n{body}</body></html>\n",
        esc(&title)
    )
}

fn report_section(r: &Report) -> String {
    let verdict = verdict_word(r.verdict);
    let class = match r.verdict {
        Verdict::Accepted => "v-accepted",
        Verdict::Rejected => "v-rejected",
        Verdict::Invalid => "v-invalid",
        Verdict::Withheld => "v-withheld",
        Verdict::Advisory => "v-advisory",
    };
    let mut out = format!(
        "<section class=\"report\" data-contract=\"{}\">\n<h2>{} <span class=\"verdict {class}\" id=\"verdict\">{verdict}</span></h2>\n<p>{}</p>\n",
        esc(contract_name(r)),
        esc(contract_name(r)),
        esc(&r.reason)
    );
    let root = r.deliverables.as_ref().map(|d| d.root_absolute.clone());
    if !r.criteria.is_empty() {
        out.push_str("<table class=\"criteria\"><thead><tr><th>Criterion</th><th>Severity</th><th>Status</th><th>Summary</th><th>Validator</th></tr></thead><tbody>\n");
        for c in &r.criteria {
            let status = status_word(c.status);
            let evidence = c
                .produced_artifact
                .as_deref()
                .map(|e| format!(" <small>evidence <code>{}</code></small>", esc(e)))
                .unwrap_or_default();
            out.push_str(&format!(
                "<tr data-criterion=\"{}\" data-status=\"{status}\"><td><code>{}</code>{evidence}</td><td>{}</td><td class=\"{status}\">{status} <small>({})</small></td><td>{}",
                esc(&c.id),
                esc(&c.id),
                severity_word(c.severity),
                reason_word(c.reason),
                esc(&c.summary)
            ));
            if c.status != Status::Pass && !c.findings.is_empty() {
                out.push_str("<ul class=\"findings\">");
                for f in c.findings.iter().take(FINDINGS_SHOWN) {
                    // Paths are relative to the root (`rooted`); one
                    // outside it is linked where it is and said to be
                    // outside, never joined to the root.
                    let place = match (at(f), f.path.as_deref(), root.as_deref()) {
                        (Some(label), Some(path), _) if path.starts_with('/') => format!(
                            "<a href=\"file://{}{}\"><code>{}</code></a> (outside the deliverable root): ",
                            esc(path),
                            f.line.map(|l| format!("#L{l}")).unwrap_or_default(),
                            esc(&label)
                        ),
                        (Some(label), Some(path), Some(root)) if !outside(path) => format!(
                            "<a href=\"file://{}/{}{}\"><code>{}</code></a>: ",
                            esc(root.trim_end_matches('/')),
                            esc(path),
                            f.line.map(|l| format!("#L{l}")).unwrap_or_default(),
                            esc(&label)
                        ),
                        (Some(label), _, _) => format!("<code>{}</code>: ", esc(&label)),
                        _ => String::new(),
                    };
                    out.push_str(&format!("<li>{place}{}</li>", esc(&f.message)));
                }
                if c.findings.len() > FINDINGS_SHOWN {
                    out.push_str(&format!(
                        "<li>… and {} more (see the JSON report)</li>",
                        c.findings.len() - FINDINGS_SHOWN
                    ));
                }
                out.push_str("</ul>");
            }
            if !c.judge_calls.is_empty() {
                out.push_str(&format!(
                    "<details class=\"judge\"><summary>{}</summary><ul class=\"findings\">",
                    esc(&vcc_report::judge::calls_line(&c.judge_calls))
                ));
                for call in &c.judge_calls {
                    let outcome = match (&call.answer, &call.error) {
                        (_, Some(e)) => format!("error: {e}"),
                        (Some(a), None) => a.to_string(),
                        (None, None) => String::new(),
                    };
                    out.push_str(&format!(
                        "<li data-call=\"{}\"><code>{}</code> judge <code>{}</code> ({}) sample {}, {}: {} <small>prompt <code>{}</code></small></li>",
                        esc(&call.id),
                        esc(&call.id),
                        esc(&call.judge),
                        esc(call.reported_model.as_deref().unwrap_or(&call.model)),
                        call.sample,
                        call.source.as_str(),
                        esc(&outcome),
                        esc(&call.prompt)
                    ));
                }
                out.push_str("</ul></details>");
            }
            out.push_str(&format!(
                "</td><td><code>{}</code></td></tr>\n",
                esc(&c.validator.component)
            ));
        }
        out.push_str("</tbody></table>\n");
    }
    let problems: Vec<_> = r.problems.iter().filter(|p| p.is_error()).collect();
    if !problems.is_empty() {
        out.push_str("<h3>Problems</h3><ul class=\"problems\">");
        for p in problems {
            out.push_str(&format!(
                "<li><code>{}</code> {}{}: {}</li>",
                p.code.as_str(),
                esc(&p.file),
                p.line.map(|l| format!(":{l}")).unwrap_or_default(),
                esc(&p.message)
            ));
        }
        out.push_str("</ul>\n");
    }
    let mut meta = vec![format!("run <code>{}</code>", esc(&r.run.id))];
    meta.push(format!("started {}", esc(&r.run.started_at)));
    if let Some(d) = &r.contract.digest {
        meta.push(format!("contract <code>{}</code>", esc(d)));
    }
    if let Some(d) = &r.deliverables {
        meta.push(format!(
            "root {} <code>{}</code> ({} files)",
            esc(&d.root_absolute),
            esc(&d.root_digest),
            d.files
        ));
    }
    if let Some(c) = &r.run.commit {
        meta.push(format!("commit <code>{}</code>", esc(c)));
    }
    if let Some(j) = &r.judging {
        meta.push(format!("judging: {}", esc(&j.line())));
    }
    meta.push(format!("vcc {}", esc(&r.runtime.vcc_version)));
    out.push_str(&format!(
        "<p class=\"meta\">{}</p>\n</section>\n",
        meta.join(" · ")
    ));
    out
}

/// The loop: why it stopped, and a bar per check of the MUST criteria that
/// had not passed.
fn loop_section(c: &ConvergeReport) -> String {
    let counts: Vec<usize> = c
        .iterations
        .iter()
        .filter_map(|i| i.check.as_ref().map(|k| k.failing.len()))
        .collect();
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    let (w, h, pad) = (40usize, 160usize, 24usize);
    let width = pad * 2 + w * counts.len().max(1);
    let mut svg = format!(
        "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" role=\"img\" aria-label=\"failing MUST criteria per check\">",
        h + pad * 2
    );
    svg.push_str(&format!(
        "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>",
        h + pad,
        width - pad,
        h + pad
    ));
    for (i, n) in counts.iter().enumerate() {
        let bar = h * n / max;
        let x = pad + i * w + 6;
        svg.push_str(&format!(
            "<rect class=\"bar\" data-check=\"{i}\" data-failing=\"{n}\" x=\"{x}\" y=\"{}\" width=\"{}\" height=\"{bar}\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{n}</text><text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">#{i}</text>",
            h + pad - bar,
            w - 12,
            if *n == 0 { "#1a7f37" } else { "#cf222e" },
            x + (w - 12) / 2,
            h + pad - bar - 3,
            x + (w - 12) / 2,
            h + pad + 14
        ));
    }
    svg.push_str("</svg>");
    format!(
        "<section class=\"loop\"><h2>Loop: {} <span class=\"verdict {}\">{}</span></h2><p>{}</p>\n<p>MUST criteria not passed after each check (check 0 is before the first run of the command):</p>\n{svg}\n<p class=\"meta\">{} run(s) of <code>{}</code></p>{}</section>\n",
        esc(c.termination.reason.as_str()),
        if c.accepted {
            "v-accepted"
        } else {
            "v-rejected"
        },
        if c.accepted {
            "ACCEPTED"
        } else {
            "STOPPED, NOT accepted"
        },
        esc(&c.termination.detail),
        c.metrics.remediation_iterations,
        esc(&c.command.join(" ")),
        delegation_table(c)
    )
}

/// The child loops started inside the command: what each was granted,
/// spent and returned, and how it ended.
fn delegation_table(c: &ConvergeReport) -> String {
    if c.delegations.is_empty() {
        return String::new();
    }
    let amount = |tokens: Option<u64>, cost: Option<f64>| -> String {
        let mut parts = Vec::new();
        if let Some(t) = tokens {
            parts.push(format!("{t} tokens"));
        }
        if let Some(x) = cost {
            parts.push(format!("cost {x}"));
        }
        if parts.is_empty() {
            "no limit".into()
        } else {
            parts.join(", ")
        }
    };
    let mut rows = String::new();
    for d in &c.delegations {
        let returned = d
            .returned
            .map_or_else(|| "—".to_string(), |r| amount(r.tokens, r.cost));
        rows.push_str(&format!(
            "<tr class=\"child\" data-child=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            d.id,
            d.id,
            esc(&d.contract),
            d.iteration,
            esc(&amount(d.granted.tokens, d.granted.cost)),
            esc(&amount(Some(d.spent.tokens), Some(d.spent.cost))),
            esc(&returned),
            esc(d.outcome.as_deref().unwrap_or(match d.state {
                vcc_report::delegation::ChildState::Lost => "lost (charged its whole grant)",
                _ => "running",
            })),
        ));
    }
    format!(
        "<h3>Delegated to child loops</h3>\n<table class=\"delegations\"><tr><th>#</th><th>contract</th><th>run</th><th>granted</th><th>spent</th><th>returned</th><th>outcome</th></tr>\n{rows}</table>\n"
    )
}

/// Escape for HTML text and attribute values; control characters are
/// dropped (they mean nothing on a page and can confuse a reader).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
