//! A contract as read from one file ([`Document`]), and what it records
//! of the files it named and the bases it was composed with. Below the
//! modules that make and use it (`parse`, `compose`, `contract_files`,
//! `lint`), so none of them imports another to name it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::{Contract, Criterion, Gate};
use crate::problem::{Code, FieldPath, Level, Problem, Seg};
use crate::spans::Spans;
use crate::vcc1::Origin;

/// A contract as read from one file.
#[derive(Debug, Clone)]
pub struct Document {
    pub path: PathBuf,
    /// `blake3:<hex>` of the exact bytes that were parsed.
    pub digest: String,
    /// `vcc: 1`, or the `vccVersion` of a VCC v1 contract.
    pub format: String,
    pub contract: Contract,
    pub spans: Spans,
    /// Problems and notes found while translating a VCC v1 contract.
    pub notes: Vec<Problem>,
    /// For a translated contract: where native fields came from.
    pub origin: Option<Origin>,
    /// The bases it was composed with (`extends`, `--policy`), if any.
    pub bases: Vec<Based>,
    /// Files its params name (`{ $file: PATH }`), read when it was loaded;
    /// with any, `digest` covers them too.
    pub files: Vec<ContractFile>,
    /// The parts of a composed contract that came from a base, so a
    /// problem about one names the base's file and line, not this file's.
    pub inherited: Vec<Inherited>,
    /// When a run judges only some criteria or gates (`--only`, `--gate`):
    /// where each one kept is in the file, so problems point at its text.
    pub kept: Option<Kept>,
}

/// A part of a composed contract taken from a base as the base wrote it.
#[derive(Debug, Clone)]
pub struct Inherited {
    /// Where it sits in the composed contract (`criteria[5]`).
    pub at: FieldPath,
    /// Where it sits in the base (`criteria[0]`).
    pub from: FieldPath,
    /// The base as read (a bundle's base is named by its label).
    pub base: Arc<Document>,
}

/// The index in the file of each criterion and gate a run kept.
#[derive(Debug, Clone, Default)]
pub struct Kept {
    pub criteria: Vec<usize>,
    pub gates: Vec<usize>,
}

impl Document {
    /// The folder relative validator paths are resolved from.
    /// The deliverable root when no `--dir` is given: `root:`, relative
    /// to the contract file, else the contract's folder.
    ///
    /// `..` is taken off the path as written, never resolved through the
    /// file system: with `.vcc` a link the worker made to `decoy/inner`,
    /// `.vcc/..` is the folder `.vcc` sits in, not `decoy/`.
    pub fn default_root(&self) -> PathBuf {
        match &self.contract.root {
            Some(root) => lexical(&self.dir().join(root)),
            None => self.dir().to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        }
    }

    /// Keep only the criteria and gates a run judges; problems about the
    /// ones kept still point at the file's own entries.
    pub fn retain(&mut self, criterion: impl Fn(&Criterion) -> bool, gate: impl Fn(&Gate) -> bool) {
        let was = self.kept.take().unwrap_or_else(|| Kept {
            criteria: (0..self.contract.criteria.len()).collect(),
            gates: (0..self.contract.gates.len()).collect(),
        });
        let criteria = was
            .criteria
            .into_iter()
            .zip(&self.contract.criteria)
            .filter(|(_, c)| criterion(c))
            .map(|(i, _)| i)
            .collect();
        let gates = was
            .gates
            .into_iter()
            .zip(&self.contract.gates)
            .filter(|(_, g)| gate(g))
            .map(|(i, _)| i)
            .collect();
        self.contract.criteria.retain(|c| criterion(c));
        self.contract.gates.retain(|g| gate(g));
        self.kept = Some(Kept { criteria, gates });
    }

    /// The index in the file of the run's criterion `i`.
    pub fn criterion_in_file(&self, i: usize) -> usize {
        self.kept
            .as_ref()
            .and_then(|k| k.criteria.get(i).copied())
            .unwrap_or(i)
    }

    /// `field` with a kept criterion's or gate's index as in the file.
    fn in_file(&self, field: &FieldPath) -> FieldPath {
        let mut field = field.clone();
        let moved = match (&self.kept, field.0.first(), field.0.get(1)) {
            (Some(kept), Some(Seg::Key(list)), Some(Seg::Index(i))) => match list.as_str() {
                "criteria" => kept.criteria.get(*i).copied(),
                "gates" => kept.gates.get(*i).copied(),
                _ => None,
            },
            _ => None,
        };
        if let Some(i) = moved {
            field.0[1] = Seg::Index(i);
        }
        field
    }

    /// The file and line (when known) where `field` of the native model is
    /// written: this file's, or a base's for a part taken from one.
    pub fn written_at(&self, field: &FieldPath) -> (String, Option<usize>) {
        let p = self.problem(Code::SyntaxError, Level::Note, field, String::new());
        (p.file, p.line)
    }

    /// A problem about `field` (of the native model), with its line when
    /// known. For a translated contract the field is the VCC one it came from.
    pub fn problem(&self, code: Code, level: Level, field: &FieldPath, message: String) -> Problem {
        // First the index in the file of a criterion or gate a run kept,
        // then the part of a base it came from, if it did.
        let field = self.in_file(field);
        // The last part taken that holds the field: a later base may have
        // replaced what an earlier one gave.
        if let Some(part) = self
            .inherited
            .iter()
            .rev()
            .find(|part| field.0.starts_with(&part.at.0))
        {
            let mut in_base = part.from.clone();
            in_base.0.extend_from_slice(&field.0[part.at.0.len()..]);
            return part.base.problem(code, level, &in_base, message);
        }
        let field = match &self.origin {
            Some(origin) => origin.map(&field),
            None => field,
        };
        let field = &field;
        let at = self.spans.find(field);
        Problem {
            code,
            level,
            message,
            file: self.path.display().to_string(),
            field: Some(field.render()),
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
            help: None,
        }
    }
}

/// A base a composed contract was built on.
#[derive(Debug, Clone, PartialEq)]
pub struct Based {
    pub label: String,
    /// `blake3:<hex>` of the base contract's bytes.
    pub digest: String,
    /// Criteria taken from this base as it wrote them (not overridden).
    pub criteria: Vec<String>,
}

/// A file a contract's params name, as it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractFile {
    /// As written, relative to the contract file.
    pub path: String,
    /// `blake3:<hex>` of its bytes.
    pub digest: String,
}

/// `path` with `.` dropped and each `..` taking off the name before it, as
/// written (a leading `..` of a relative path stays; `/..` is `/`).
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::lexical;
    use std::path::Path;

    #[test]
    fn dot_dot_is_taken_off_as_written() {
        let cases = [
            ("proj/.vcc/..", "proj"),
            (".vcc/..", "."),
            ("./..", ".."),
            ("../a/../b", "../b"),
            ("/a/../..", "/"),
            ("a/./b/", "a/b"),
        ];
        for (path, want) in cases {
            assert_eq!(lexical(Path::new(path)), Path::new(want), "{path}");
        }
    }
}
