//! `vcc init`: a commented starter contract for a folder, built from what
//! is in it (README, CHANGELOG, tests, JSON files), with the schema line
//! editors use to complete fields.

use std::path::{Path, PathBuf};

use crate::args::{InitArgs, Template};
use crate::output::write_atomically;

/// Where the schema is written, relative to the folder (editors read it).
const SCHEMA: &str = ".vcc/vcc-contract.schema.json";

/// What the folder holds that a starter contract can be about.
struct Found {
    readme: Option<String>,
    changelog: Option<String>,
    tests: Option<String>,
    /// `src` (or a Go/Python package layout's source folder), when there.
    src: Option<String>,
    json: bool,
    /// The languages whose project files are at the top, in the order
    /// their test command is proposed.
    languages: Vec<Language>,
}

/// A language vcc init knows a project of: how its tests are run, and the
/// build output it writes into the folder.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Language {
    Python,
    JavaScript,
    Go,
    Rust,
}

impl Language {
    const ALL: [Language; 4] = [
        Language::Python,
        Language::JavaScript,
        Language::Go,
        Language::Rust,
    ];

    fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::Go => "Go",
            Language::Rust => "Rust",
        }
    }

    /// The files that say a folder is a project of this language.
    fn markers(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["pyproject.toml", "setup.cfg", "setup.py"],
            Language::JavaScript => &["package.json"],
            Language::Go => &["go.mod"],
            Language::Rust => &["Cargo.toml"],
        }
    }

    fn test_command(self) -> &'static str {
        match self {
            Language::Python => "python -m pytest",
            Language::JavaScript => "npm test",
            Language::Go => "go test ./...",
            Language::Rust => "cargo test",
        }
    }

    /// What its tools write into the folder: never a deliverable.
    fn build_output(self) -> &'static [&'static str] {
        match self {
            Language::Python => &[
                "__pycache__/",
                "*.pyc",
                ".pytest_cache/",
                ".venv/",
                ".tox/",
                "build/",
                "dist/",
                "*.egg-info/",
            ],
            Language::JavaScript => &["node_modules/", "dist/", "coverage/", ".next/"],
            Language::Go => &["bin/"],
            Language::Rust => &["target/"],
        }
    }
}

impl Found {
    fn scan(dir: &Path) -> Found {
        let first = |names: &[&str]| {
            names
                .iter()
                .find(|n| dir.join(n).is_file())
                .map(|n| n.to_string())
        };
        let json = std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                name.ends_with(".json")
                    && !name.ends_with("-lock.json")
                    && e.file_type().is_ok_and(|t| t.is_file())
            })
        });
        Found {
            readme: first(&["README.md", "Readme.md", "readme.md"]),
            changelog: first(&["CHANGELOG.md", "CHANGES.md"]),
            tests: ["tests", "test"]
                .iter()
                .find(|n| dir.join(n).is_dir())
                .map(|n| n.to_string()),
            src: ["src", "lib", "pkg", "cmd"]
                .iter()
                .find(|n| dir.join(n).is_dir())
                .map(|n| n.to_string()),
            json,
            languages: Language::ALL
                .into_iter()
                .filter(|l| l.markers().iter().any(|m| dir.join(m).is_file()))
                .collect(),
        }
    }
}

pub fn run(cli: &crate::args::Cli, args: &InitArgs) -> i32 {
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let out = dir.join(&args.out);
    if out.exists() && !args.force {
        eprintln!(
            "vcc init: {} exists; keep it, or give --force to replace it",
            out.display()
        );
        return 2;
    }
    let found = Found::scan(&dir);
    if let Some(task) = &args.task {
        return draft_for_task(cli, args, task, &dir, &out, &found);
    }
    let name = std::fs::canonicalize(&dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().to_string()))
        .map(|n| id_of(&n))
        .unwrap_or_else(|| "work".into());
    let body = match args.template {
        Template::Software => software(&found),
        Template::Research => research(),
        Template::Agent => agent(),
    };
    let text = format!(
        "# yaml-language-server: $schema={SCHEMA}\n\
         # A Verifiable Completion Contract: what \"done\" means for this folder.\n\
         # `vcc lint {file}` checks the contract; `vcc check {file}` judges the folder.\n\
         # Every MUST must pass for the work to be accepted; SHOULD and MAY are reported.\n\
         vcc: 1\n\
         id: {name}-{template}\n\
         {body}",
        file = args.out.display(),
        template = args.template.name(),
    );
    let schema = serde_json::to_string_pretty(&vcc_contract::json_schema()).unwrap_or_default();
    if let Err(e) = write_atomically(&dir.join(SCHEMA), format!("{schema}\n").as_bytes()) {
        eprintln!("vcc init: {}: {e}", dir.join(SCHEMA).display());
        return 2;
    }
    if let Err(e) = write_atomically(&out, text.as_bytes()) {
        eprintln!("vcc init: {}: {e}", out.display());
        return 2;
    }
    eprintln!(
        "wrote {} ({} template) and {SCHEMA}; next: `vcc lint {}`, then `vcc check {}`",
        out.display(),
        args.template.name(),
        out.display(),
        out.display()
    );
    if args.template == Template::Software && !found.languages.is_empty() {
        let names: Vec<&str> = found.languages.iter().map(|l| l.name()).collect();
        eprintln!(
            "found a {} project: `exclude:` leaves out its build output, and the tests are recorded with `{}`",
            names.join(" and "),
            found.languages[0].test_command()
        );
    }
    0
}

/// `vcc init --task`: the draft, the schema beside it, and what it guessed.
fn draft_for_task(
    cli: &crate::args::Cli,
    args: &InitArgs,
    task: &str,
    dir: &Path,
    out: &Path,
    found: &Found,
) -> i32 {
    let (rules, rules_name) = match crate::authoring::task::load_rules(args.rules.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("vcc init: {e}");
            return 2;
        }
    };
    let project_files: Vec<String> = found
        .languages
        .iter()
        .flat_map(|l| l.markers())
        .filter(|m| dir.join(m).is_file())
        .map(|m| m.to_string())
        .collect();
    let now = vcc_report::now_rfc3339();
    let exclude = excludes(found);
    // The files the task is about, and their digests now: the draft fails
    // until the work changed one of them.
    let implied = if args.files.is_empty() {
        crate::authoring::draft_files::implied(dir, task, &rules)
    } else {
        Vec::new()
    };
    let about = if args.files.is_empty() {
        &implied
    } else {
        &args.files
    };
    // The schema first: a glob that matches it then lists it as it is.
    let schema = serde_json::to_string_pretty(&vcc_contract::json_schema()).unwrap_or_default();
    if let Err(e) = write_atomically(&dir.join(SCHEMA), format!("{schema}\n").as_bytes()) {
        eprintln!("vcc init: {}: {e}", dir.join(SCHEMA).display());
        return 2;
    }
    let (digests, matched) = crate::authoring::draft_files::digests(dir, about);
    let ask = crate::authoring::task::Ask {
        task,
        files: &args.files,
        rules_name: &rules_name,
        class: args.class.map(Into::into),
        found: &project_files,
        exclude: &exclude,
        now: &now,
        implied: &implied,
        digests: &digests,
        too_many: if digests.is_empty() { matched } else { 0 },
    };
    let draft = match crate::authoring::task::draft(&ask, &rules) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vcc init: {e}");
            return 2;
        }
    };
    let text = format!("# yaml-language-server: $schema={SCHEMA}\n{}", draft.text);
    if let Err(e) = write_atomically(out, text.as_bytes()) {
        eprintln!("vcc init: {}: {e}", out.display());
        return 2;
    }
    eprintln!(
        "drafted {} for the task: {}{}",
        out.display(),
        draft.class.as_str(),
        if draft.activities.is_empty() {
            String::new()
        } else {
            format!(" (checks: {})", draft.activities.join(", "))
        }
    );
    for g in &draft.guessed {
        eprintln!("  guessed: {g}");
    }
    // Checked once as written: a draft that already passes checks nothing
    // the task changes, and would let the work be accepted undone.
    if draft.class != vcc_contract::TaskClass::Advisory {
        let refuse = |why: &str| {
            if args.allow_passing {
                eprintln!("note: {why} (kept: --allow-passing)");
                0
            } else {
                let _ = std::fs::remove_file(out);
                eprintln!(
                    "vcc init: {why}, so it was not kept. Name the files the task changes (--files GLOB), give --rules with checks for them, or --allow-passing to keep it"
                );
                1
            }
        };
        match passes_already(cli, out) {
            Ok(Before::Fails) => {}
            Ok(Before::Passes) => {
                let code = refuse("this draft already passes: it checks nothing the task changes");
                if code != 0 {
                    return code;
                }
            }
            // The contract itself (or another file vcc writes) matched a
            // glob: "a new file" would count as the work.
            Ok(Before::ChangedPasses) => {
                let code = refuse(
                    "this draft's CHANGED criterion already passes before any work: a glob of the task's files also matches a file the work does not change (the contract itself?)",
                );
                if code != 0 {
                    return code;
                }
            }
            Err(why) => {
                eprintln!(
                    "vcc init: the draft {} could not be checked: {why}",
                    out.display()
                );
                return 2;
            }
        }
    }
    eprintln!(
        "next: review it, `vcc lint {}`, and hand `vcc explain {}` to the one who does the work",
        out.display(),
        out.display()
    );
    0
}

/// What a draft says of the folder as it is, before any work.
enum Before {
    Fails,
    Passes,
    /// Not accepted, but its CHANGED criterion already passes.
    ChangedPasses,
}

/// The draft at `path`, checked on the folder as it is now.
fn passes_already(cli: &crate::args::Cli, path: &Path) -> Result<Before, String> {
    let runtime = crate::settings::runtime(cli)
        .map_err(|_| "the runtime could not start (see above)".to_string())?;
    let report = crate::checking::evaluate::evaluate(
        &runtime,
        path,
        None,
        &crate::args::BindingArgs::default(),
        vcc_runtime::CheckOptions::default(),
    )
    .report;
    let changed = report
        .criteria
        .iter()
        .any(|c| c.id == "CHANGED" && c.status == vcc_report::Status::Pass);
    match report.verdict {
        vcc_report::Verdict::Invalid => Err(report.reason),
        vcc_report::Verdict::Accepted => Ok(Before::Passes),
        _ if changed => Ok(Before::ChangedPasses),
        _ => Ok(Before::Fails),
    }
}

/// A contract id from a folder name: letters, digits, `.`, `_`, `-`.
fn id_of(name: &str) -> String {
    let id: String = name
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    match id.chars().next() {
        Some(c) if c.is_ascii_alphanumeric() => id,
        _ => format!("work{id}"),
    }
}

/// `exclude:` for the build output of the languages found, with a comment
/// naming them.
fn excludes(found: &Found) -> String {
    if found.languages.is_empty() {
        return String::new();
    }
    let mut patterns: Vec<&str> = Vec::new();
    for l in &found.languages {
        for p in l.build_output() {
            if !patterns.contains(p) {
                patterns.push(p);
            }
        }
    }
    let quoted: Vec<String> = patterns
        .iter()
        .map(|p| {
            if p.starts_with('*') {
                format!("\"{p}\"")
            } else {
                p.to_string()
            }
        })
        .collect();
    let names: Vec<&str> = found.languages.iter().map(|l| l.name()).collect();
    format!(
        "exclude: [{}]   # build output of {}: never a deliverable\n",
        quoted.join(", "),
        names.join(", ")
    )
}

/// How the tests are run and recorded, for the language found first.
fn test_recipe(found: &Found) -> String {
    let command = found
        .languages
        .first()
        .map_or("make test", |l| l.test_command());
    let mut inputs: Vec<&str> = found.src.iter().map(String::as_str).collect();
    inputs.extend(found.tests.as_deref());
    let exclude = if found.languages.contains(&Language::Python) {
        " --exclude __pycache__/"
    } else {
        ""
    };
    format!(
        "`vcc record --inputs {}{exclude} --out out/tests.json -- {command}`",
        if inputs.is_empty() {
            ".".to_string()
        } else {
            inputs.join(" ")
        }
    )
}

fn software(found: &Found) -> String {
    let readme = found.readme.as_deref().unwrap_or("README.md");
    let mut deliverables = format!(
        "  - {{ id: readme, path: {readme} }}{}\n",
        if found.readme.is_some() {
            ""
        } else {
            "   # not there yet"
        }
    );
    let mut validators = String::from(
        "  exists: { component: std/file-exists }\n  sections: { component: std/markdown-sections }\n",
    );
    let mut criteria = String::from(
        "  - id: README\n    severity: must\n    validator: exists\n    targets: [readme]\n    description: The README is there and not empty.\n    on_fail: { prompt: \"Write the README.\" }\n  - id: README-USAGE\n    severity: should\n    validator: sections\n    targets: [readme]\n    params: { required: [Usage] }   # the headings a reader looks for\n",
    );
    if let Some(changelog) = &found.changelog {
        deliverables.push_str(&format!("  - {{ id: changelog, path: {changelog} }}\n"));
        validators.push_str("  text: { component: std/text-match }\n");
        criteria.push_str("  - id: CHANGELOG-DONE\n    severity: must\n    validator: text\n    targets: [changelog]\n    params: { must_not_match: ['\\bTODO\\b', '\\bTBD\\b'] }\n");
    }
    if let Some(tests) = &found.tests {
        deliverables.push_str(&format!("  - {{ id: tests, path: {tests} }}\n"));
        criteria.push_str(&format!("  - id: TESTS\n    severity: must\n    validator: exists\n    targets: [tests]\n    description: The tests are there. To require that they ran and passed, record them\n      ({}) and judge the\n      record with std/exit-record.\n", test_recipe(found)));
    }
    if found.json {
        deliverables.push_str("  - { id: data, path: \"*.json\" }\n");
        validators.push_str("  schema: { component: std/json-schema }\n");
        criteria.push_str("  - id: JSON-PARSES\n    severity: must\n    validator: schema\n    targets: [data]\n    params: { schema: true }   # any JSON; put a real schema here\n");
    }
    let exclude = excludes(found);
    format!(
        "title: The work in this folder is done\n\
         {exclude}\
         deliverables:                   # files, folders or globs under the root (this file's folder)\n\
         {deliverables}\
         validators:                     # `vcc validator list --params` shows what each one takes\n\
         {validators}\
         criteria:\n\
         {criteria}"
    )
}

fn research() -> String {
    "title: The research report is complete and sourced\n\
     deliverables:\n\
     \x20 - { id: report, path: report.md }\n\
     validators:\n\
     \x20 sections: { component: std/markdown-sections }\n\
     \x20 citations: { component: std/citation-coverage }\n\
     \x20 text: { component: std/text-match }\n\
     criteria:\n\
     \x20 - id: STRUCTURE\n\
     \x20   severity: must\n\
     \x20   validator: sections\n\
     \x20   targets: [report]\n\
     \x20   params: { required: [Summary, Findings, Sources], ordered: true }\n\
     \x20   on_fail: { prompt: \"Give the report a Summary, Findings and Sources section, in that order.\" }\n\
     \x20 - id: CITED\n\
     \x20   severity: must\n\
     \x20   validator: citations\n\
     \x20   targets: [report]\n\
     \x20   params: { min_coverage: 0.8 }   # share of claims with a citation (or an UNSOURCED label)\n\
     \x20   description: Claims cite sources that exist in the Sources section.\n\
     \x20 - id: NO-PLACEHOLDERS\n\
     \x20   severity: should\n\
     \x20   validator: text\n\
     \x20   targets: [report]\n\
     \x20   params: { must_not_match: ['\\bTODO\\b', '\\[citation needed\\]'] }\n"
        .to_string()
}

fn agent() -> String {
    "title: The agent did the task, and really ran the tests\n\
     # Run the agent under `vcc hook claude-code --contract vcc.yaml` (see the book,\n\
     # \"Agents and loops\", docs/src/guide/agents.md): the hook attaches the session transcript at .vcc/transcript.jsonl.\n\
     deliverables:\n\
     \x20 - { id: report, path: REPORT.md }\n\
     \x20 - { id: transcript, path: .vcc/transcript.jsonl }\n\
     validators:\n\
     \x20 exists: { component: std/file-exists }\n\
     \x20 calls: { component: std/tool-calls }\n\
     criteria:\n\
     \x20 - id: REPORT\n\
     \x20   severity: must\n\
     \x20   validator: exists\n\
     \x20   targets: [report]\n\
     \x20   on_fail: { prompt: \"Write REPORT.md: what you changed and how you checked it.\" }\n\
     \x20 - id: RAN-TESTS\n\
     \x20   severity: must\n\
     \x20   validator: calls\n\
     \x20   targets: [transcript]\n\
     \x20   params: { required: [{ name: Bash, args: { command: { matches: 'test' } } }] }   # your test command\n\
     \x20   on_fail: { prompt: \"Run the tests.\" }\n\
     budget: { iterations: 8, stagnation: 2 }\n"
        .to_string()
}
