//! Contracts written to the published VCC v1 schema (`vccVersion:
//! "sdlaf.vcc/v1"`, also spelt `agentforge.vcc/v1`) load without editing:
//! they are checked against the specification's own JSON Schema
//! ([`schema`]), then translated into the native model here, before the
//! integrity pass; every problem found in them points at the VCC field and
//! its line.
//!
//! Nothing is dropped from a MUST:
//! - `artifacts[]` become deliverables, one per `formats[]` entry whose
//!   `uri` is a path under the deliverable root. A URI that is not a path
//!   (`worktree://…`) is read only through a mapping: `x-vcc-path: DIR` on
//!   the artifact, or `vcc check --artifact-root ARTIFACT=DIR` ([`Mapping`]).
//!   A required artifact nothing can read is a MUST vcc cannot verify.
//! - `acceptance[]` become criteria; [`bind`] picks the validator from the
//!   `type` (or `x-vcc-validator`). A criterion no validator can judge is
//!   kept as a criterion with `not_evaluated`: a MUST is refused at lint
//!   (`UNVERIFIABLE_MUST`, or `EXPLICIT_VALIDATOR_MISSING` for an unmapped
//!   adapter), a SHOULD or MAY is a visible `skip` row in every report.
//! - `packaging[]` and `delivery[]` URIs that are paths are required
//!   deliverables (the host checks each exists); a remote delivery is a
//!   visible `skip` row.
//! - Other sections (intent, relationships, gates, riskControls, …) are
//!   kept as `x-vcc1-…` extensions and listed as notes.

mod artifacts;
mod bind;
mod origin;
mod schema;
mod sections;
#[cfg(test)]
mod tests;

#[cfg(test)]
use artifacts::extension;
pub(crate) use artifacts::{Artifacts, Readable, is_path};
pub use origin::Origin;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::problem::{Code, FieldPath, Level, Seg};

/// The `vccVersion` values this translator reads.
pub const VERSIONS: [&str; 2] = ["sdlaf.vcc/v1", "agentforge.vcc/v1"];

/// The extension on an artifact that maps a URI which is not a path
/// (`worktree://…`) to a folder or file under the deliverable root.
pub const PATH_KEY: &str = "x-vcc-path";
/// The top-level extension mapping `rule.adapter` names to validators.
pub const ADAPTERS_KEY: &str = "x-vcc-adapters";
/// The extension on a translated criterion that keeps its
/// `evidence.producedArtifact`: the report names it on the criterion's row.
pub const PRODUCED_KEY: &str = "x-vcc1-producedArtifact";
/// The top-level extension naming the AI judges of `ai-judged` rubrics
/// and `ai` gate approvals (as a native contract's `judges`); in the
/// `--adapters` file too.
pub const JUDGES_KEY: &str = "x-vcc-judges";

/// What the command line adds to a VCC v1 contract without editing it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mapping {
    /// `--artifact-root ARTIFACT=DIR`: where an artifact whose URI is not
    /// a path lives, relative to the deliverable root.
    pub artifact_roots: BTreeMap<String, String>,
    /// `--adapters FILE`: adapter name → binding, as in `x-vcc-adapters`.
    pub adapters: Map<String, Value>,
    /// `x-vcc-judges` in the `--adapters` file: judge name → judge.
    pub judges: Map<String, Value>,
}

impl Mapping {
    pub fn is_empty(&self) -> bool {
        self.artifact_roots.is_empty() && self.adapters.is_empty() && self.judges.is_empty()
    }

    /// The mapping `--artifact-root ARTIFACT=DIR` (repeatable) and
    /// `--adapters FILE` (YAML or JSON: adapter name → binding) give.
    pub fn from_args(roots: &[String], adapters: Option<&Path>) -> Result<Mapping, String> {
        let mut mapping = Mapping::default();
        for r in roots {
            let (name, dir) = r
                .split_once('=')
                .filter(|(n, d)| !n.is_empty() && !d.is_empty())
                .ok_or_else(|| {
                    format!("--artifact-root `{r}`: write ARTIFACT=DIR, e.g. `A2=repo`")
                })?;
            if !is_path(dir) {
                return Err(format!(
                    "--artifact-root `{r}`: `{dir}` must be a path relative to the deliverable root"
                ));
            }
            // `repo`, `repo/` and `./repo` are one folder: one digest.
            let dir = match crate::paths::check(dir) {
                Ok(crate::paths::PathSpec::Literal(p) | crate::paths::PathSpec::Glob(p)) => p,
                Err((_, why)) => return Err(format!("--artifact-root `{r}`: {why}")),
            };
            if mapping
                .artifact_roots
                .insert(name.to_string(), dir)
                .is_some()
            {
                return Err(format!("--artifact-root maps `{name}` twice"));
            }
        }
        if let Some(file) = adapters {
            let shown = file.display();
            let meta = std::fs::metadata(file).map_err(|e| format!("--adapters {shown}: {e}"))?;
            // A device or a FIFO has no length to bound the read by.
            if !meta.is_file() {
                return Err(format!("--adapters {shown}: not a regular file"));
            }
            if meta.len() > crate::MAX_CONTRACT_BYTES {
                return Err(format!("--adapters {shown}: larger than a contract may be"));
            }
            // Bounded: the file may grow after it was looked at.
            let mut text = String::new();
            std::fs::File::open(file)
                .and_then(|f| {
                    std::io::Read::read_to_string(
                        &mut std::io::Read::take(f, crate::MAX_CONTRACT_BYTES),
                        &mut text,
                    )
                })
                .map_err(|e| format!("--adapters {shown}: {e}"))?;
            let value = crate::parse::parse_yaml_value(&text).map_err(|(_, message, at)| {
                let at = at.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default();
                format!("--adapters {shown}{at}: {message}")
            })?;
            match value {
                Value::Object(mut map) => {
                    match map.remove(JUDGES_KEY) {
                        Some(Value::Object(judges)) => mapping.judges = judges,
                        Some(_) => {
                            return Err(format!(
                                "--adapters {shown}: `{JUDGES_KEY}` is a map of judge name → {{ provider, model, params }}"
                            ));
                        }
                        None => {}
                    }
                    mapping.adapters = map;
                }
                _ => {
                    return Err(format!(
                        "--adapters {shown}: expected a map of adapter name → binding, e.g. `software.tests.run: {{ component: std/exit-record, record: evidence/tests.vcc.json }}`"
                    ));
                }
            }
        }
        Ok(mapping)
    }

    /// Canonical bytes of the mapping: it changes what the contract means,
    /// so it is part of the contract's digest.
    pub fn canonical(&self) -> String {
        let mut canonical =
            json!({"artifact_roots": self.artifact_roots, "adapters": self.adapters});
        // Absent when empty: the digests of mappings without judges stay.
        if !self.judges.is_empty() {
            canonical["judges"] = json!(self.judges);
        }
        canonical.to_string()
    }
}

/// A note or problem found while translating, at a field of the VCC document.
pub struct Note {
    pub code: Code,
    pub level: Level,
    pub field: FieldPath,
    pub message: String,
    pub help: Option<String>,
}

pub struct Translated {
    /// A native contract document (JSON), ready for the typed model.
    pub native: Value,
    pub notes: Vec<Note>,
    pub origin: Origin,
    pub version: String,
}

/// A problem that keeps the document from being translated: (code, field,
/// message).
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
    #[serde(default)]
    packaging: Vec<Package>,
    #[serde(default)]
    delivery: Vec<Delivery>,
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
    kind: String,
    #[serde(default)]
    formats: Vec<Format>,
    #[serde(default = "yes")]
    required: bool,
    #[serde(default)]
    depends_on: Vec<String>,
    description: Option<String>,
    #[serde(rename = "x-vcc-path")]
    mapped: Option<String>,
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
    confidence_threshold: Option<f64>,
    variance_max: Option<f64>,
    #[serde(rename = "x-vcc-validator")]
    explicit: Option<Explicit>,
}

/// `x-vcc-validator` (and an adapter's binding): a built-in or a `.wasm`
/// component, or a validator of a signed bundle.
#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct Explicit {
    pub(crate) component: Option<String>,
    digest: Option<String>,
    pub(crate) bundle: Option<String>,
    validator: Option<String>,
    version: Option<String>,
    pub(crate) params: Option<Value>,
    /// Adapters only: the command record (`vcc record`) of the run.
    record: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rubric {
    rubric_id: String,
    pass_threshold: Option<f64>,
    #[serde(default)]
    scale: Vec<Value>,
    #[serde(default)]
    anchors: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Package {
    package_id: String,
    uri: String,
    #[serde(default)]
    inputs: Vec<String>,
    #[serde(default)]
    method: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    manifest_required: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Delivery {
    delivery_id: String,
    channel: Option<String>,
    uri: String,
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

/// Sections of a VCC v1 document vcc keeps but does not evaluate.
const KEPT: &[&str] = &["summary", "intent", "relationships", "riskControls"];

/// Sections translated on their own (not kept as `x-vcc1-…`).
const TRANSLATED: &[&str] = &["gates"];

/// Translate a parsed VCC v1 document. `dir` is the contract's folder
/// (rule paths such as `jsonSchema` are the author's files, beside the
/// contract); `mapping` is what the command line adds.
pub fn translate(
    mut doc: Value,
    dir: Option<&Path>,
    mapping: &Mapping,
) -> Result<Translated, Vec<Failure>> {
    let root = FieldPath::root();
    let version = doc.get("vccVersion").and_then(Value::as_str).unwrap_or("");
    if !VERSIONS.contains(&version) {
        return Err(vec![(
            Code::UnsupportedVersion,
            root.key("vccVersion"),
            format!(
                "unsupported vccVersion `{version}`: this vcc reads {} (and its native `vcc: 1`)",
                VERSIONS.join(", ")
            ),
        )]);
    }
    let violations = schema::violations(&doc);
    if !violations.is_empty() {
        return Err(violations);
    }
    apply_mapping(&mut doc, mapping)?;
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
        vec![(code, field, message)]
    })?;
    let mut t = Translator {
        notes: Vec::new(),
        origin: Origin::default(),
        deliverables: Vec::new(),
        criteria: Vec::new(),
        validators: Map::new(),
    };
    let mut native = Map::new();
    native.insert("vcc".into(), json!(1));
    native.insert("id".into(), json!(v1.id));
    if let Some(title) = &v1.title {
        native.insert("title".into(), json!(title));
    }
    for (key, value) in &v1.rest {
        if TRANSLATED.contains(&key.as_str()) {
            continue;
        }
        if key.starts_with("x-") {
            if key != ADAPTERS_KEY && key != JUDGES_KEY {
                native.insert(key.clone(), value.clone());
            }
            continue;
        }
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

    let artifacts = t.artifacts(&v1.artifacts);
    let rubrics: HashMap<&str, &Rubric> = v1
        .rubrics
        .iter()
        .map(|r| (r.rubric_id.as_str(), r))
        .collect();
    let judges = t.judges(v1.rest.get(JUDGES_KEY), &mapping.judges);
    if !judges.is_empty() {
        native.insert("judges".into(), Value::Object(judges.clone()));
    }
    let mut adapters = mapping.adapters.clone();
    if let Some(Value::Object(own)) = v1.rest.get(ADAPTERS_KEY) {
        for (name, binding) in own {
            adapters.insert(name.clone(), binding.clone());
        }
    }
    let context = bind::Context {
        artifacts: &artifacts,
        rubrics: &rubrics,
        policy: v1.provenance_policy.as_ref(),
        adapters: &adapters,
        dir,
        judges: judges.keys().cloned().collect(),
        intent: v1.rest.get("intent"),
    };
    let used_rubrics = t.acceptance(&v1.acceptance, &context);
    t.packaging(&v1.packaging, &v1.delivery, &artifacts);
    for (i, r) in v1.rubrics.iter().enumerate() {
        if !used_rubrics.contains(&r.rubric_id) && !gate_uses(&v1.rest, &r.rubric_id) {
            t.note(
                Code::NotEvaluated,
                root.key("rubrics").index(i),
                format!(
                    "rubric `{}` is used by no rubric criterion and no gate",
                    r.rubric_id
                ),
            );
        }
    }
    if !v1.rubrics.is_empty() {
        let kept: Vec<Value> = v1
            .rubrics
            .iter()
            .map(|r| {
                json!({"rubricId": r.rubric_id, "passThreshold": r.pass_threshold, "scale": r.scale, "anchors": r.anchors})
            })
            .collect();
        native.insert("x-vcc1-rubrics".into(), Value::Array(kept));
    }
    if let Some(policy) = &v1.provenance_policy {
        let mut kept = policy.rest.clone();
        kept.insert("require".into(), json!(policy.require));
        native.insert("x-vcc1-provenancePolicy".into(), Value::Object(kept));
        // Without a provenance criterion, the run's own provenance is
        // checked against the policy: a MUST row of the host's.
        if !v1.acceptance.iter().any(|a| a.kind == "provenance") {
            let id = policy
                .rest
                .get("policyId")
                .and_then(Value::as_str)
                .unwrap_or("provenancePolicy");
            native.insert(
                "provenance".into(),
                json!({"id": id, "require": policy.require}),
            );
        }
    }
    let gates = v1.rest.get("gates").cloned().unwrap_or(Value::Null);
    let provenance_criterion = v1
        .acceptance
        .iter()
        .find(|a| a.kind == "provenance")
        .map(|a| a.ac_id.clone());
    let native_gates = t.gates(&gates, &native, provenance_criterion.as_deref(), &context);
    if !native_gates.is_empty() {
        native.insert("gates".into(), Value::Array(native_gates));
    }
    if let Some(c) = &v1.resource_constraints {
        native.insert("budget".into(), budget(c));
    }
    native.insert("deliverables".into(), Value::Array(t.deliverables));
    native.insert("criteria".into(), Value::Array(t.criteria));
    native.insert("validators".into(), Value::Object(t.validators));
    Ok(Translated {
        native: Value::Object(native),
        notes: t.notes,
        origin: t.origin,
        version: v1.vcc_version,
    })
}

/// `--artifact-root` entries become `x-vcc-path` on their artifacts.
fn apply_mapping(doc: &mut Value, mapping: &Mapping) -> Result<(), Vec<Failure>> {
    let mut failures = Vec::new();
    for (name, dir) in &mapping.artifact_roots {
        let found = doc
            .get_mut("artifacts")
            .and_then(Value::as_array_mut)
            .and_then(|list| {
                list.iter_mut()
                    .enumerate()
                    .find(|(_, a)| a.get("artifactId").and_then(Value::as_str) == Some(name))
            });
        match found {
            Some((a, artifact)) => {
                if artifact.get(PATH_KEY).is_some() {
                    failures.push((
                        Code::InvalidValue,
                        FieldPath::root().key("artifacts").index(a).key(PATH_KEY),
                        format!("--artifact-root maps `{name}`, which the contract already maps with `{PATH_KEY}`"),
                    ));
                } else {
                    artifact[PATH_KEY] = json!(dir);
                }
            }
            None => failures.push((
                Code::UnknownTarget,
                FieldPath::root().key("artifacts"),
                format!(
                    "--artifact-root names `{name}`, which is not an artifactId of the contract"
                ),
            )),
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

/// Whether a gate's approval names the rubric (it is used, by the gate).
fn gate_uses(rest: &Map<String, Value>, rubric: &str) -> bool {
    rest.get("gates")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|g| g.get("requiredApprovals").and_then(Value::as_array))
        .flatten()
        .any(|a| a.get("rubricId").and_then(Value::as_str) == Some(rubric))
}

fn budget(c: &Constraints) -> Value {
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
    Value::Object(budget)
}

struct Translator {
    notes: Vec<Note>,
    origin: Origin,
    deliverables: Vec<Value>,
    criteria: Vec<Value>,
    validators: Map<String, Value>,
}

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

    fn deliverable(&mut self, d: Value, at: FieldPath, path: FieldPath) {
        self.origin.deliverables.push((at, path));
        self.deliverables.push(d);
    }

    /// A criterion, where it came from, and (when vcc cannot judge it)
    /// the field that says why.
    fn criterion(&mut self, c: Value, at: FieldPath, blame: Option<(FieldPath, Code)>) {
        self.origin.criteria.push(at);
        self.origin.blame.push(blame);
        self.criteria.push(c);
    }
}
