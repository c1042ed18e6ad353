//! Golden files: every fixed report of `vcc_report::fixture` in every
//! format, compared byte for byte with `tests/golden/NAME.EXT`. A change to
//! a renderer shows as a diff of these files, read in review; the external
//! readers (JUnit and SARIF validators, GitLab, browsers) stay in e2e.
//!
//! `VCC_BLESS=1 cargo test -p vcc-formats --test golden` writes the files
//! instead of comparing. The plain asserts below check what a user sees,
//! so a broken output blessed without reading still fails.
//!
//! Nothing is normalised: the fixtures name a fixed run id, start time and
//! vcc version (`0.0.0-fixture`, not the crate's), and no writer adds a
//! clock, a host name or its own version.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use vcc_formats::{Format, Options, github, render_with};
use vcc_report::fixture;
use vcc_report::{Report, Status};

const REGENERATE: &str = "VCC_BLESS=1 cargo test -p vcc-formats --test golden";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Every output, by its golden file's name.
fn outputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, reports) in fixture::all() {
        // Every format of the one table, named by its metadata:
        // `rejected.junit.xml`, `rejected.gitlab.json`.
        for format in Format::ALL {
            let text = render_with(format, &reports, Options::default());
            out.push((
                format!("{name}.{}.{}", format.name(), format.extension()),
                text,
            ));
        }
        out.push((format!("{name}.github.txt"), github::annotations(&reports)));
    }
    let passes = Options { sarif_passes: true };
    out.push((
        "rejected.sarif-passes.sarif".into(),
        render_with(Format::Sarif, &[fixture::rejected()], passes),
    ));
    out
}

/// Where `golden` and `actual` first differ, for the failure message.
fn first_difference(golden: &str, actual: &str) -> String {
    let (mut g, mut a) = (golden.lines(), actual.lines());
    for n in 1.. {
        match (g.next(), a.next()) {
            (Some(x), Some(y)) if x == y => {}
            (None, None) => break,
            (x, y) => {
                let show = |l: Option<&str>| l.map_or("(end of file)".into(), |l| format!("{l:?}"));
                return format!(
                    "first difference at line {n}:\n    golden: {}\n    actual: {}",
                    show(x),
                    show(y)
                );
            }
        }
    }
    "the lines are the same; the line endings or the final newline differ".into()
}

#[test]
fn every_output_matches_its_golden_file() {
    let dir = golden_dir();
    let outputs = outputs();
    if std::env::var_os("VCC_BLESS").is_some() {
        fs::create_dir_all(&dir).expect("create tests/golden");
        for (file, text) in &outputs {
            fs::write(dir.join(file), text).expect("write a golden file");
        }
    }
    let mut failures = Vec::new();
    for (file, text) in &outputs {
        let path = dir.join(file);
        match fs::read_to_string(&path) {
            Ok(golden) if golden == *text => {}
            Ok(golden) => failures.push(format!(
                "{}: the output differs from the golden file; {}",
                path.display(),
                first_difference(&golden, text)
            )),
            Err(e) => failures.push(format!("{}: cannot be read: {e}", path.display())),
        }
    }
    // A golden file no output has (a fixture or format renamed) is stale.
    for entry in fs::read_dir(&dir).expect("read tests/golden").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !outputs.iter().any(|(file, _)| *file == name) {
            failures.push(format!(
                "{}: no fixture renders to this file any more: delete it",
                entry.path().display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the change is intended, regenerate with `{REGENERATE}` and read the diff of tests/golden/ before committing.",
        failures.join("\n\n")
    );
}

#[test]
fn rendering_twice_gives_the_same_bytes() {
    assert_eq!(outputs(), outputs());
}

#[test]
fn the_fixtures_cover_every_verdict_status_and_severity() {
    use vcc_contract::Severity;
    use vcc_report::Verdict;
    let reports: Vec<Report> = fixture::all().into_iter().flat_map(|(_, r)| r).collect();
    let verdicts = [
        Verdict::Accepted,
        Verdict::Rejected,
        Verdict::Withheld,
        Verdict::Invalid,
        Verdict::Advisory,
    ];
    for v in verdicts {
        assert!(reports.iter().any(|r| r.verdict == v), "no {v:?} fixture");
    }
    let rows = || reports.iter().flat_map(|r| &r.criteria);
    for s in [Status::Pass, Status::Fail, Status::Skip, Status::Error] {
        assert!(rows().any(|c| c.status == s), "no {s:?} row");
    }
    for s in [Severity::Must, Severity::Should, Severity::May] {
        assert!(rows().any(|c| c.severity == s), "no {s:?} row");
    }
    assert!(fixture::invalid().problems.iter().any(|p| p.is_error()));
    assert!(fixture::two_contracts().len() > 1);
}

fn render(format: Format, reports: &[Report]) -> String {
    render_with(format, reports, Options::default())
}

/// The value of attribute `name` in the first tag that starts with `tag`.
fn attribute<'a>(xml: &'a str, tag: &str, name: &str) -> Option<&'a str> {
    let start = xml.find(tag)?;
    let end = start + xml[start..].find('>')?;
    let key = format!(" {name}=\"");
    let at = start + xml[start..end].find(&key)? + key.len();
    Some(&xml[at..at + xml[at..].find('"')?])
}

fn statuses(r: &Report, s: Status) -> usize {
    r.criteria.iter().filter(|c| c.status == s).count()
}

#[test]
fn junit_counts_what_failed_and_shows_every_criterion() {
    let r = fixture::rejected();
    let xml = render(Format::Junit, std::slice::from_ref(&r));
    let suite = "<testsuite name=\"release\"";
    for (name, status) in [
        ("failures", Status::Fail),
        ("errors", Status::Error),
        ("skipped", Status::Skip),
    ] {
        let n = statuses(&r, status).to_string();
        assert_eq!(attribute(&xml, suite, name), Some(n.as_str()), "{name}");
    }
    assert_eq!(
        attribute(&xml, suite, "tests"),
        Some(r.criteria.len().to_string().as_str())
    );
    for c in &r.criteria {
        assert!(
            xml.contains(&format!("<testcase name=\"{}\"", c.id)),
            "{}",
            c.id
        );
    }
    // The finding text is escaped, never markup.
    assert!(!xml.contains("<script") && xml.contains("&lt;script&gt;"));
    // A contract that could not be evaluated is one visible error.
    let xml = render(Format::Junit, &[fixture::invalid()]);
    assert!(xml.contains("<testcase name=\"integrity\""));
    assert_eq!(attribute(&xml, "<testsuite ", "errors"), Some("1"));
}

fn sarif(reports: &[Report], options: Options) -> Value {
    let text = render_with(Format::Sarif, reports, options);
    serde_json::from_str(&text).expect("the SARIF output is JSON")
}

#[test]
fn sarif_is_2_1_0_with_a_result_per_finding_placed_in_or_outside_the_root() {
    let r = fixture::rejected();
    let log = sarif(std::slice::from_ref(&r), Options::default());
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().expect("results");
    // Every row that did not pass has results; no row that passed has one.
    for c in &r.criteria {
        let has = results.iter().any(|x| x["ruleId"] == c.id.as_str());
        assert_eq!(has, c.status != Status::Pass, "{}", c.id);
    }
    let uris: Vec<(&str, Option<&str>)> = results
        .iter()
        .filter_map(|x| {
            let artifact = &x["locations"][0]["physicalLocation"]["artifactLocation"];
            Some((artifact["uri"].as_str()?, artifact["uriBaseId"].as_str()))
        })
        .collect();
    assert!(uris.contains(&("docs/guide.md", Some("ROOT"))), "{uris:?}");
    assert!(uris.contains(&("file:///etc/passwd", None)), "{uris:?}");
    assert!(!uris.iter().any(|(u, _)| u.contains("work/deliverables")));
    // With --sarif-passes, the rows that passed are `pass` results too.
    let log = sarif(std::slice::from_ref(&r), Options { sarif_passes: true });
    let results = log["runs"][0]["results"].as_array().expect("results");
    let passes = results.iter().filter(|x| x["kind"] == "pass").count();
    assert_eq!(passes, statuses(&r, Status::Pass));
    // Several contracts: a run each.
    let log = sarif(&fixture::two_contracts(), Options::default());
    assert_eq!(log["runs"].as_array().map(Vec::len), Some(2));
}

#[test]
fn markdown_has_a_row_per_criterion_and_no_markup_from_findings() {
    for (name, reports) in fixture::all() {
        let md = render(Format::Markdown, &reports);
        for r in &reports {
            let head = format!(
                "## vcc: {} — {}",
                vcc_formats::contract_name(r),
                vcc_formats::verdict_word(r.verdict)
            );
            assert!(md.contains(&head), "{name}: {head}");
            for c in &r.criteria {
                assert!(md.contains(&format!("| `{}`", c.id)), "{name}: {}", c.id);
            }
        }
        assert!(!md.contains("<script"), "{name}");
    }
    let md = render(Format::Markdown, &[fixture::rejected()]);
    assert!(md.contains("&lt;script&gt;") && md.contains("`/etc/passwd:1`"));
    assert!(md.contains("`docs/guide.md:3:1`"));
}

#[test]
fn gitlab_issues_have_unique_fingerprints_and_paths_in_the_checkout() {
    let text = render(Format::Gitlab, &fixture::two_contracts());
    let issues: Vec<Value> = serde_json::from_str(&text).expect("GitLab output is JSON");
    assert_eq!(issues.len(), 2);
    assert_eq!(issues[1]["location"]["path"], "../api/vcc.yaml");
    let r = fixture::rejected();
    let text = render(Format::Gitlab, std::slice::from_ref(&r));
    let issues: Vec<Value> = serde_json::from_str(&text).expect("GitLab output is JSON");
    let not_passed = r.criteria.iter().filter(|c| c.status != Status::Pass);
    let expected: usize = not_passed.map(|c| c.findings.len().max(1)).sum();
    assert_eq!(issues.len(), expected);
    let mut fingerprints: Vec<&str> = issues
        .iter()
        .filter_map(|i| i["fingerprint"].as_str())
        .collect();
    fingerprints.sort_unstable();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), issues.len());
    for i in &issues {
        let path = i["location"]["path"].as_str().expect("a path");
        assert!(!path.starts_with('/') && !path.starts_with("etc"), "{path}");
    }
}

#[test]
fn html_escapes_finding_text_and_shows_every_criterion() {
    for (name, reports) in fixture::all() {
        let html = render(Format::Html, &reports);
        assert!(!html.to_lowercase().contains("<script"), "{name}");
        for c in reports.iter().flat_map(|r| &r.criteria) {
            let row = format!("<tr data-criterion=\"{}\" data-status=", c.id);
            assert!(html.contains(&row), "{name}: {}", c.id);
        }
    }
    let html = render(Format::Html, &[fixture::rejected()]);
    assert!(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
    assert!(html.contains("href=\"file:///work/deliverables/docs/guide.md#L3\""));
    assert!(html.contains("href=\"file:///etc/passwd#L1\""));
}

#[test]
fn github_annotations_are_one_line_each_and_never_place_outside_files() {
    let r = fixture::rejected();
    let text = github::annotations(std::slice::from_ref(&r));
    let lines: Vec<&str> = text.lines().collect();
    let not_passed = r.criteria.iter().filter(|c| c.status != Status::Pass);
    let expected: usize = not_passed.map(|c| c.findings.len().max(1)).sum();
    assert_eq!(lines.len(), expected, "{text}");
    assert!(lines.iter().all(|l| l.starts_with("::")), "{text}");
    assert!(text.contains("file=docs/guide.md,line=3,col=1,"));
    assert!(!text.contains("passwd,") && text.contains("at /etc/passwd:1, outside"));
    // The finding's newline is escaped, not a second command.
    assert!(text.contains("</script> 'quoted'%0Asecond line"));
    let errors = lines.iter().filter(|l| l.starts_with("::error ")).count();
    assert_eq!(errors, 5, "{text}");
}

#[test]
fn json_is_the_record_with_paths_as_the_validators_said() {
    let r = fixture::rejected();
    let text = render(Format::Json, std::slice::from_ref(&r));
    let back: Report = serde_json::from_str(&text).expect("the JSON report reads back");
    assert_eq!(back.verdict, r.verdict);
    assert_eq!(back.criteria.len(), r.criteria.len());
    assert!(text.contains("\"/work/deliverables/docs/guide.md\""));
    let two: Vec<Report> =
        serde_json::from_str(&render(Format::Json, &fixture::two_contracts())).expect("an array");
    assert_eq!(two.len(), 2);
}
