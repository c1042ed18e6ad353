//! The rules `vcc init --task` drafts with (which checks the files a task
//! touches call for), and what a task is about in its own words.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::{glob, valid_id};

/// The rules used when no `--rules` file is given.
pub const BUILTIN_RULES: &str = include_str!("../../../../../contracts/task-rules.yaml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// The rules format version: 1.
    pub(super) rules: u32,
    #[serde(default)]
    pub(super) advisory: Vec<String>,
    #[serde(default)]
    pub(super) skip: Vec<String>,
    #[serde(default)]
    pub(super) docs: Vec<String>,
    #[serde(default)]
    pub(super) activities: BTreeMap<String, Activity>,
    #[serde(default, rename = "match")]
    pub(super) matches: Vec<Match>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Activity {
    pub(super) kind: Kind,
    #[serde(default)]
    pub(super) command: Vec<String>,
    #[serde(default)]
    pub(super) description: Option<String>,
    /// A critic: the judge (provider and model) and what it is asked.
    #[serde(default)]
    pub(super) judge: Option<JudgeSpec>,
    #[serde(default)]
    pub(super) question: Option<String>,
    #[serde(default)]
    pub(super) criteria: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Kind {
    Typecheck,
    Lint,
    Format,
    UnitTest,
    E2e,
    Critic,
}

impl Kind {
    /// What a skip task keeps: the checks of form, not of behaviour.
    pub(super) fn is_form(self) -> bool {
        matches!(self, Kind::Typecheck | Kind::Lint | Kind::Format)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct JudgeSpec {
    pub(super) provider: String,
    pub(super) model: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Match {
    pub(super) files: Vec<String>,
    pub(super) activities: Vec<String>,
}

impl Rules {
    /// Whether a task's words make it docs work (a `skip` word, and no
    /// `advisory` one): its draft targets the docs that mention it.
    pub fn is_docs_task(&self, task: &str) -> bool {
        said(task, &self.skip).is_some() && said(task, &self.advisory).is_none()
    }

    /// Whether `path` is documentation (the rules' `docs` globs).
    pub fn is_doc(&self, path: &str) -> bool {
        self.docs
            .iter()
            .filter_map(|g| glob(g).ok())
            .any(|g| g.is_match(path))
    }

    /// Read and check rules; errors name the file, the field and the fix.
    pub fn parse(text: &str, name: &str) -> Result<Rules, String> {
        let rules: Rules = serde_yaml::from_str(text)
            .map_err(|e| format!("{name}: {e} (see contracts/task-rules.yaml for the format)"))?;
        if rules.rules != 1 {
            return Err(format!(
                "{name}: rules: {} is not a version vcc reads; write `rules: 1`",
                rules.rules
            ));
        }
        for (id, a) in &rules.activities {
            if !valid_id(id) {
                return Err(format!(
                    "{name}: activities: `{id}` is not a usable name; use letters, digits, `.`, `_` and `-`, starting with a letter or digit"
                ));
            }
            if a.kind == Kind::Critic {
                if a.judge.is_none() || a.question.is_none() {
                    return Err(format!(
                        "{name}: activities.{id}: a critic needs `judge: {{ provider, model }}` and `question:`"
                    ));
                }
            } else if a.command.is_empty() {
                return Err(format!(
                    "{name}: activities.{id}.command: empty; give the command words, e.g. [cargo, test]"
                ));
            }
        }
        for (i, m) in rules.matches.iter().enumerate() {
            for a in &m.activities {
                if !rules.activities.contains_key(a) {
                    return Err(format!(
                        "{name}: match[{i}].activities: `{a}` is not an activity; define it under `activities:` or fix the name"
                    ));
                }
            }
            for g in &m.files {
                glob(g).map_err(|e| format!("{name}: match[{i}].files: {e}"))?;
            }
        }
        for g in &rules.docs {
            glob(g).map_err(|e| format!("{name}: docs: {e}"))?;
        }
        Ok(rules)
    }
}

/// Words of a task too common to say what it is about.
/// The first word of `task` (lowercased) that starts with one of `stems`:
/// how the rules' cue words are matched.
pub fn said(task: &str, stems: &[String]) -> Option<String> {
    task.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty() && stems.iter().any(|s| w.starts_with(&s.to_lowercase())))
        .map(str::to_string)
}

/// Whether `word` (lowercase) is too common to say what a task is about.
pub fn is_common(word: &str) -> bool {
    COMMON.contains(&word)
}

const COMMON: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "from",
    "into",
    "onto",
    "about",
    "when",
    "what",
    "which",
    "their",
    "there",
    "them",
    "they",
    "have",
    "has",
    "make",
    "made",
    "add",
    "adds",
    "update",
    "updates",
    "write",
    "writes",
    "document",
    "documents",
    "documentation",
    "docs",
    "describe",
    "explain",
    "improve",
    "change",
    "changes",
    "fix",
    "fixes",
    "new",
    "more",
    "all",
    "each",
    "every",
    "some",
    "also",
    "should",
    "must",
    "will",
    "can",
    "our",
    "your",
    "its",
    "not",
    "but",
    "how",
    "why",
    "use",
    "used",
    "using",
    "page",
    "section",
    "file",
    "files",
];

/// What a task is about, in its own words: the names it writes as code
/// names them (in backticks, or with `_` or an inner capital: the new
/// parameter names of a docs task), and its other words of four letters
/// or more that are neither common nor the rules' own cue words.
#[derive(Debug, Default, PartialEq)]
pub struct Subject {
    pub names: Vec<String>,
    pub words: Vec<String>,
}

impl Rules {
    pub fn subject(&self, task: &str) -> Subject {
        let cue = |w: &str| {
            self.skip
                .iter()
                .chain(&self.advisory)
                .any(|s| w.starts_with(&s.to_lowercase()))
        };
        let mut subject = Subject::default();
        let known = |s: &Subject, t: &str| {
            s.names
                .iter()
                .chain(&s.words)
                .any(|x| x.eq_ignore_ascii_case(t))
        };
        for (i, part) in task.split('`').enumerate() {
            if i % 2 == 1 {
                let name = part.trim();
                if !name.is_empty() && !known(&subject, name) {
                    subject.names.push(name.to_string());
                }
                continue;
            }
            for word in part.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                let is_name = word.contains('_')
                    || (word.chars().skip(1).any(|c| c.is_uppercase())
                        && word.chars().any(|c| c.is_lowercase()));
                let lower = word.to_lowercase();
                if known(&subject, word) {
                    continue;
                }
                if is_name {
                    subject.names.push(word.to_string());
                } else if word.chars().count() >= 4
                    && !COMMON.contains(&lower.as_str())
                    && !cue(&lower)
                    && !word.chars().all(|c| c.is_ascii_digit())
                {
                    subject.words.push(lower);
                }
            }
        }
        subject.names.truncate(8);
        subject.words.truncate(4);
        subject
    }
}

/// The rules: `--rules FILE`, or the built-in ones.
pub fn load_rules(path: Option<&Path>) -> Result<(Rules, String), String> {
    match path {
        None => Ok((
            Rules::parse(BUILTIN_RULES, "builtin rules")?,
            "builtin".into(),
        )),
        Some(p) => {
            let text =
                std::fs::read_to_string(p).map_err(|e| format!("--rules {}: {e}", p.display()))?;
            let name = p.display().to_string();
            Ok((Rules::parse(&text, &name)?, name))
        }
    }
}
