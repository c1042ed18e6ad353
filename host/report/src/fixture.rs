//! Fixed reports for tests of what reads reports (the renderers of
//! `vcc-formats`, with their golden files): every verdict, status and
//! severity, findings inside and outside the deliverable root, and text a
//! renderer must escape. Nothing in them comes from the clock, the machine
//! or chance, so a renderer's output for them is the same on every run.
//!
//! Compiled only with the `fixture` feature.

use vcc_contract::{Code, Level, Problem, Severity};

use crate::{
    CacheStats, ContractInfo, CriterionReport, DeliverablesInfo, EvidenceRef, FileRead, Finding,
    Reason, Report, RunInfo, RuntimeInfo, SCHEMA_VERSION, Status, TargetReport, ValidatorReport,
    law, verdict_reason,
};

/// The deliverable root every fixture was judged in (canonical).
pub const ROOT: &str = "/work/deliverables";

/// The vcc version every fixture names: fixed, so no output changes with
/// the crate's version.
pub const VCC_VERSION: &str = "0.0.0-fixture";

/// When every fixture's run started.
pub const STARTED_AT: &str = "2026-01-02T03:04:05.678Z";

/// A text with everything XML, HTML and Markdown would interpret: tags, an
/// entity, quotes, a table pipe, backticks and a newline.
pub const TRICKY: &str =
    "expected `a | b` & got <script>alert(\"x\")</script> 'quoted'\nsecond line *not* [a link](x)";

/// Every fixture, by the name its golden files take.
pub fn all() -> Vec<(&'static str, Vec<Report>)> {
    vec![
        ("accepted", vec![accepted()]),
        ("rejected", vec![rejected()]),
        ("withheld", vec![withheld()]),
        ("invalid", vec![invalid()]),
        ("advisory", vec![advisory()]),
        ("two-contracts", two_contracts()),
    ]
}

/// Accepted: every MUST passed; a SHOULD failed and a MAY skipped, which
/// never change the verdict; a MUST with evidence.
pub fn accepted() -> Report {
    report(
        "release",
        false,
        vec![
            criterion(
                "compiles",
                Severity::Must,
                Status::Pass,
                "the build succeeded",
            )
            .at_line(7),
            criterion(
                "tests-pass",
                Severity::Must,
                Status::Pass,
                "42 tests passed",
            )
            .with_evidence("test-report.xml")
            .at_line(11),
            criterion(
                "style",
                Severity::Should,
                Status::Fail,
                "1 line is too long",
            )
            .with_findings(vec![finding(
                "line is 132 characters (at most 100)",
                Some("src/main.rs"),
                Some(40),
                Some(101),
                Some("line-length"),
            )])
            .at_line(15),
            criterion(
                "extras",
                Severity::May,
                Status::Skip,
                "no examples folder to check",
            )
            .at_line(19),
        ],
    )
}

/// Rejected: MUST failures with findings (relative, absolute under the
/// root, outside the root, text to escape) and a missing deliverable;
/// every status and severity; a passing MUST with evidence.
pub fn rejected() -> Report {
    let mut missing = criterion(
        "api-documented",
        Severity::Must,
        Status::Fail,
        "deliverable `api-docs` matched no file",
    )
    .at_line(16);
    missing.reason = Reason::MissingDeliverable;
    missing.targets = vec![TargetReport {
        id: "api-docs".into(),
        files: 0,
    }];
    let mut timed_out = criterion(
        "style",
        Severity::Should,
        Status::Error,
        "the validator ran out of time (10s)",
    )
    .at_line(28);
    timed_out.reason = Reason::Timeout;
    report(
        "release",
        false,
        vec![
            criterion(
                "readme-exists",
                Severity::Must,
                Status::Pass,
                "README.md exists",
            )
            .at_line(8),
            criterion(
                "lint-clean",
                Severity::Must,
                Status::Fail,
                "4 findings in 4 files",
            )
            .with_description("The linter reports nothing at error level.")
            .with_findings(vec![
                finding(
                    "unused variable `x`",
                    Some("src/lib.rs"),
                    Some(12),
                    Some(5),
                    Some("unused-variable"),
                ),
                // Absolute under the root: shown relative to it.
                finding(
                    "heading level skipped",
                    Some("/work/deliverables/docs/guide.md"),
                    Some(3),
                    Some(1),
                    Some("MD001"),
                ),
                // Outside the root: shown as outside, never as `etc/passwd`.
                finding(
                    "reads credentials outside the tree",
                    Some("/etc/passwd"),
                    Some(1),
                    None,
                    None,
                ),
                finding(TRICKY, Some("src/a&b <c>.rs"), Some(7), None, Some("x|y")),
            ])
            .at_line(12),
            missing,
            criterion(
                "tests-pass",
                Severity::Must,
                Status::Pass,
                "all 17 tests passed",
            )
            .with_evidence("test-report.xml")
            .at_line(20),
            criterion(
                "changelog-updated",
                Severity::Should,
                Status::Fail,
                "CHANGELOG.md has no entry for 2.0 | \"unreleased\" & <next>",
            )
            .with_findings(vec![finding(
                "no `## 2.0` heading",
                Some("CHANGELOG.md"),
                None,
                None,
                None,
            )])
            .at_line(24),
            timed_out,
            criterion(
                "spelling",
                Severity::May,
                Status::Skip,
                "no prose files to check",
            )
            .at_line(32),
            criterion("links", Severity::May, Status::Fail, "3 links are broken")
                .with_findings(vec![finding(
                    "3 of 40 links answered 404",
                    None,
                    None,
                    None,
                    None,
                )])
                .at_line(36),
        ],
    )
}

/// Withheld: no MUST failed, but one errored (a trap, with the evidence
/// it stands for) and one was not evaluated (skip); a SHOULD failed.
pub fn withheld() -> Report {
    let mut trapped = criterion(
        "tests-pass",
        Severity::Must,
        Status::Error,
        "the validator trapped: unreachable executed",
    )
    .with_evidence("test-report.xml")
    .at_line(10);
    trapped.reason = Reason::Trap;
    let mut not_evaluated = criterion(
        "coverage",
        Severity::Must,
        Status::Skip,
        "not evaluated: vcc cannot judge this criterion",
    )
    .at_line(14);
    not_evaluated.reason = Reason::NotEvaluated;
    report(
        "release",
        false,
        vec![
            criterion(
                "compiles",
                Severity::Must,
                Status::Pass,
                "the build succeeded",
            )
            .at_line(6),
            trapped,
            not_evaluated,
            criterion(
                "docs",
                Severity::Should,
                Status::Fail,
                "README.md has no title",
            )
            .with_findings(vec![finding(
                "the first line is not a heading",
                Some("README.md"),
                Some(1),
                Some(1),
                None,
            )])
            .at_line(18),
        ],
    )
}

/// Invalid: the contract could not be evaluated; no criterion ran, its
/// integrity errors are what a renderer shows (a warning is not).
pub fn invalid() -> Report {
    let problem = |code: Code, level: Level, message: &str, line: Option<usize>| Problem {
        code,
        level,
        message: message.into(),
        file: "vcc.yaml".into(),
        field: None,
        line,
        column: line.map(|_| 3),
        help: None,
    };
    let mut r = report("release", false, Vec::new());
    r.verdict = law::decide(false, []);
    r.reason = "the contract has 2 integrity error(s); no validator was run".into();
    r.deliverables = None;
    r.contract.id = None;
    r.problems = vec![
        problem(
            Code::UnknownValidator,
            Level::Error,
            "criterion `lint` uses validator `std/<nope>` & no such validator exists",
            Some(9),
        ),
        problem(
            Code::NoMust,
            Level::Error,
            "the contract has no MUST criterion",
            None,
        ),
        problem(
            Code::UnusedValidator,
            Level::Warning,
            "validator `spell` is bound but no criterion uses it",
            Some(4),
        ),
    ];
    r
}

/// Advisory: the contract reports and is never accepted, even with every
/// MUST passed.
pub fn advisory() -> Report {
    report(
        "style-guide",
        true,
        vec![
            criterion("readable", Severity::Must, Status::Pass, "reading ease 62").at_line(5),
            criterion(
                "short-sentences",
                Severity::Should,
                Status::Fail,
                "2 sentences over 40 words",
            )
            .with_findings(vec![finding(
                "sentence of 52 words",
                Some("docs/intro.md"),
                Some(14),
                Some(1),
                None,
            )])
            .at_line(9),
            criterion("tone", Severity::May, Status::Pass, "no exclamation marks").at_line(13),
        ],
    )
}

/// Two contracts in one run: an accepted one whose contract lies under
/// the root, and a rejected one whose contract lies outside it (a row
/// without findings is placed at that contract).
pub fn two_contracts() -> Vec<Report> {
    let mut docs = report(
        "docs",
        false,
        vec![
            criterion(
                "readme-exists",
                Severity::Must,
                Status::Pass,
                "README.md exists",
            )
            .at_line(6),
        ],
    );
    docs.contract.path = "contracts/docs.yaml".into();
    docs.contract.absolute_path = Some(format!("{ROOT}/contracts/docs.yaml"));
    let mut api = report(
        "api",
        false,
        vec![
            criterion(
                "openapi-valid",
                Severity::Must,
                Status::Fail,
                "openapi.yaml is not valid",
            )
            .with_findings(vec![finding(
                "`paths./users.get.responses` is required",
                Some("/work/deliverables/api/openapi.yaml"),
                Some(21),
                Some(7),
                Some("oas3-schema"),
            )])
            .at_line(8),
            criterion(
                "versioned",
                Severity::Should,
                Status::Pass,
                "info.version is 1.4.0",
            )
            .at_line(12),
            criterion(
                "examples",
                Severity::May,
                Status::Skip,
                "no examples in openapi.yaml",
            )
            .at_line(15),
        ],
    );
    api.contract.path = "../api/vcc.yaml".into();
    api.contract.absolute_path = Some("/work/api/vcc.yaml".into());
    vec![docs, api]
}

/// `blake3:<hex>` of `seed`: a digest that looks real and never changes.
fn digest(seed: &str) -> String {
    format!("blake3:{}", blake3::hash(seed.as_bytes()).to_hex())
}

/// A report of contract `id` (at `vcc.yaml` under the root) with its
/// verdict and reason decided from `criteria`, as the host decides them.
fn report(id: &str, advisory: bool, criteria: Vec<CriterionReport>) -> Report {
    let verdict = law::decide(advisory, criteria.iter().map(|c| (c.severity, c.status)));
    let reason = verdict_reason(verdict, &criteria, id);
    let run_id = blake3::hash(format!("run of {id}").as_bytes()).to_hex()[..32].to_string();
    Report {
        schema_version: SCHEMA_VERSION,
        verdict,
        reason,
        contract: ContractInfo {
            path: "vcc.yaml".into(),
            absolute_path: Some(format!("{ROOT}/vcc.yaml")),
            id: Some(id.into()),
            title: Some(format!("The {id} contract")),
            digest: Some(digest(&format!("contract {id}"))),
            format: Some("vcc: 1".into()),
            advisory,
            bases: Vec::new(),
            files: Vec::new(),
            sources: None,
            policy: None,
        },
        deliverables: Some(DeliverablesInfo {
            root: ".".into(),
            root_absolute: ROOT.into(),
            root_digest: digest("root"),
            files: 12,
            bytes: 34_567,
            unreadable: Vec::new(),
            changed: Vec::new(),
            excluded: Default::default(),
            attached: Vec::new(),
            subjects: Vec::new(),
        }),
        criteria,
        problems: Vec::new(),
        partial: Vec::new(),
        gate: None,
        run: RunInfo {
            id: run_id,
            started_at: STARTED_AT.into(),
            commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
        },
        reused: None,
        not_reused: None,
        ledger: None,
        judging: None,
        partition: None,
        merged: None,
        runtime: RuntimeInfo {
            vcc_version: VCC_VERSION.into(),
            wasmtime_version: "0.0.0-fixture".into(),
            host_digest: None,
            cache: CacheStats::default(),
            duration_ms: 1_234,
            reuse_key: None,
        },
    }
}

/// A criterion the validator `std/ID` judged, without findings.
fn criterion(id: &str, severity: Severity, status: Status, summary: &str) -> CriterionReport {
    CriterionReport {
        id: id.into(),
        severity,
        status,
        reason: Reason::Validator,
        summary: summary.into(),
        description: None,
        targets: Vec::new(),
        findings: Vec::new(),
        evidence: Vec::new(),
        files_read: vec![FileRead {
            path: "README.md".into(),
            digest: digest("README.md"),
        }],
        judge_calls: Vec::new(),
        validator: ValidatorReport {
            name: id.into(),
            component: format!("std/{id}"),
            digest: Some(digest(&format!("validator {id}"))),
            wit_version: Some("1.0.0".into()),
            describes_as: None,
            version: None,
            bundle: None,
        },
        origin: None,
        suspect_inputs: Vec::new(),
        on_fail: None,
        produced_artifact: None,
        line: None,
        duration_ms: 25,
    }
}

fn finding(
    message: &str,
    path: Option<&str>,
    line: Option<u32>,
    column: Option<u32>,
    rule: Option<&str>,
) -> Finding {
    Finding {
        message: message.into(),
        path: path.map(str::to_string),
        line,
        column,
        rule: rule.map(str::to_string),
    }
}

/// Builders for the fixtures' rows.
trait Row {
    fn at_line(self, line: u32) -> Self;
    fn with_findings(self, findings: Vec<Finding>) -> Self;
    fn with_description(self, text: &str) -> Self;
    /// The evidence the row stands for, and the item the validator stored.
    fn with_evidence(self, artifact: &str) -> Self;
}

impl Row for CriterionReport {
    fn at_line(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    fn with_findings(mut self, findings: Vec<Finding>) -> Self {
        self.findings = findings;
        self
    }

    fn with_description(mut self, text: &str) -> Self {
        self.description = Some(text.into());
        self
    }

    fn with_evidence(mut self, artifact: &str) -> Self {
        self.produced_artifact = Some(artifact.into());
        self.evidence = vec![EvidenceRef {
            name: artifact.into(),
            media_type: "application/xml".into(),
            size: 2_048,
            digest: digest(artifact),
            file: None,
        }];
        self
    }
}
