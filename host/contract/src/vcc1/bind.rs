//! Which validator judges a VCC v1 acceptance criterion, with what params
//! and targets — or why none can.
//!
//! | type | validator | reads |
//! |---|---|---|
//! | structure | std/markdown-sections | `requiredSections` |
//! | schema | std/json-schema over the JSON, YAML and CSV formats | `jsonSchema` (beside the contract first, then under the root) |
//! | traceability | std/citation-coverage | `minCitationCoverage`, `citationPattern` |
//! | provenance | std/provenance | `require` (or the policy's), `attestation.signed` as a signed record |
//! | execution | an adapter's binding, std/junit for JUnit XML or TAP, std/exit-record for a `vcc record` | `adapter`, `passFailFromExitCode`, `allowedExitCodes` |
//! | security | std/sarif over the SARIF formats of the targets | — |
//! | consistency | std/consistency over the targets, the specifications among them and their dependencies | `requireTraceMatrix` |
//! | rubric (`ai-judged`) | std/rubric over the text formats of the targets, asking the judges of `x-vcc-judges` | `rubricRef` (scale, anchors), `passThreshold`; `confidenceThreshold`, `varianceMax` |
//! | constraint, custom | `x-vcc-validator` only | — |

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::{Acceptance, Artifacts, Explicit, Note, Policy, Readable, Rubric};
use crate::model::PROVENANCE_REQUIREMENTS;
use crate::problem::{Code, FieldPath, Level};

mod kinds;

pub(super) struct Context<'a> {
    pub artifacts: &'a Artifacts,
    pub rubrics: &'a HashMap<&'a str, &'a Rubric>,
    pub policy: Option<&'a Policy>,
    /// Adapter name → binding (`x-vcc-adapters`, `--adapters`).
    pub adapters: &'a Map<String, Value>,
    /// The contract's folder.
    pub dir: Option<&'a Path>,
    /// The AI judges the contract names (`x-vcc-judges`, `--adapters`).
    pub judges: Vec<String>,
    /// The contract's `intent`, shown to judges as context.
    pub intent: Option<&'a Value>,
}

/// A criterion's validator.
pub(super) struct Binding {
    /// The name criteria use in the native `validators` map.
    pub name: String,
    /// The native `validators` entry.
    pub entry: Value,
    pub targets: Vec<String>,
    pub params: Value,
    /// The judges the criterion grants (an AI-judged rubric).
    pub judges: Vec<String>,
}

/// Why vcc cannot judge a criterion.
pub(super) struct NotEvaluated {
    pub reason: String,
    /// The field that says why.
    pub field: FieldPath,
    /// What a MUST of it is refused with.
    pub code: Code,
    pub targets: Vec<String>,
}

pub(super) struct Bound {
    pub outcome: Result<Binding, NotEvaluated>,
    pub notes: Vec<Note>,
    /// Deliverables the binding adds (an adapter's command record).
    pub deliverables: Vec<Value>,
}

const TEXT: &[&str] = &["text/markdown", "text/x-markdown", "text/"];
/// What std/json-schema reads: JSON, YAML, and CSV rows typed by the schema.
const DATA: &[&str] = &["application/json", "+json", "yaml", "text/csv"];
const JSON: &[&str] = &["application/json", "+json"];

/// The requirement a signed record satisfies (the others are record
/// fields std/provenance checks).
const SIGNED: &str = "attestation.signed";

struct Binder<'a> {
    ac: &'a Acceptance,
    cx: &'a Context<'a>,
    at: &'a FieldPath,
    notes: Vec<Note>,
    deliverables: Vec<Value>,
}

pub(super) fn bind(ac: &Acceptance, cx: &Context, at: &FieldPath) -> Bound {
    let mut b = Binder {
        ac,
        cx,
        at,
        notes: Vec::new(),
        deliverables: Vec::new(),
    };
    let outcome = b.outcome();
    Bound {
        outcome,
        notes: b.notes,
        deliverables: b.deliverables,
    }
}

/// A std binding's parts: (validator, params, preferred media, rule keys read).
type Std = (
    &'static str,
    Value,
    &'static [&'static str],
    &'static [&'static str],
);

impl Binder<'_> {
    fn outcome(&mut self) -> Result<Binding, NotEvaluated> {
        let ac = self.ac;
        if ac.kind != "rubric"
            && let Some(field) = [
                ("confidenceThreshold", ac.confidence_threshold),
                ("varianceMax", ac.variance_max),
            ]
            .iter()
            .find(|(_, v)| v.is_some())
            .map(|(k, _)| *k)
        {
            self.note(
                Code::NotEvaluated,
                Level::Note,
                self.at.key(field),
                format!(
                    "`{field}` of `{}` applies to AI-judged criteria only",
                    ac.ac_id
                ),
            );
        }
        self.human_evidence()?;
        if let Some(x) = &ac.explicit {
            let x = x.clone();
            return self.explicit(&x, &self.at.key("x-vcc-validator"), None);
        }
        self.unreadable()?;
        let std: Std = match ac.kind.as_str() {
            "structure" => self.structure()?,
            "schema" => self.schema()?,
            "traceability" => self.traceability()?,
            "provenance" => self.provenance(),
            "execution" => return self.execution(),
            "security" => return self.security(),
            "rubric" => return self.rubric(),
            "consistency" => self.consistency(),
            other => {
                return Err(self.refuse(
                    "type",
                    format!("type `{other}` has no default vcc validator: it needs an explicit binding, `x-vcc-validator`"),
                ));
            }
        };
        let (name, params, prefer, reads) = std;
        self.unread_rule_keys(reads, &format!("std/{name}"));
        Ok(Binding {
            name: name.to_string(),
            entry: json!({"component": format!("std/{name}")}),
            targets: self.targets(prefer),
            params,
            judges: Vec::new(),
        })
    }

    /// `evidenceType: human` (or `hybrid`) asks for a person's judgment,
    /// which no validator gives: judging the criterion by its validator
    /// alone would accept it without the person. A person's judgment
    /// counts only as a signed approval of a gate.
    fn human_evidence(&self) -> Result<(), NotEvaluated> {
        let kind = self
            .ac
            .evidence
            .as_ref()
            .and_then(|e| e.get("evidenceType"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let what = match kind {
            "human" => "a person's judgment, which no validator gives",
            "hybrid" => {
                "a validator's check and a person's judgment, and a validator gives only the first"
            }
            _ => return Ok(()),
        };
        Err(self.refuse_at(
            self.at.key("evidence").key("evidenceType"),
            format!(
                "`evidence.evidenceType` is `{kind}`: the evidence is {what}; vcc counts a person's judgment only as a signed approval of a gate (`type: human`, signed with `vcc approve`)"
            ),
            Code::UnverifiableMust,
        ))
    }

    fn note(&mut self, code: Code, level: Level, field: FieldPath, message: String) {
        self.notes.push(Note {
            code,
            level,
            field,
            message,
            help: None,
        });
    }

    fn refuse(&self, key: &str, reason: String) -> NotEvaluated {
        self.refuse_at(self.at.key(key), reason, Code::UnverifiableMust)
    }

    fn refuse_at(&self, field: FieldPath, reason: String, code: Code) -> NotEvaluated {
        NotEvaluated {
            reason,
            field,
            code,
            targets: self.targets(&[]),
        }
    }

    fn is_must(&self) -> bool {
        self.ac.severity == "must"
    }

    /// Every readable deliverable of the targets, keeping the formats a
    /// validator reads (`prefer`) when an artifact has them.
    fn targets(&self, prefer: &[&str]) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.ac.target_artifacts {
            let Some(info) = self.cx.artifacts.get(t) else {
                continue;
            };
            let preferred: Vec<&Readable> = info
                .readable
                .iter()
                .filter(|r| prefer.iter().any(|p| r.media.contains(p)))
                .collect();
            let chosen = if preferred.is_empty() {
                info.readable.iter().collect()
            } else {
                preferred
            };
            out.extend(chosen.into_iter().map(|r| r.id.clone()));
        }
        out
    }

    /// The readable deliverables of the targets.
    fn readable(&self) -> Vec<&Readable> {
        self.ac
            .target_artifacts
            .iter()
            .filter_map(|t| self.cx.artifacts.get(t))
            .flat_map(|i| i.readable.iter())
            .collect()
    }

    /// A target artifact vcc cannot read makes the criterion unverifiable.
    fn unreadable(&self) -> Result<(), NotEvaluated> {
        for (j, t) in self.ac.target_artifacts.iter().enumerate() {
            if let Some(why) = self.cx.artifacts.get(t).and_then(|i| i.unreadable.as_ref()) {
                return Err(self.refuse_at(
                    self.at.key("targetArtifacts").index(j),
                    format!(
                        "{why}; map it with `x-vcc-path: DIR` on the artifact or `vcc check --artifact-root {t}=DIR` (DIR under the deliverable root)"
                    ),
                    Code::UnverifiableMust,
                ));
            }
        }
        Ok(())
    }

    /// `rule` keys the validator does not read: on a MUST each is refused
    /// (vcc would accept without checking it); otherwise a note.
    fn unread_rule_keys(&mut self, reads: &[&str], component: &str) {
        let keys: Vec<String> = self
            .ac
            .rule
            .keys()
            .filter(|k| !reads.contains(&k.as_str()) && *k != "description")
            .cloned()
            .collect();
        for key in keys {
            let (code, level, tail) = if self.is_must() {
                (
                    Code::UnverifiableMust,
                    Level::Error,
                    "; a MUST is never accepted with part of its rule unchecked: remove the key, bind a validator that reads it with `x-vcc-validator`, or lower the severity",
                )
            } else {
                (Code::NotEvaluated, Level::Note, "")
            };
            self.note(
                code,
                level,
                self.at.key("rule").key(&key),
                format!(
                    "`rule.{key}` of `{}` is not evaluated by {component}{tail}",
                    self.ac.ac_id
                ),
            );
        }
    }

    /// `x-vcc-validator`, or an adapter's binding (with its `record`).
    fn explicit(
        &mut self,
        x: &Explicit,
        field: &FieldPath,
        adapter: Option<&str>,
    ) -> Result<Binding, NotEvaluated> {
        let entry = match (&x.component, &x.bundle) {
            (Some(c), None) => {
                let mut e = json!({"component": c});
                if let Some(d) = &x.digest {
                    e["digest"] = json!(d);
                }
                e
            }
            (None, Some(bundle)) => {
                let mut e = json!({"bundle": bundle});
                if let Some(v) = &x.validator {
                    e["validator"] = json!(v);
                }
                if let Some(v) = &x.version {
                    e["version"] = json!(v);
                }
                if let Some(d) = &x.digest {
                    e["digest"] = json!(d);
                }
                e
            }
            _ => {
                let reason = "a binding names either `component` (std/NAME or a .wasm path) or `bundle` (with `validator` and `version`), exactly one".to_string();
                self.note(
                    Code::InvalidValue,
                    Level::Error,
                    field.clone(),
                    reason.clone(),
                );
                return Err(self.refuse_at(field.clone(), reason, Code::InvalidValue));
            }
        };
        if adapter.is_none() && x.record.is_some() {
            let reason = "`record` belongs to an adapter's binding (`x-vcc-adapters`), not to `x-vcc-validator`".to_string();
            self.note(
                Code::InvalidValue,
                Level::Error,
                field.key("record"),
                reason.clone(),
            );
            return Err(self.refuse_at(field.clone(), reason, Code::InvalidValue));
        }
        self.unreadable()?;
        let mut params = x.params.clone().unwrap_or_else(|| json!({}));
        let mut targets = self.targets(&[]);
        let exit_record = x.component.as_deref() == Some("std/exit-record");
        if let Some(record) = &x.record {
            // The run is the adapter's record; what the criterion targets
            // must be among its outputs, unchanged.
            let id = format!("{}.record", self.ac.ac_id);
            self.deliverables.push(json!({"id": id, "path": record, "required": true,
                "description": format!("the command record of `{}` ({})", self.ac.ac_id, adapter.unwrap_or("?"))}));
            if exit_record && params.get("produced").is_none() {
                params["produced"] = json!(targets);
            }
            targets = vec![id];
        }
        if exit_record {
            self.bind_inputs(&mut params);
        }
        let name = match adapter {
            Some(a) => format!("{}-adapter-{}", self.ac.ac_id, sanitize(a)),
            None => format!("{}-validator", self.ac.ac_id),
        };
        Ok(Binding {
            name,
            entry,
            targets,
            params,
            judges: Vec::new(),
        })
    }

    /// A command record proves a run over something: it must bind the
    /// artifacts the targets depend on (the code the tests ran on) as
    /// inputs, and bind at least one input.
    fn bind_inputs(&self, params: &mut Value) {
        let deps: Vec<String> = self
            .ac
            .target_artifacts
            .iter()
            .filter_map(|t| self.cx.artifacts.get(t))
            .flat_map(|i| i.depends_on.iter().cloned())
            .collect();
        if params.get("cover").is_none() && !deps.is_empty() {
            params["cover"] = json!(deps);
        }
        if params.get("require_inputs").is_none() {
            params["require_inputs"] = json!(true);
        }
    }
}

/// Formats a judge reads as text.
pub(super) fn is_text(r: &Readable) -> bool {
    let media = r.media.as_str();
    media.starts_with("text/")
        || ["json", "yaml", "xml", "toml"]
            .iter()
            .any(|m| media.contains(m))
        || (media.is_empty()
            && [
                ".md",
                ".markdown",
                ".txt",
                ".rst",
                ".json",
                ".yaml",
                ".yml",
                ".csv",
            ]
            .iter()
            .any(|e| r.uri.ends_with(e)))
}

/// std/rubric's params for a VCC rubric: its scale and anchors, the
/// threshold, the question, what is judged, and the contract's intent.
pub(super) fn rubric_params(
    rubric: Option<&Rubric>,
    id: Option<&str>,
    threshold: f64,
    question: &str,
    criteria: &[String],
    intent: Option<&Value>,
) -> Value {
    let mut spec = json!({ "question": question });
    if let Some(id) = id {
        spec["id"] = json!(id);
    }
    if !criteria.is_empty() {
        spec["criteria"] = json!(criteria);
    }
    if let Some(r) = rubric {
        let scale: Vec<f64> = r.scale.iter().filter_map(Value::as_f64).collect();
        if scale.len() >= 2 {
            spec["scale"] = json!(scale);
        }
        let anchors: Map<String, Value> = r
            .anchors
            .iter()
            .map(|(k, v)| {
                let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                (k.clone(), json!(text))
            })
            .collect();
        if !anchors.is_empty() {
            spec["anchors"] = Value::Object(anchors);
        }
    }
    let context: Vec<String> = [
        ("problemStatement", "Problem"),
        ("successDefinition", "Success"),
    ]
    .iter()
    .filter_map(|(key, label)| {
        intent
            .and_then(|i| i.get(*key))
            .and_then(Value::as_str)
            .map(|v| format!("{label}: {v}"))
    })
    .chain(
        intent
            .and_then(|i| i.get("targetAudience"))
            .and_then(Value::as_array)
            .map(|a| {
                let who: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                format!("Audience: {}", who.join(", "))
            }),
    )
    .collect();
    if !context.is_empty() {
        spec["context"] = json!(context.join(" "));
    }
    json!({ "rubric": spec, "threshold": threshold })
}

/// JUnit XML or a TAP stream: std/junit reads both.
fn is_junit(r: &Readable) -> bool {
    r.media.contains("junit")
        || ((r.media.contains("xml") || r.media.is_empty()) && r.uri.ends_with(".xml"))
        || r.media.contains("tap")
        || r.uri.ends_with(".tap")
}

/// An adapter name as a validator name: letters, digits, `.`, `_`, `-`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}
