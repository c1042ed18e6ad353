//! TAP (the Test Anything Protocol) read as Perl's TAP::Parser (the parser
//! behind `prove`) reads it, and never more leniently:
//!
//! - a test line is `ok` or `not ok` at the start of the line, followed by
//!   a space, a tab or the end of the line (`okay, …` is output, not a
//!   test); `ok,` or `not ok-` (a test to TAP::Parser, no test line to the
//!   spec) is refused;
//! - a directive is the first unescaped `#` followed by `SKIP` or `TODO`
//!   as a word (`\#` is a literal `#`);
//! - exactly one plan `1..N` (or `1..0 # SKIP …`), before the first test
//!   or after the last; every test number is its place in the stream; as
//!   many tests ran as the plan says — anything else is an error case;
//! - `TAP version 13` or `14` only on the first line; from 13 on, an
//!   indented `---` opens a YAML block that ends at `...` at the same
//!   indent, and a block that a line outside it interrupts, that never
//!   ends, or that TAP::Parser's YAMLish reader cannot read (an empty one,
//!   a line deeper than the block with no key above it: `tap/yamlish.rs`)
//!   is refused; `not ok … # SKIP` is a failure;
//! - indented lines are subtests or diagnostics, not top-level results
//!   (the parent's `ok N - subtest` line counts), except `Bail out!`,
//!   which ends the run at any depth, and an indented `not ok` (without
//!   `# TODO`): tap-parser fails the parent whatever its line says, so it
//!   is a failure;
//! - after `pragma +strict` (until `pragma -strict`), a line that is not
//!   TAP (no test, plan, comment, pragma or indented line) is an error, as
//!   tap-parser fails the run.
//!
//! TAP::Parser knows no version 14 and calls it an error; vcc reads it by
//! the TAP 14 spec (node-tap writes it), whose subtests are indented.

use super::{Case, TestResult};

mod yamlish;

/// Whether a text is a TAP stream (its first result or header line).
pub fn is_tap(text: &str) -> bool {
    text.lines()
        .map(str::trim_end)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| {
            l.starts_with("TAP version")
                || l.starts_with("1..")
                || l.starts_with("ok")
                || l.starts_with("not ok")
        })
}

/// A test line: `(passed, the rest after the keyword)`; `Err` when the
/// line begins like one but is not (`ok,` — TAP::Parser counts it).
fn test_line(l: &str) -> Option<Result<(bool, &str), ()>> {
    let (passed, rest) = if let Some(r) = l.strip_prefix("not ok") {
        (false, r)
    } else if let Some(r) = l.strip_prefix("ok") {
        (true, r)
    } else {
        return None;
    };
    match rest.chars().next() {
        None | Some(' ' | '\t') => Some(Ok((passed, rest))),
        // `okay`, `ok1`: a word goes on, so no test to anyone.
        Some(c) if c.is_alphanumeric() || c == '_' => None,
        Some(_) => Some(Err(())),
    }
}

/// `1..N`, or `1..0 # SKIP reason`; `None` for anything else.
fn plan_line(l: &str) -> Option<usize> {
    let rest = l.strip_prefix("1..")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let n: usize = rest[..digits].parse().ok()?;
    let tail = rest[digits..].trim();
    if tail.is_empty() {
        return Some(n);
    }
    let skip = tail.strip_prefix('#')?.trim_start();
    (n == 0
        && skip
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("skip")))
    .then_some(0)
}

/// The description and the directive (`SKIP …`/`TODO …`) of a test line,
/// split at the first unescaped `#` if a directive word follows it.
fn directive(desc: &str) -> (&str, Option<(bool, &str)>) {
    let bytes = desc.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'#' => {
                let after = desc[i + 1..].trim_start();
                let word = after.get(..4).unwrap_or("");
                let ends = after[word.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                if ends && word.eq_ignore_ascii_case("skip") {
                    return (&desc[..i], Some((true, after)));
                }
                if ends && word.eq_ignore_ascii_case("todo") {
                    return (&desc[..i], Some((false, after)));
                }
                return (desc, None);
            }
            _ => i += 1,
        }
    }
    (desc, None)
}

/// The state of a stream read so far.
#[derive(Default)]
struct Reader {
    out: Vec<Case>,
    tests: usize,
    /// The plan: its count, its line, and how many tests came before it.
    plan: Option<(usize, u32, usize)>,
    plans: usize,
    /// Whether a test came after the plan (so a plan at the end is late).
    tested_after_plan: bool,
    yaml: bool,
    /// The indent of the open YAML block.
    block: Option<String>,
    /// The open YAML block's lines, its indent removed, from `---` on.
    block_lines: Vec<String>,
    /// Whether `pragma +strict` is on: a non-TAP line fails the run.
    strict: bool,
}

impl Reader {
    fn error(&mut self, line: u32, name: &str, message: String) {
        self.out
            .push(case(line, name, TestResult::Errored(message)));
    }
}

pub fn cases(text: &str) -> Vec<Case> {
    let mut r = Reader::default();
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = (i + 1) as u32;
        last_line = line;
        if let Some(indent) = &r.block {
            let rest = raw.strip_prefix(indent.as_str());
            if let Some(end) = rest.filter(|t| t.trim_end() == "...") {
                let mut lines: Vec<&str> = r.block_lines.iter().map(String::as_str).collect();
                lines.push(end);
                if let Err(why) = yamlish::check(&lines) {
                    r.error(line, "(yaml)", format!("the YAML block that ends on line {line} is not one TAP::Parser can read ({why})"));
                    return r.out;
                }
                r.block = None;
                r.block_lines.clear();
                continue;
            }
            if let Some(t) = rest.filter(|t| !t.trim().is_empty()) {
                r.block_lines.push(t.to_string());
                continue;
            }
            r.error(
                line,
                "(yaml)",
                format!(
                    "line {line} interrupts the YAML block: TAP::Parser reads no test after it"
                ),
            );
            return r.out;
        }
        if raw.trim_start().starts_with("Bail out!") {
            let reason = raw.trim_start()["Bail out!".len()..].trim();
            r.out.push(case(
                line,
                "Bail out!",
                TestResult::Errored(reason.to_string()),
            ));
            return r.out;
        }
        if raw.starts_with(' ') || raw.starts_with('\t') {
            let body = raw.trim_start();
            // TAP::Parser opens a block at any indented `---…` (what
            // follows the dashes is an inline scalar).
            if r.yaml && body.starts_with("---") {
                r.block = Some(raw[..raw.len() - body.len()].to_string());
                r.block_lines = vec![body.to_string()];
                continue;
            }
            // A failing subtest fails its parent to tap-parser (the TAP 14
            // reference), whatever the parent's line says (red team 34:
            // `ok 1 - inner` over a `not ok`); TAP::Parser ignores it, so
            // the stricter reader is kept: it is a failure of its own.
            if let Some(Ok((false, rest))) = test_line(body.trim_end()) {
                let (desc, dir) = directive(rest);
                if !matches!(dir, Some((false, _))) {
                    let name = desc.trim().trim_start_matches(|c: char| c.is_ascii_digit());
                    let name = name.trim().trim_start_matches('-').trim();
                    r.out.push(case(
                        line,
                        &format!("subtest: {name}"),
                        TestResult::Failed(format!(
                            "a subtest on line {line} is not ok: the test above it fails to tap-parser"
                        )),
                    ));
                }
            }
            continue;
        }
        let l = raw.trim_end();
        if let Some(v) = l.strip_prefix("TAP version ") {
            match v.trim() {
                "13" | "14" if line == 1 => r.yaml = true,
                v => {
                    r.error(
                        line,
                        "(version)",
                        format!(
                            "`TAP version {v}` on line {line}: only 13 or 14, on the first line"
                        ),
                    );
                    return r.out;
                }
            }
            continue;
        }
        if let Some(n) = plan_line(l) {
            r.plans += 1;
            if r.plans > 1 {
                r.error(line, "(plan)", format!("a second plan on line {line}"));
                return r.out;
            }
            r.plan = Some((n, line, r.tests));
            continue;
        }
        // TAP 14 pragmas: `+strict` makes every non-TAP line an error
        // (tap-parser: "Non-TAP data encountered in strict mode").
        if let Some(p) = l.strip_prefix("pragma ") {
            match p.trim() {
                "+strict" => r.strict = true,
                "-strict" => r.strict = false,
                _ => {}
            }
            continue;
        }
        let (passed, rest) = match test_line(l) {
            None => {
                if r.strict && !l.trim().is_empty() && !l.starts_with('#') {
                    r.error(
                        line,
                        "(strict)",
                        format!(
                            "line {line} `{}` is not TAP under `pragma +strict`: tap-parser fails the run",
                            super::clip(l, 40)
                        ),
                    );
                }
                continue;
            }
            Some(Ok(t)) => t,
            Some(Err(())) => {
                r.error(line, "(line)", format!("line {line} `{}` is no TAP test line (`ok`/`not ok` then a space): TAP::Parser counts it, vcc does not guess", super::clip(l, 40)));
                continue;
            }
        };
        r.tests += 1;
        if r.plan.is_some() {
            r.tested_after_plan = true;
        }
        let body = rest.trim_start();
        let digits = body
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(body.len());
        let number = &body[..digits];
        if !number.is_empty() && number.parse::<usize>().ok() != Some(r.tests) {
            r.error(
                line,
                &format!("test {number}"),
                format!(
                    "test {number} out of sequence: it is test {} in the stream",
                    r.tests
                ),
            );
        }
        let (desc, dir) = directive(&body[digits..]);
        let name = desc.trim().trim_start_matches('-').trim();
        let name = if name.is_empty() {
            format!("test {}", r.tests)
        } else {
            name.to_string()
        };
        let outcome = match dir {
            // SKIP excuses no failure: `not ok # SKIP` fails to TAP::Parser.
            Some((true, d)) if !passed => TestResult::Failed(format!("not ok with {d}")),
            Some((_, d)) => TestResult::Skipped(d.to_string()),
            None if passed => TestResult::Passed,
            None => TestResult::Failed(String::new()),
        };
        r.out.push(case(line, &name, outcome));
    }
    if r.block.is_some() {
        r.error(
            last_line,
            "(yaml)",
            "a YAML block never ends (`...`)".into(),
        );
    }
    match r.plan {
        None => r.error(
            last_line,
            "(plan)",
            "the TAP stream has no plan `1..N`: it may have stopped early".into(),
        ),
        Some((_, at, before)) if before > 0 && r.tested_after_plan => r.error(
            at,
            "(plan)",
            format!("the plan on line {at} is neither before the first test nor after the last"),
        ),
        Some((n, _, _)) if r.tests != n => r.error(
            last_line,
            "(plan)",
            format!("the plan says 1..{n}, and {} test(s) ran", r.tests),
        ),
        _ => {}
    }
    r.out
}

fn case(line: u32, name: &str, outcome: TestResult) -> Case {
    Case {
        id: name.to_string(),
        name: name.to_string(),
        outcome,
        line,
    }
}

#[cfg(test)]
mod tests;
