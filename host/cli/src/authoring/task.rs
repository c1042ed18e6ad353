//! `vcc init --task`: a draft contract from a task and the files it is
//! expected to touch, before the work is delegated (the yo-go PRD's
//! verification contract). The task is classified `verifiable`,
//! `advisory` or `skip` from its words and files; a rules file maps file
//! globs to activities (type checks, lint, tests, a critic), each of which
//! becomes a MUST criterion on the record `vcc record` writes when it runs.
//! The draft says what it guessed; a person reviews it before it binds.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use globset::{Glob, GlobMatcher};
use vcc_contract::TaskClass;

mod rules;

use rules::{Activity, Kind};
pub use rules::{Rules, is_common, load_rules};

const RECORDS: &str = ".vcc/records";

/// A draft lists at most this many digests (a task about more files than
/// this is not one whose change can be told file by file).
pub const MAX_DIGESTS: usize = 200;

/// What `vcc init --task` is asked.
#[derive(Clone, Copy)]
pub struct Ask<'a> {
    pub task: &'a str,
    pub files: &'a [String],
    /// `builtin`, or the rules file as given.
    pub rules_name: &'a str,
    pub class: Option<TaskClass>,
    /// Project files found in the folder (Cargo.toml, package.json, …),
    /// matched when no `--files` are given.
    pub found: &'a [String],
    /// `exclude:` lines for the folder's build output.
    pub exclude: &'a str,
    pub now: &'a str,
    /// Files the task implies when it names none with --files: those it
    /// names in its words, and for a docs task the docs that mention its
    /// subject ([`Rules::subject`]); found in the folder by `vcc init`.
    pub implied: &'a [String],
    /// The files the task is about as they are at drafting: path →
    /// `blake3:…` (those that exist).
    pub digests: &'a BTreeMap<String, String>,
    /// How many files matched when too many to list (`digests` is then
    /// empty): no CHANGED criterion can be drawn, and the draft says so.
    pub too_many: usize,
}

pub struct Draft {
    pub text: String,
    pub class: TaskClass,
    pub activities: Vec<String>,
    pub guessed: Vec<String>,
}

/// The draft contract for a task.
pub fn draft(ask: &Ask, rules: &Rules) -> Result<Draft, String> {
    let task = ask.task.trim();
    if task.is_empty() {
        return Err("--task: empty; say what the work is".into());
    }
    for f in ask.files {
        glob(f).map_err(|e| format!("--files: {e}"))?;
        if f.starts_with('/') || f.split('/').any(|p| p == "..") {
            return Err(format!(
                "--files {f}: a glob under the deliverable root, relative to it (no leading `/`, no `..`)"
            ));
        }
    }
    let mut guessed = Vec::new();
    // With no --files, the files the task names in its words, or for a
    // docs task the docs that mention its subject, found by `vcc init`.
    let files: Vec<String> = if ask.files.is_empty() && !ask.implied.is_empty() {
        guessed.push(format!(
            "no --files: the task implies {}",
            ask.implied.join(", ")
        ));
        ask.implied.to_vec()
    } else {
        ask.files.to_vec()
    };
    let ask = &Ask {
        files: &files,
        ..*ask
    };
    if ask.too_many > 0 {
        guessed.push(format!(
            "no CHANGED criterion: {} files match, more than {} — the draft cannot tell file by file whether the work changed them, so nothing fails until it does; name the files the task changes with --files",
            ask.too_many,
            MAX_DIGESTS
        ));
    }
    let docs: Vec<GlobMatcher> = rules.docs.iter().filter_map(|g| glob(g).ok()).collect();
    let is_doc = |f: &str| docs.iter().any(|d| d.is_match(f));
    let code: Vec<&String> = ask.files.iter().filter(|f| !is_doc(f)).collect();
    let said = |stems: &[String]| rules::said(task, stems);
    let class = match ask.class {
        Some(c) => {
            guessed.push(format!("classified {} (--class)", c.as_str()));
            c
        }
        None => {
            if let Some(w) = said(&rules.advisory) {
                guessed.push(format!(
                    "classified advisory: the task says `{w}` (give --class verifiable if it changes code that can be tested)"
                ));
                TaskClass::Advisory
            } else if !ask.files.is_empty() && code.is_empty() {
                guessed.push("classified skip: every file is documentation".into());
                TaskClass::Skip
            } else if let Some(w) = said(&rules.skip).filter(|_| code.is_empty()) {
                guessed.push(format!(
                    "classified skip: the task says `{w}` and names no source file"
                ));
                TaskClass::Skip
            } else {
                guessed.push(
                    "classified verifiable: the task names no advisory or docs-only work".into(),
                );
                TaskClass::Verifiable
            }
        }
    };
    // The activities the files call for; with no --files, the project's
    // own files found in the folder.
    let probe: Vec<String> = if ask.files.is_empty() {
        if class != TaskClass::Advisory {
            guessed.push(if ask.found.is_empty() {
                "no --files, and no project file here: nothing to match the rules against".into()
            } else {
                format!(
                    "no --files: the checks of the project found here ({})",
                    ask.found.join(", ")
                )
            });
        }
        ask.found.to_vec()
    } else {
        ask.files.to_vec()
    };
    let mut activities: Vec<String> = Vec::new();
    for m in &rules.matches {
        let hit = m
            .files
            .iter()
            .filter_map(|g| glob(g).ok())
            .any(|g| probe.iter().any(|f| g.is_match(f)));
        if hit {
            for a in &m.activities {
                if !activities.contains(a) {
                    activities.push(a.clone());
                }
            }
        }
    }
    for f in &code {
        let matched = rules.matches.iter().any(|m| {
            m.files
                .iter()
                .filter_map(|g| glob(g).ok())
                .any(|g| g.is_match(f.as_str()))
        });
        if !matched {
            guessed.push(format!(
                "`{f}` matched no rule: only its presence is checked"
            ));
        }
    }
    let activities: Vec<String> = match class {
        TaskClass::Advisory => Vec::new(),
        TaskClass::Skip => activities
            .into_iter()
            .filter(|a| rules.activities.get(a).is_some_and(|x| x.kind.is_form()))
            .collect(),
        TaskClass::Verifiable => activities,
    };
    if class == TaskClass::Verifiable && activities.is_empty() && ask.files.is_empty() {
        return Err(
            "a verifiable task with no --files, in a folder with no project file the rules know: nothing to check; give --files GLOB (the files the task will change), or --rules FILE with a `match:` for them".into(),
        );
    }
    let text = render(ask, rules, class, &activities, &guessed);
    Ok(Draft {
        text,
        class,
        activities,
        guessed,
    })
}

fn render(
    ask: &Ask,
    rules: &Rules,
    class: TaskClass,
    activities: &[String],
    guessed: &[String],
) -> String {
    let task = ask.task.trim();
    let title: String = task
        .lines()
        .next()
        .unwrap_or(task)
        .chars()
        .take(200)
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Drafted by `vcc init --task` ({}): review it before it binds anyone.\n\
         # What it guessed is under generated_from.guessed; `vcc lint` checks it,\n\
         # `vcc explain` shows it to the one who does the work.",
        class.as_str()
    );
    if class == TaskClass::Advisory {
        out.push_str(
            "# An advisory contract is never accepted: run it with `vcc check --ledger FILE`\n\
             # so its findings are logged for the person who reviews them.\n",
        );
    }
    let _ = writeln!(out, "vcc: 1\nid: {}\ntitle: {}", task_id(task), q(&title));
    if class == TaskClass::Advisory {
        out.push_str("advisory: true\n");
    }
    out.push_str("generated_from:\n");
    let _ = writeln!(out, "  task: {}", q(task));
    if !ask.files.is_empty() {
        let _ = writeln!(out, "  files: [{}]", list(ask.files));
    }
    let _ = writeln!(out, "  rules: {}", q(ask.rules_name));
    let _ = writeln!(out, "  class: {}", class.as_str());
    let _ = writeln!(out, "  at: {}", q(ask.now));
    if !guessed.is_empty() {
        out.push_str("  guessed:\n");
        for g in guessed {
            let _ = writeln!(out, "    - {}", q(g));
        }
    }
    if class != TaskClass::Advisory {
        out.push_str(ask.exclude);
    }
    // Deliverables: the files the task touches, and the records.
    let touched: Vec<String> = (1..=ask.files.len())
        .map(|i| format!("touched-{i}"))
        .collect();
    out.push_str("deliverables:\n");
    if class == TaskClass::Advisory {
        out.push_str("  - { id: findings, path: FINDINGS.md }   # what the work found\n");
    } else {
        for (id, f) in touched.iter().zip(ask.files) {
            let _ = writeln!(out, "  - {{ id: {id}, path: {} }}", q(f));
        }
    }
    let recorded: Vec<&String> = activities
        .iter()
        .filter(|a| {
            rules
                .activities
                .get(*a)
                .is_some_and(|x| x.kind != Kind::Critic)
        })
        .collect();
    for a in &recorded {
        let _ = writeln!(out, "  - {{ id: {a}-record, path: {RECORDS}/{a}.json }}");
    }
    let critics: Vec<(&String, &Activity)> = activities
        .iter()
        .filter_map(|a| rules.activities.get(a).map(|x| (a, x)))
        .filter(|(_, x)| x.kind == Kind::Critic)
        .collect();
    if !critics.is_empty() {
        out.push_str("judges:\n");
        for (a, x) in &critics {
            if let Some(j) = &x.judge {
                let _ = writeln!(
                    out,
                    "  {a}: {{ provider: {}, model: {} }}",
                    q(&j.provider),
                    q(&j.model)
                );
            }
        }
    }
    // Validators and criteria.
    let mut validators = String::new();
    let mut criteria = String::new();
    match class {
        TaskClass::Advisory => {
            validators.push_str("  exists: { component: std/file-exists }\n  sections: { component: std/markdown-sections }\n  text: { component: std/text-match }\n");
            criteria.push_str(
                "  - id: FINDINGS\n    severity: must\n    validator: exists\n    targets: [findings]\n    description: The findings are written down.\n    on_fail: { prompt: \"Write FINDINGS.md: the question, what you found, and what you recommend.\" }\n  - id: FINDINGS-SHAPE\n    severity: should\n    validator: sections\n    targets: [findings]\n    params: { required: [Question, Findings, Recommendations] }\n  - id: FINDINGS-DONE\n    severity: should\n    validator: text\n    targets: [findings]\n    params: { must_not_match: ['\\bTODO\\b', '\\bTBD\\b'] }\n",
            );
        }
        TaskClass::Skip | TaskClass::Verifiable => {
            if !touched.is_empty() {
                validators.push_str("  exists: { component: std/file-exists }\n");
                let _ = writeln!(
                    criteria,
                    "  - id: FILES\n    severity: must\n    validator: exists\n    targets: [{}]\n    description: The files the task is about are there.",
                    touched.join(", ")
                );
                let docs: Vec<&String> = touched
                    .iter()
                    .zip(ask.files)
                    .filter(|(_, f)| {
                        rules
                            .docs
                            .iter()
                            .filter_map(|g| glob(g).ok())
                            .any(|g| g.is_match(f.as_str()))
                    })
                    .map(|(id, _)| id)
                    .collect();
                // Fails until the work changed one of the files: their
                // digests as drafted are in the params (std/file-exists
                // `changed_since`), reviewable and bound by the contract.
                let drafted: Vec<(&String, &String)> = ask
                    .digests
                    .iter()
                    .filter(|(path, _)| {
                        ask.files
                            .iter()
                            .filter_map(|f| glob(f.trim_start_matches("./")).ok())
                            .any(|g| g.is_match(path.as_str()))
                    })
                    .collect();
                if !drafted.is_empty() {
                    let map = drafted
                        .iter()
                        .map(|(p, d)| format!("{}: {}", q(p), q(d)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let _ = writeln!(
                        criteria,
                        "  - id: CHANGED\n    severity: must\n    validator: exists\n    targets: [{}]\n    description: The files the task is about changed since this contract was drafted (their digests then are in the params).\n    params: {{ min: 0, allow_empty: true, changed_since: {{ {map} }} }}\n    on_fail: {{ prompt: {} }}",
                        touched.join(", "),
                        q(&format!("Make the change the task asks for: {task}"))
                    );
                }
                if !docs.is_empty() {
                    validators.push_str("  text: { component: std/text-match }\n");
                    let _ = writeln!(
                        criteria,
                        "  - id: NO-PLACEHOLDERS\n    severity: should\n    validator: text\n    targets: [{}]\n    params: {{ must_not_match: ['\\bTODO\\b', '\\bTBD\\b', '\\bFIXME\\b'] }}",
                        docs.iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    // A docs task's docs name the new parameters it writes
                    // as code (its other words found the docs, so they are
                    // there already).
                    let terms = rules.subject(task).names;
                    if class == TaskClass::Skip && !terms.is_empty() {
                        let _ = writeln!(
                            criteria,
                            "  - id: SUBJECT\n    severity: must\n    validator: text\n    targets: [{}]\n    description: {}\n    params: {{ must_match: [{}] }}",
                            docs.iter()
                                .map(|s| s.as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                            q(&format!(
                                "The docs name what the task is about: {}",
                                terms
                                    .iter()
                                    .map(|t| t.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                            terms
                                .iter()
                                .map(|t| q(&format!(
                                    "(?:^|[^A-Za-z0-9_]){}(?:$|[^A-Za-z0-9_])",
                                    regex_escape(t)
                                )))
                                .collect::<Vec<_>>()
                                .join(", ")
                        );
                    }
                }
            }
            if !recorded.is_empty() {
                validators.push_str("  rec: { component: std/exit-record }\n");
            }
            if !critics.is_empty() {
                validators.push_str("  rubric: { component: std/rubric }\n");
            }
            let inputs = record_inputs(ask.files);
            for a in activities {
                let Some(x) = rules.activities.get(a) else {
                    continue;
                };
                let description = x
                    .description
                    .clone()
                    .unwrap_or_else(|| format!("{a} passes"));
                if x.kind == Kind::Critic {
                    let _ = writeln!(
                        criteria,
                        "  - id: {}\n    severity: should\n    validator: rubric\n    targets: [{}]\n    judges: [{a}]\n    description: {}\n    params:\n      rubric: {{ id: {}, question: {}, criteria: [{}] }}\n      threshold: 4",
                        a.to_uppercase(),
                        touched.join(", "),
                        q(&description),
                        a.to_uppercase(),
                        q(x.question.as_deref().unwrap_or_default()),
                        list(&x.criteria)
                    );
                    continue;
                }
                let recipe = format!(
                    "vcc record --inputs {inputs} --exclude {RECORDS}/ --out {RECORDS}/{a}.json -- {}",
                    x.command.join(" ")
                );
                let cover = if touched.is_empty() {
                    String::new()
                } else {
                    format!(", cover: [{}]", touched.join(", "))
                };
                let _ = writeln!(
                    criteria,
                    "  - id: {}\n    severity: must\n    validator: rec\n    targets: [{a}-record]\n    description: {}\n    params: {{ command: [{}], require_inputs: true{cover} }}\n    on_fail: {{ prompt: {} }}",
                    a.to_uppercase(),
                    q(&format!(
                        "{description}, recorded by `vcc record` on the code as it is now."
                    )),
                    list(&x.command),
                    q(&format!(
                        "Run `{recipe}` in the deliverable root, and fix what it reports."
                    ))
                );
            }
        }
    }
    let _ = write!(out, "validators:\n{validators}criteria:\n{criteria}");
    out
}

/// The folders and files `vcc record --inputs` hashes for these globs:
/// each glob's literal part (`src/api/**/*.py` → `src/api`); the whole
/// root when a glob starts with a wildcard or none is given.
fn record_inputs(files: &[String]) -> String {
    let mut inputs: Vec<String> = Vec::new();
    for f in files {
        let literal: Vec<&str> = f
            .split('/')
            .take_while(|p| !p.contains(['*', '?', '[', '{']))
            .collect();
        let path = literal.join("/");
        if path.is_empty() {
            return ".".into();
        }
        if !inputs.contains(&path) {
            inputs.push(path);
        }
    }
    if inputs.is_empty() {
        ".".into()
    } else {
        inputs.join(" ")
    }
}

/// `text` matched literally in a regular expression.
fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A contract id from the task's first words.
fn task_id(task: &str) -> String {
    let mut id = String::from("task");
    for w in task
        .to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
    {
        if id.len() + w.len() + 1 > 64 {
            break;
        }
        id.push('-');
        id.push_str(w);
    }
    id
}

fn valid_id(id: &str) -> bool {
    id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        && id.len() <= 100
}

fn glob(g: &str) -> Result<GlobMatcher, String> {
    Glob::new(g)
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("`{g}` is not a glob: {e}"))
}

/// A YAML scalar that stays what it says: JSON's quoting (valid YAML).
fn q(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

fn list(items: &[String]) -> String {
    items.iter().map(|i| q(i)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::rules::BUILTIN_RULES;
    use super::*;

    static NO_DIGESTS: BTreeMap<String, String> = BTreeMap::new();

    fn ask<'a>(task: &'a str, files: &'a [String]) -> Ask<'a> {
        Ask {
            task,
            files,
            rules_name: "builtin",
            class: None,
            found: &[],
            exclude: "",
            now: "2026-11-26T00:00:00Z",
            implied: &[],
            digests: &NO_DIGESTS,
            too_many: 0,
        }
    }

    fn builtin() -> Rules {
        Rules::parse(BUILTIN_RULES, "builtin").unwrap()
    }

    #[test]
    fn tasks_are_classified_by_their_words_and_files() {
        let rules = builtin();
        let files = vec!["src/api/users.py".to_string()];
        let d = draft(&ask("Add pagination to the users API", &files), &rules).unwrap();
        assert_eq!(d.class, TaskClass::Verifiable);
        assert_eq!(
            d.activities,
            ["python-typecheck", "python-lint", "python-test"]
        );
        let d = draft(&ask("Investigate why checkout is slow", &[]), &rules).unwrap();
        assert_eq!(d.class, TaskClass::Advisory);
        assert!(d.text.contains("advisory: true"));
        let docs = vec!["docs/api.md".to_string()];
        let d = draft(&ask("Update the API guide", &docs), &rules).unwrap();
        assert_eq!(d.class, TaskClass::Skip);
        assert!(d.activities.is_empty());
        // A docs word with a source file is still verifiable.
        let d = draft(
            &ask("Fix the typo in the parser", &["src/parser.rs".into()]),
            &rules,
        )
        .unwrap();
        assert_eq!(d.class, TaskClass::Verifiable);
        assert_eq!(d.activities, ["rust-lint", "rust-format", "rust-test"]);
    }

    #[test]
    fn a_tasks_subject_is_its_names_and_its_uncommon_words() {
        let s = builtin()
            .subject("Document the pagination parameters `page` and `per_page`, and pageSize");
        assert_eq!(s.names, ["page", "per_page", "pageSize"]);
        assert_eq!(s.words, ["pagination", "parameters"]);
        // The rules' cue words say what kind of task, not what it is about.
        assert!(
            builtin()
                .subject("Fix a typo in the README")
                .words
                .is_empty()
        );
    }

    #[test]
    fn record_inputs_are_the_literal_part_of_each_glob() {
        let f = |v: &[&str]| record_inputs(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            f(&["src/api/**/*.py", "tests/test_api.py"]),
            "src/api tests/test_api.py"
        );
        assert_eq!(f(&["**/*.rs"]), ".");
        assert_eq!(f(&[]), ".");
    }

    #[test]
    fn a_rules_file_naming_an_unknown_activity_is_refused_with_the_fix() {
        let err = Rules::parse(
            "rules: 1\nmatch: [{ files: ['*.c'], activities: [make] }]\n",
            "r.yaml",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "r.yaml: match[0].activities: `make` is not an activity; define it under `activities:` or fix the name"
        );
    }
}
