//! Contracts written to the published VCC v1 schema (`vccVersion:
//! "sdlaf.vcc/v1"`, also spelt `agentforge.vcc/v1`) load without editing:
//! they are translated into the native model here, before the integrity
//! pass, and every problem found in them points at the VCC field and line.
//!
//! - `artifacts[]` become deliverables, one per `formats[]` entry whose `uri`
//!   is a path under the deliverable root (other URIs, like `worktree://…`,
//!   are reported and not read). `required` and `dependsOn` carry over.
//! - `acceptance[]` become criteria. The criterion `type` picks a default
//!   validator: structure → std/markdown-sections (`rule.requiredSections`),
//!   schema → std/json-schema (`rule.jsonSchema`), traceability →
//!   std/citation-coverage (`rule.minCitationCoverage`), provenance →
//!   std/provenance (`provenancePolicy.require`), execution →
//!   std/exit-record, rubric → std/json-evidence on the score (`score >=
//!   passThreshold`). `x-vcc-validator: {component, digest, params}` binds
//!   any criterion explicitly.
//! - A MUST that no validator can check is `UNVERIFIABLE_MUST`, as in the
//!   reference integrity pass; a SHOULD/MAY one is a `NOT_EVALUATED` note.
//! - Sections vcc does not evaluate (intent, relationships, gates,
//!   packaging, delivery, riskControls, …) are kept as `x-vcc1-…`
//!   extensions and listed as notes; nothing is dropped silently.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::model::Severity;
use crate::problem::{Code, FieldPath, Level, Seg};

/// The `vccVersion` values this translator reads.
pub const VERSIONS: [&str; 2] = ["sdlaf.vcc/v1", "agentforge.vcc/v1"];

/// A note or problem found while translating, at a field of the VCC document.
pub struct Note {
    pub code: Code,
    pub level: Level,
    pub field: FieldPath,
    pub message: String,
    pub help: Option<String>,
}

/// Where native fields came from, to point problems at the VCC text.
#[derive(Debug, Default, Clone)]
pub struct Origin {
    /// Native criterion index → acceptance index.
    pub criteria: Vec<usize>,
    /// Native deliverable index → (artifact index, format index).
    pub deliverables: Vec<(usize, usize)>,
    /// Native validator name → the acceptance index that introduced it.
    pub validators: BTreeMap<String, usize>,
}

impl Origin {
    /// The VCC field a native field was made from.
    pub fn map(&self, native: &FieldPath) -> FieldPath {
        let root = FieldPath::root();
        let segs = &native.0;
        let key = |i: usize| match segs.get(i) {
            Some(Seg::Key(k)) => Some(k.as_str()),
            _ => None,
        };
        let index = |i: usize| match segs.get(i) {
            Some(Seg::Index(n)) => Some(*n),
            _ => None,
        };
        match (key(0), index(1)) {
            (Some("criteria"), Some(i)) => {
                let Some(&ac) = self.criteria.get(i) else {
                    return root.key("acceptance");
                };
                let at = root.key("acceptance").index(ac);
                match key(2) {
                    Some("id") => at.key("acId"),
                    Some("severity") => at.key("severity"),
                    Some("validator") => at.key("type"),
                    Some("targets") => at.key("targetArtifacts"),
                    Some("params" | "description") => at.key("rule"),
                    _ => at,
                }
            }
            (Some("deliverables"), Some(k)) => match self.deliverables.get(k) {
                Some(&(a, f)) => {
                    let at = root.key("artifacts").index(a);
                    match key(2) {
                        Some("path") => at.key("formats").index(f).key("uri"),
                        Some("id") => at.key("artifactId"),
                        Some("depends_on") => at.key("dependsOn"),
                        _ => at,
                    }
                }
                None => root.key("artifacts"),
            },
            (Some("validators"), _) => match key(1).and_then(|n| self.validators.get(n)) {
                Some(&ac) => root.key("acceptance").index(ac).key("type"),
                None => root.key("acceptance"),
            },
            (Some("budget"), _) => root.key("resourceConstraints"),
            (Some("criteria"), None) => root.key("acceptance"),
            (Some("deliverables"), None) => root.key("artifacts"),
            (Some("id"), _) => root.key("id"),
            (Some("title"), _) => root.key("title"),
            _ => native.clone(),
        }
    }
}

pub struct Translated {
    /// A native contract document (JSON), ready for the typed model.
    pub native: Value,
    pub notes: Vec<Note>,
    pub origin: Origin,
    pub version: String,
}

/// A translation that could not be done at all: (code, field, message).
pub type Failure = (Code, FieldPath, String);

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V1 {
    vcc_version: String,
    id: String,
    title: Option<String>,
    #[serde(default)]
    artifacts: Vec<Artifact>,
    #[serde(default)]
    acceptance: Vec<Acceptance>,
    #[serde(default)]
    rubrics: Vec<Rubric>,
    provenance_policy: Option<Policy>,
    resource_constraints: Option<Constraints>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    artifact_id: String,
    #[serde(default)]
    formats: Vec<Format>,
    #[serde(default = "yes")]
    required: bool,
    #[serde(default)]
    depends_on: Vec<String>,
    description: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Format {
    media_type: Option<String>,
    uri: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Acceptance {
    ac_id: String,
    #[serde(default)]
    target_artifacts: Vec<String>,
    #[serde(rename = "type")]
    kind: String,
    severity: String,
    #[serde(default)]
    rule: Map<String, Value>,
    evidence: Option<Value>,
    #[serde(rename = "x-vcc-validator")]
    explicit: Option<Explicit>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Explicit {
    component: String,
    digest: Option<String>,
    params: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rubric {
    rubric_id: String,
    pass_threshold: Option<f64>,
}

#[derive(Deserialize)]
struct Policy {
    #[serde(default)]
    require: Vec<String>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Constraints {
    max_iterations: Option<u64>,
    max_time_ms: Option<u64>,
    max_cost_usd: Option<f64>,
    stagnation_window: Option<u64>,
}

/// A validator binding for one criterion.
struct Binding {
    /// The name criteria use in the native `validators` map.
    name: String,
    component: String,
    digest: Option<String>,
    params: Value,
    /// Media types to pick among an artifact's formats (empty: all).
    prefer: &'static [&'static str],
    /// `rule` keys this binding reads (the rest are reported).
    reads: &'static [&'static str],
}

const TEXT: &[&str] = &["text/markdown", "text/x-markdown", "text/"];
const JSON_OR_YAML: &[&str] = &["application/json", "+json", "yaml"];
const JSON: &[&str] = &["application/json", "+json"];

/// Sections of a VCC v1 document vcc keeps but does not evaluate.
const KEPT: &[&str] = &[
    "summary",
    "intent",
    "relationships",
    "gates",
    "packaging",
    "delivery",
    "riskControls",
];

/// Translate a parsed VCC v1 document.
pub fn translate(doc: Value) -> Result<Translated, Failure> {
    let root = FieldPath::root();
    let v1: V1 = serde_path_to_error::deserialize(doc).map_err(|e| {
        let field = FieldPath(
            e.path()
                .iter()
                .filter_map(|s| match s {
                    serde_path_to_error::Segment::Seq { index } => Some(Seg::Index(*index)),
                    serde_path_to_error::Segment::Map { key } => Some(Seg::Key(key.clone())),
                    _ => None,
                })
                .collect(),
        );
        let message = e.inner().to_string();
        let code = if message.starts_with("missing field") {
            Code::MissingField
        } else {
            Code::InvalidValue
        };
        (code, field, message)
    })?;
    if !VERSIONS.contains(&v1.vcc_version.as_str()) {
        return Err((
            Code::UnsupportedVersion,
            root.key("vccVersion"),
            format!(
                "unsupported vccVersion `{}`: this vcc reads {} (and its native `vcc: 1`)",
                v1.vcc_version,
                VERSIONS.join(", ")
            ),
        ));
    }
    let mut t = Translator {
        notes: Vec::new(),
        origin: Origin::default(),
    };
    let mut native = Map::new();
    native.insert("vcc".into(), json!(1));
    native.insert("id".into(), json!(v1.id));
    if let Some(title) = &v1.title {
        native.insert("title".into(), json!(title));
    }

    for (key, value) in &v1.rest {
        if key.starts_with("x-") {
            native.insert(key.clone(), value.clone());
        } else {
            native.insert(format!("x-vcc1-{key}"), value.clone());
            if key != "summary" {
                let known = KEPT.contains(&key.as_str());
                t.note(
                    Code::NotEvaluated,
                    root.key(key),
                    format!(
                        "`{key}` is kept{} but not evaluated by vcc",
                        if known {
                            ""
                        } else {
                            " (it is not part of VCC v1)"
                        }
                    ),
                );
            }
        }
    }

    let (deliverables, by_artifact) = t.deliverables(&v1.artifacts);
    native.insert("deliverables".into(), Value::Array(deliverables));
    let rubrics: HashMap<&str, Option<f64>> = v1
        .rubrics
        .iter()
        .map(|r| (r.rubric_id.as_str(), r.pass_threshold))
        .collect();
    let (criteria, validators, used_rubrics) = t.criteria(
        &v1.acceptance,
        &by_artifact,
        &rubrics,
        v1.provenance_policy.as_ref(),
    );
    native.insert("criteria".into(), Value::Array(criteria));
    native.insert("validators".into(), Value::Object(validators));
    for (i, r) in v1.rubrics.iter().enumerate() {
        if !used_rubrics.contains(&r.rubric_id) {
            t.note(
                Code::NotEvaluated,
                root.key("rubrics").index(i),
                format!(
                    "rubric `{}` is not used by any rubric criterion",
                    r.rubric_id
                ),
            );
        }
    }
    if !v1.rubrics.is_empty() {
        native.insert(
            "x-vcc1-rubrics".into(),
            serde_json::to_value(rubric_values(&v1.rubrics)).unwrap_or_default(),
        );
    }
    if let Some(policy) = &v1.provenance_policy {
        let mut kept = policy.rest.clone();
        kept.insert("require".into(), json!(policy.require));
        native.insert("x-vcc1-provenancePolicy".into(), Value::Object(kept));
    }
    if let Some(c) = &v1.resource_constraints {
        let mut budget = Map::new();
        if let Some(n) = c.max_iterations {
            budget.insert("iterations".into(), json!(n));
        }
        if let Some(n) = c.stagnation_window {
            budget.insert("stagnation".into(), json!(n));
        }
        if let Some(ms) = c.max_time_ms {
            budget.insert("time".into(), json!(format!("{ms}ms")));
        }
        if let Some(cost) = c.max_cost_usd {
            // What a run cost is what the command reports through $VCC_USAGE.
            budget.insert("cost".into(), json!(cost));
        }
        native.insert("budget".into(), Value::Object(budget));
    }
    Ok(Translated {
        native: Value::Object(native),
        notes: t.notes,
        origin: t.origin,
        version: v1.vcc_version,
    })
}

fn rubric_values(rubrics: &[Rubric]) -> Vec<Value> {
    rubrics
        .iter()
        .map(|r| json!({"rubricId": r.rubric_id, "passThreshold": r.pass_threshold}))
        .collect()
}

struct Translator {
    notes: Vec<Note>,
    origin: Origin,
}

/// Per artifact id: its index and its deliverables as (id, media type).
type ByArtifact = HashMap<String, (usize, Vec<(String, String)>)>;

impl Translator {
    fn note(&mut self, code: Code, field: FieldPath, message: String) {
        let level = match code {
            Code::NotEvaluated => Level::Note,
            _ => Level::Error,
        };
        self.notes.push(Note {
            code,
            level,
            field,
            message,
            help: None,
        });
    }

    fn deliverables(&mut self, artifacts: &[Artifact]) -> (Vec<Value>, ByArtifact) {
        let list = FieldPath::root().key("artifacts");
        let mut out = Vec::new();
        let mut by_artifact: ByArtifact = HashMap::new();
        for (a, art) in artifacts.iter().enumerate() {
            if by_artifact.contains_key(&art.artifact_id) {
                self.note(
                    Code::DuplicateId,
                    list.index(a).key("artifactId"),
                    format!("artifactId `{}` is used twice", art.artifact_id),
                );
                continue;
            }
            let usable: Vec<(usize, &Format)> = art
                .formats
                .iter()
                .enumerate()
                .filter(|(f, fmt)| {
                    let ok = is_path(&fmt.uri);
                    if !ok {
                        self.note(
                            Code::NotEvaluated,
                            list.index(a).key("formats").index(*f).key("uri"),
                            format!(
                                "URI `{}` of artifact `{}` is not a path under the deliverable root; vcc does not read it",
                                fmt.uri, art.artifact_id
                            ),
                        );
                    }
                    ok
                })
                .collect();
            let mut mine = Vec::new();
            for (f, fmt) in &usable {
                let id = if usable.len() == 1 {
                    art.artifact_id.clone()
                } else {
                    let ext = extension(&fmt.uri);
                    let taken = mine
                        .iter()
                        .any(|(id, _): &(String, String)| id.ends_with(&format!(".{ext}")));
                    if ext.is_empty() || taken {
                        format!("{}.{f}", art.artifact_id)
                    } else {
                        format!("{}.{ext}", art.artifact_id)
                    }
                };
                let media = fmt.media_type.clone().unwrap_or_default();
                let mut d = json!({"id": id, "path": fmt.uri, "required": art.required});
                if !media.is_empty() {
                    d["media_type"] = json!(media);
                }
                if let Some(desc) = &art.description {
                    d["description"] = json!(desc);
                }
                self.origin.deliverables.push((a, *f));
                out.push(d);
                mine.push((id, media));
            }
            by_artifact.insert(art.artifact_id.clone(), (a, mine));
        }
        // Dependencies, once every artifact has its deliverables.
        let mut k = 0;
        for (a, art) in artifacts.iter().enumerate() {
            let Some((index, mine)) = by_artifact.get(&art.artifact_id) else {
                continue;
            };
            if *index != a {
                continue;
            }
            let mut deps = Vec::new();
            for (j, dep) in art.depends_on.iter().enumerate() {
                match by_artifact.get(dep) {
                    Some((_, theirs)) => deps.extend(theirs.iter().map(|(id, _)| json!(id))),
                    None => self.note(
                        Code::UnknownDependency,
                        list.index(a).key("dependsOn").index(j),
                        format!(
                            "artifact `{}` depends on `{dep}`, which is not an artifact",
                            art.artifact_id
                        ),
                    ),
                }
            }
            for _ in mine {
                out[k]["depends_on"] = Value::Array(deps.clone());
                k += 1;
            }
        }
        (out, by_artifact)
    }

    #[allow(clippy::type_complexity)]
    fn criteria(
        &mut self,
        acceptance: &[Acceptance],
        by_artifact: &ByArtifact,
        rubrics: &HashMap<&str, Option<f64>>,
        policy: Option<&Policy>,
    ) -> (Vec<Value>, Map<String, Value>, Vec<String>) {
        let list = FieldPath::root().key("acceptance");
        let mut criteria = Vec::new();
        let mut validators = Map::new();
        let mut used_rubrics = Vec::new();
        for (i, ac) in acceptance.iter().enumerate() {
            let at = list.index(i);
            let severity = match ac.severity.as_str() {
                "must" => Severity::Must,
                "should" => Severity::Should,
                "may" => Severity::May,
                other => {
                    self.note(
                        Code::InvalidValue,
                        at.key("severity"),
                        format!("severity `{other}` is not one of must, should, may"),
                    );
                    continue;
                }
            };
            if let Some(r) = ac.rule.get("rubricRef").and_then(Value::as_str) {
                if rubrics.contains_key(r) {
                    used_rubrics.push(r.to_string());
                } else {
                    self.note(
                        Code::UnknownRubric,
                        at.key("rule").key("rubricRef"),
                        format!(
                            "acceptance `{}` references rubric `{r}`, which is not declared",
                            ac.ac_id
                        ),
                    );
                    continue;
                }
            }
            let binding = self.binding(ac, rubrics, policy, &at);
            // Targets: the artifacts' deliverables, preferring the formats
            // the validator reads.
            let mut targets = Vec::new();
            let mut unreadable = Vec::new();
            let mut target_ids = ac.target_artifacts.clone();
            if ac.kind == "rubric"
                && let Some(produced) = ac
                    .evidence
                    .as_ref()
                    .and_then(|e| e.get("producedArtifact"))
                    .and_then(Value::as_str)
                && by_artifact.contains_key(produced)
            {
                // The judge's score is the evidence artifact, not the report.
                target_ids = vec![produced.to_string()];
            }
            for (j, t) in target_ids.iter().enumerate() {
                match by_artifact.get(t) {
                    None => self.note(
                        Code::UnknownTarget,
                        at.key("targetArtifacts").index(j),
                        format!(
                            "acceptance `{}` targets `{t}`, which is not an artifact",
                            ac.ac_id
                        ),
                    ),
                    Some((_, mine)) if mine.is_empty() => unreadable.push(t.clone()),
                    Some((_, mine)) => {
                        let prefer = binding.as_ref().map_or(&[][..], |b| b.prefer);
                        let preferred: Vec<&(String, String)> = mine
                            .iter()
                            .filter(|(_, media)| prefer.iter().any(|p| media.contains(p)))
                            .collect();
                        let chosen = if preferred.is_empty() {
                            mine.iter().collect()
                        } else {
                            preferred
                        };
                        targets.extend(chosen.into_iter().map(|(id, _)| json!(id)));
                    }
                }
            }
            let problem = match (&binding, unreadable.is_empty()) {
                (Err(reason), _) => Some(reason.clone()),
                (Ok(_), false) => Some(format!(
                    "its target artifact(s) {} have no format vcc can read",
                    unreadable
                        .iter()
                        .map(|u| format!("`{u}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                _ => None,
            };
            if let Some(reason) = problem {
                let field = if binding.is_err() {
                    at.key("type")
                } else {
                    at.key("targetArtifacts")
                };
                if severity == Severity::Must {
                    self.notes.push(Note {
                        code: Code::UnverifiableMust,
                        level: Level::Error,
                        field,
                        message: format!("MUST criterion `{}` (type `{}`) cannot be verified by vcc: {reason}", ac.ac_id, ac.kind),
                        help: Some("bind a validator with `x-vcc-validator: { component: std/…, params: {…} }`, or lower the severity".into()),
                    });
                } else {
                    self.note(
                        Code::NotEvaluated,
                        field,
                        format!(
                            "{} criterion `{}` (type `{}`) is not evaluated: {reason}",
                            ac.severity.to_uppercase(),
                            ac.ac_id,
                            ac.kind
                        ),
                    );
                }
                continue;
            }
            let Ok(b) = binding else { continue };
            if ac.explicit.is_none() {
                for key in ac
                    .rule
                    .keys()
                    .filter(|k| !b.reads.contains(&k.as_str()) && *k != "description")
                {
                    self.note(
                        Code::NotEvaluated,
                        at.key("rule").key(key),
                        format!(
                            "`rule.{key}` of `{}` is not evaluated by {}",
                            ac.ac_id, b.component
                        ),
                    );
                }
            }
            if let Some(kind) = ac
                .evidence
                .as_ref()
                .and_then(|e| e.get("evidenceType"))
                .and_then(Value::as_str)
                && kind != "auto"
            {
                self.note(
                    Code::NotEvaluated,
                    at.key("evidence").key("evidenceType"),
                    format!(
                        "evidenceType `{kind}` of `{}`: vcc judges it automatically with {}",
                        ac.ac_id, b.component
                    ),
                );
            }
            let mut entry = json!({"component": b.component});
            if let Some(d) = &b.digest {
                entry["digest"] = json!(d);
            }
            validators.insert(b.name.clone(), entry);
            self.origin.validators.entry(b.name.clone()).or_insert(i);
            let mut c = json!({
                "id": ac.ac_id,
                "severity": severity.as_str(),
                "validator": b.name,
                "targets": targets,
                "params": b.params,
            });
            if let Some(desc) = ac.rule.get("description").and_then(Value::as_str) {
                c["description"] = json!(desc);
            }
            self.origin.criteria.push(i);
            criteria.push(c);
        }
        (criteria, validators, used_rubrics)
    }

    /// The validator for an acceptance criterion, or why there is none.
    fn binding(
        &mut self,
        ac: &Acceptance,
        rubrics: &HashMap<&str, Option<f64>>,
        policy: Option<&Policy>,
        at: &FieldPath,
    ) -> Result<Binding, String> {
        if let Some(x) = &ac.explicit {
            return Ok(Binding {
                name: format!("{}-validator", ac.ac_id),
                component: x.component.clone(),
                digest: x.digest.clone(),
                params: x.params.clone().unwrap_or_else(|| json!({})),
                prefer: &[],
                reads: &[],
            });
        }
        let rule = &ac.rule;
        let std = |name: &str,
                   params: Value,
                   prefer: &'static [&'static str],
                   reads: &'static [&'static str]| Binding {
            name: name.to_string(),
            component: format!("std/{name}"),
            digest: None,
            params,
            prefer,
            reads,
        };
        match ac.kind.as_str() {
            "structure" => {
                let sections = rule
                    .get("requiredSections")
                    .and_then(Value::as_array)
                    .filter(|s| !s.is_empty())
                    .ok_or("`rule.requiredSections` is missing or empty")?;
                Ok(std(
                    "markdown-sections",
                    json!({"required": sections, "labels": true}),
                    TEXT,
                    &["requiredSections"],
                ))
            }
            "schema" => match rule.get("jsonSchema") {
                Some(Value::String(path)) if !is_path(path) => Err(format!(
                    "`rule.jsonSchema` is `{path}`, not a path under the deliverable root (vcc reads no network)"
                )),
                Some(Value::String(path)) => Ok(std(
                    "json-schema",
                    json!({"schema_file": path}),
                    JSON_OR_YAML,
                    &["jsonSchema"],
                )),
                Some(schema @ (Value::Object(_) | Value::Bool(_))) => Ok(std(
                    "json-schema",
                    json!({"schema": schema}),
                    JSON_OR_YAML,
                    &["jsonSchema"],
                )),
                _ => Err("`rule.jsonSchema` is missing".into()),
            },
            "traceability" => {
                let min = match rule.get("minCitationCoverage") {
                    Some(v) => v
                        .as_f64()
                        .ok_or("`rule.minCitationCoverage` is not a number")?,
                    // The reference validator's default when only a pattern is given.
                    None if rule.contains_key("citationPattern") => 0.5,
                    None => return Err("`rule.minCitationCoverage` is missing".into()),
                };
                let mut params = json!({"min_coverage": min});
                if let Some(p) = rule.get("citationPattern").and_then(Value::as_str) {
                    params["pattern"] = json!(p);
                }
                Ok(std(
                    "citation-coverage",
                    params,
                    TEXT,
                    &["minCitationCoverage", "citationPattern"],
                ))
            }
            "provenance" => {
                let declared: Vec<String> = match rule.get("require").and_then(Value::as_array) {
                    Some(list) => list
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    None => policy.map(|p| p.require.clone()).unwrap_or_default(),
                };
                let mut require = Vec::new();
                for r in declared {
                    if PROVENANCE_FIELDS.contains(&r.as_str()) {
                        require.push(r);
                    } else {
                        self.note(
                            Code::NotEvaluated,
                            at.key("rule"),
                            format!("provenance requirement `{r}` of `{}` is not evaluated (vcc cannot check it)", ac.ac_id),
                        );
                    }
                }
                let record = rule
                    .get("record")
                    .or_else(|| policy.and_then(|p| p.rest.get("x-vcc-record")))
                    .and_then(Value::as_str)
                    .unwrap_or("provenance.json");
                Ok(std(
                    "provenance",
                    json!({"require": require, "record": record}),
                    &[],
                    &["require", "record"],
                ))
            }
            "execution" => {
                if rule.get("passFailFromExitCode") == Some(&Value::Bool(false)) {
                    return Err("`rule.passFailFromExitCode` is false, and vcc judges execution by the exit code".into());
                }
                if let Some(adapter) = rule.get("adapter").and_then(Value::as_str) {
                    self.note(
                        Code::NotEvaluated,
                        at.key("rule").key("adapter"),
                        format!("`rule.adapter` `{adapter}` is not a vcc validator; std/exit-record judges the command record instead"),
                    );
                }
                let codes = rule
                    .get("allowedExitCodes")
                    .cloned()
                    .unwrap_or_else(|| json!([0]));
                Ok(std(
                    "exit-record",
                    json!({"allowed_exit_codes": codes}),
                    JSON,
                    &["passFailFromExitCode", "adapter", "allowedExitCodes"],
                ))
            }
            "rubric" => {
                let threshold = rule
                    .get("passThreshold")
                    .and_then(Value::as_f64)
                    .or_else(|| {
                        rule.get("rubricRef")
                            .and_then(Value::as_str)
                            .and_then(|r| rubrics.get(r).copied().flatten())
                    })
                    .ok_or("no `passThreshold` (in the rule or its rubric)")?;
                Ok(std(
                    "json-evidence",
                    json!({"rules": [{"path": "score", "gte": threshold, "message": format!("rubric score below the pass threshold {threshold}")}]}),
                    JSON,
                    &["passThreshold", "rubricRef"],
                ))
            }
            other => Err(format!("type `{other}` has no default vcc validator")),
        }
    }
}

const PROVENANCE_FIELDS: &[&str] = &[
    "inputs.enumerated",
    "tooling.recorded",
    "agentActions.logged",
    "artifactHashes.recorded",
    "dependencies.recorded",
    "parameters.recorded",
];

/// A relative path (not `scheme://…`, not absolute): something under the
/// deliverable root. Invalid paths (`..`) are still paths, refused by lint.
fn is_path(uri: &str) -> bool {
    let has_scheme = uri.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    !uri.is_empty() && !has_scheme && !uri.starts_with('/')
}

fn extension(uri: &str) -> String {
    let name = uri.rsplit('/').next().unwrap_or(uri);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()) => {
            ext.to_lowercase()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_that_are_paths() {
        assert!(is_path("out/report.md"));
        assert!(!is_path("worktree://run/branch"));
        assert!(!is_path("https://example.org/x"));
        assert!(!is_path("/abs/path"));
        assert!(!is_path("C:/x"));
        assert_eq!(extension("out/catalog.json"), "json");
        assert_eq!(extension("out/.hidden"), "");
    }

    #[test]
    fn origin_maps_native_fields_back() {
        let origin = Origin {
            criteria: vec![2],
            deliverables: vec![(1, 0)],
            validators: [("markdown-sections".to_string(), 2)].into(),
        };
        let root = FieldPath::root();
        assert_eq!(
            origin
                .map(&root.key("criteria").index(0).key("targets").index(1))
                .render(),
            "acceptance[2].targetArtifacts"
        );
        assert_eq!(
            origin
                .map(&root.key("deliverables").index(0).key("path"))
                .render(),
            "artifacts[1].formats[0].uri"
        );
        assert_eq!(
            origin
                .map(&root.key("validators").key("markdown-sections"))
                .render(),
            "acceptance[2].type"
        );
    }
}

#[cfg(test)]
mod translate_tests {
    use std::path::Path;

    use crate::problem::{Code, Level};
    use crate::{lint, parse};

    const V1: &str = r#"vccVersion: "sdlaf.vcc/v1"
id: "outspec-test-001"
title: "Test"
summary: "A test contract for the translator."
intent:
  problemStatement: "x"
artifacts:
  - artifactId: "A1"
    kind: "specification"
    formats:
      - mediaType: "text/markdown"
        uri: "docs/spec.md"
    required: true
    dependsOn: []
  - artifactId: "A2"
    kind: "dataset"
    formats:
      - { mediaType: "text/csv", uri: "data/catalog.csv" }
      - { mediaType: "application/json", uri: "data/catalog.json" }
    required: true
    dependsOn: ["A1"]
  - artifactId: "A3"
    kind: "implementation"
    formats:
      - { mediaType: "application/vnd.git", uri: "worktree://run/branch" }
    required: true
    dependsOn: []
acceptance:
  - acId: "AC-1"
    targetArtifacts: ["A1"]
    type: "structure"
    severity: "must"
    rule: { requiredSections: ["Scope"], checklist: ["x"] }
    evidence: { required: true, evidenceType: "auto" }
  - acId: "AC-2"
    targetArtifacts: ["A2"]
    type: "schema"
    severity: "must"
    rule: { jsonSchema: "schemas/catalog.schema.json" }
  - acId: "AC-3"
    targetArtifacts: ["A3"]
    type: "consistency"
    severity: "should"
    rule: { description: "x" }
gates: []
resourceConstraints: { maxIterations: 5, stagnationWindow: 2, maxTimeMs: 60000, maxCostUsd: 3 }
"#;

    #[test]
    fn artifacts_and_acceptance_become_deliverables_and_criteria() {
        let doc = parse(Path::new("c.yml"), V1.as_bytes()).unwrap();
        assert_eq!(doc.format, "sdlaf.vcc/v1");
        let c = &doc.contract;
        let ids: Vec<(&str, &str)> = c
            .deliverables
            .iter()
            .map(|d| (d.id.as_str(), d.path.as_str()))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("A1", "docs/spec.md"),
                ("A2.csv", "data/catalog.csv"),
                ("A2.json", "data/catalog.json")
            ]
        );
        assert_eq!(c.deliverables[2].depends_on, vec!["A1"]);
        let crits: Vec<(&str, &str, Vec<String>)> = c
            .criteria
            .iter()
            .map(|c| (c.id.as_str(), c.validator.as_str(), c.targets.clone()))
            .collect();
        assert_eq!(
            crits,
            vec![
                ("AC-1", "markdown-sections", vec!["A1".to_string()]),
                ("AC-2", "json-schema", vec!["A2.json".to_string()])
            ]
        );
        assert_eq!(c.validators["json-schema"].component, "std/json-schema");
        assert_eq!(
            c.criteria[1].params.as_ref().unwrap()["schema_file"],
            "schemas/catalog.schema.json"
        );
        let budget = c.budget.as_ref().unwrap();
        assert_eq!((budget.iterations, budget.stagnation), (Some(5), Some(2)));
        assert!(
            c.extensions.contains_key("x-vcc1-intent"),
            "unevaluated sections are kept"
        );
    }

    #[test]
    fn what_is_not_evaluated_is_said_with_its_line() {
        let doc = parse(Path::new("c.yml"), V1.as_bytes()).unwrap();
        let problems = lint(&doc, None, None);
        assert!(
            problems.iter().all(|p| p.level != Level::Error),
            "{problems:#?}"
        );
        let noted: Vec<&str> = problems
            .iter()
            .filter(|p| p.code == Code::NotEvaluated)
            .map(|p| p.field.as_deref().unwrap())
            .collect();
        for field in [
            "intent",
            "gates",
            "artifacts[2].formats[0].uri",
            "acceptance[0].rule.checklist",
            "acceptance[2].type",
        ] {
            assert!(noted.contains(&field), "{field} not noted in {noted:?}");
        }
        let uri = problems
            .iter()
            .find(|p| p.field.as_deref() == Some("artifacts[2].formats[0].uri"))
            .unwrap();
        assert_eq!(uri.line, Some(25));
        // Native problems point at the VCC fields they came from.
        let unchecked = problems
            .iter()
            .find(|p| p.code == Code::UncheckedDeliverable)
            .unwrap();
        assert_eq!(unchecked.field.as_deref(), Some("artifacts[1].artifactId"));
    }

    #[test]
    fn a_must_without_a_validator_is_unverifiable_like_the_reference() {
        let text = V1.replace(
            "type: \"consistency\"\n    severity: \"should\"",
            "type: \"consistency\"\n    severity: \"must\"",
        );
        let doc = parse(Path::new("c.yml"), text.as_bytes()).unwrap();
        let problems = lint(&doc, None, None);
        let p = problems
            .iter()
            .find(|p| p.code == Code::UnverifiableMust)
            .unwrap();
        assert_eq!(p.field.as_deref(), Some("acceptance[2].type"));
        assert!(
            p.message
                .contains("`consistency` has no default vcc validator"),
            "{}",
            p.message
        );
        assert!(p.is_error());
    }

    #[test]
    fn explicit_validators_and_bad_references() {
        let text = V1.replace(
            "    rule: { description: \"x\" }\n",
            "    rule: { description: \"x\" }\n    x-vcc-validator: { component: std/text-match, params: { must_match: [\"x\"] } }\n",
        )
        .replace("targetArtifacts: [\"A3\"]", "targetArtifacts: [\"A1\"]")
        .replace("dependsOn: [\"A1\"]", "dependsOn: [\"A9\"]");
        let doc = parse(Path::new("c.yml"), text.as_bytes()).unwrap();
        assert_eq!(doc.contract.criteria[2].validator, "AC-3-validator");
        let problems = lint(&doc, None, None);
        let dep = problems
            .iter()
            .find(|p| p.code == Code::UnknownDependency)
            .unwrap();
        assert_eq!(dep.field.as_deref(), Some("artifacts[1].dependsOn[0]"));
        let bad = parse(
            Path::new("c.yml"),
            V1.replace("sdlaf.vcc/v1", "other/v9").as_bytes(),
        )
        .unwrap_err();
        assert_eq!(bad.code, Code::UnsupportedVersion);
        assert_eq!(bad.line, Some(1));
    }
}
