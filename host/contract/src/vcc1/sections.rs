//! Acceptance criteria, gates, packaging and delivery.

use serde_json::{Map, Value, json};

use super::{Acceptance, Artifacts, Delivery, Note, Package, Translator, bind, is_path};
use crate::model::Severity;
use crate::problem::{Code, FieldPath, Level};

impl Translator {
    /// Packages and path deliveries are required deliverables; a zip or
    /// tar bundle is a MUST of std/package (its inputs byte for byte, its
    /// manifest); a remote delivery is a visible `skip` row.
    pub(super) fn packaging(
        &mut self,
        packages: &[Package],
        deliveries: &[Delivery],
        artifacts: &Artifacts,
    ) {
        let mut paths: Vec<String> = self
            .deliverables
            .iter()
            .filter_map(|d| d["path"].as_str().map(str::to_string))
            .collect();
        for (p, pkg) in packages.iter().enumerate() {
            let at = FieldPath::root().key("packaging").index(p);
            if !is_path(&pkg.uri) {
                // A visible `skip` row, like a remote delivery.
                let c = json!({
                    "id": pkg.package_id,
                    "severity": "should",
                    "not_evaluated": format!(
                        "package `{}` is at `{}`, not a path under the deliverable root; vcc cannot see it",
                        pkg.package_id, pkg.uri
                    ),
                    "description": format!("package `{}`", pkg.package_id),
                });
                self.criterion(c, at.clone(), Some((at.key("uri"), Code::UnverifiableMust)));
                continue;
            }
            if paths.contains(&pkg.uri) {
                continue;
            }
            paths.push(pkg.uri.clone());
            let d = json!({"id": pkg.package_id, "path": pkg.uri, "required": true,
                "description": format!("package `{}`", pkg.package_id)});
            self.deliverable(d, at.clone(), at.key("uri"));
            self.package(p, pkg, artifacts);
        }
        for (i, d) in deliveries.iter().enumerate() {
            let at = FieldPath::root().key("delivery").index(i);
            if is_path(&d.uri) {
                if !paths.contains(&d.uri) {
                    paths.push(d.uri.clone());
                    let del = json!({"id": d.delivery_id, "path": d.uri, "required": true,
                        "description": format!("delivery `{}`", d.delivery_id)});
                    self.deliverable(del, at.clone(), at.key("uri"));
                }
                continue;
            }
            let c = json!({
                "id": d.delivery_id,
                "severity": "should",
                "not_evaluated": format!(
                    "delivery `{}` goes to `{}` over {}, outside the deliverable root; vcc cannot see it",
                    d.delivery_id,
                    d.uri,
                    d.channel.as_deref().unwrap_or("an unnamed channel")
                ),
                "description": format!("delivery `{}`", d.delivery_id),
            });
            self.criterion(c, at.clone(), Some((at.key("uri"), Code::UnverifiableMust)));
        }
    }

    /// The criterion of one package: std/package for a zip or tar bundle;
    /// for another method or format, a visible `skip` (it must still
    /// exist: its own `deliverable:` row).
    fn package(&mut self, p: usize, pkg: &Package, artifacts: &Artifacts) {
        let at = FieldPath::root().key("packaging").index(p);
        let mut inputs = Vec::new();
        for (j, id) in pkg.inputs.iter().enumerate() {
            match artifacts.get(id) {
                Some(info) => inputs.extend(info.readable.iter().map(|r| r.id.clone())),
                None => self.note(
                    Code::UnknownTarget,
                    at.key("inputs").index(j),
                    format!(
                        "package `{}` lists input `{id}`, which is not an artifact",
                        pkg.package_id
                    ),
                ),
            }
        }
        let format = pkg.format.to_lowercase();
        let readable = ["zip", "tar", "tar.gz", "tgz"].contains(&format.as_str());
        let description = format!(
            "package `{}` ({} {})",
            pkg.package_id, pkg.method, pkg.format
        );
        if pkg.method == "bundle" && readable {
            self.validators
                .insert("package".into(), json!({"component": "std/package"}));
            self.origin
                .validators
                .entry("package".into())
                .or_insert_with(|| at.key("format"));
            let c = json!({
                "id": pkg.package_id,
                "severity": "must",
                "validator": "package",
                "targets": [pkg.package_id],
                "params": {"inputs": inputs, "manifest": pkg.manifest_required},
                "description": description,
            });
            self.criterion(c, at, None);
            return;
        }
        let field = if readable {
            at.key("method")
        } else {
            at.key("format")
        };
        let c = json!({
            "id": pkg.package_id,
            "severity": "should",
            "not_evaluated": format!(
                "package `{}` is a `{}` of format `{}`: std/package checks zip and tar bundles; vcc checks only that it exists",
                pkg.package_id, pkg.method, pkg.format
            ),
            "description": description,
        });
        self.criterion(c, at, Some((field, Code::UnverifiableMust)));
    }

    /// Gates: approvals of a role (`human`, `ai`) are signed statements;
    /// an `auto` approval of a provenance policy is the provenance
    /// criterion, or the host's provenance row.
    /// The judges the contract names (`x-vcc-judges`) and the `--adapters`
    /// file adds; one name defined twice, differently, is an error.
    pub(super) fn judges(
        &mut self,
        own: Option<&Value>,
        mapped: &Map<String, Value>,
    ) -> Map<String, Value> {
        let key = FieldPath::root().key(super::JUDGES_KEY);
        let mut out = match own {
            Some(Value::Object(map)) => map.clone(),
            Some(_) => {
                self.note(
                    Code::InvalidValue,
                    key.clone(),
                    format!(
                        "`{}` is a map of judge name → {{ provider, model, params }}",
                        super::JUDGES_KEY
                    ),
                );
                Map::new()
            }
            None => Map::new(),
        };
        for (name, judge) in mapped {
            match out.get(name) {
                Some(mine) if mine != judge => self.note(
                    Code::InvalidValue,
                    key.key(name),
                    format!("judge `{name}` is defined by the contract and, differently, by the --adapters file"),
                ),
                _ => {
                    out.insert(name.clone(), judge.clone());
                }
            }
        }
        out
    }

    pub(super) fn gates(
        &mut self,
        gates: &Value,
        native: &Map<String, Value>,
        provenance: Option<&str>,
        cx: &bind::Context,
    ) -> Vec<Value> {
        let list = FieldPath::root().key("gates");
        let mut out = Vec::new();
        for (g, gate) in gates.as_array().into_iter().flatten().enumerate() {
            let at = list.index(g);
            let id = gate
                .get("gateId")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let when = gate
                .get("when")
                .and_then(Value::as_str)
                .unwrap_or("before_final");
            let mut criteria = Vec::new();
            let mut approvals = Vec::new();
            let required = gate.get("requiredApprovals").and_then(Value::as_array);
            for (j, a) in required.into_iter().flatten().enumerate() {
                let field = at.key("requiredApprovals").index(j);
                let kind = a.get("type").and_then(Value::as_str).unwrap_or_default();
                if kind == "auto" {
                    let policy_ref = a
                        .pointer("/rule/provenancePolicyRef")
                        .and_then(Value::as_str);
                    let policy_id = native
                        .get("x-vcc1-provenancePolicy")
                        .and_then(|p| p.get("policyId"))
                        .and_then(Value::as_str);
                    match (policy_ref, provenance) {
                        (Some(r), Some(criterion)) if Some(r) == policy_id => {
                            criteria.push(json!(criterion));
                        }
                        (Some(r), None) if Some(r) == policy_id => {
                            criteria.push(json!(crate::model::provenance_id(r)));
                        }
                        (Some(r), _) => self.note(
                            Code::UnknownTarget,
                            field.key("rule").key("provenancePolicyRef"),
                            format!("gate `{id}` refers to provenance policy `{r}`, which is not the contract's `provenancePolicy.policyId`"),
                        ),
                        (None, _) => self.notes.push(Note {
                            code: Code::UnverifiableMust,
                            level: Level::Error,
                            field: field.key("rule"),
                            message: format!("gate `{id}` has an `auto` approval vcc cannot evaluate: only `rule.provenancePolicyRef` is understood"),
                            help: Some("refer to the provenance policy, or make it a `human` approval (a signed statement, `vcc approve`)".into()),
                        }),
                    }
                    continue;
                }
                let role = a
                    .get("role")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .trim_start_matches("role:");
                let mut req = json!({"role": role, "by": kind});
                if let Some(t) = a.get("passThreshold") {
                    req["min_score"] = t.clone();
                }
                if let Some(r) = a.get("rubricId") {
                    // As the reference refuses it: an approval on a rubric
                    // nobody declared has no scale or anchors to judge by.
                    if let Some(name) = r.as_str()
                        && !cx.rubrics.contains_key(name)
                    {
                        self.notes.push(Note {
                            code: Code::GateRubricRefMissing,
                            level: Level::Error,
                            field: field.key("rubricId"),
                            message: format!("gate `{id}`: the `{kind}` approval of role `{role}` is on rubric `{name}`, which the contract does not declare"),
                            help: Some(format!("declare it under `rubrics:` (`- rubricId: \"{name}\"` with its scale, anchors and passThreshold), or name a declared rubric")),
                        });
                    }
                    req["rubric"] = r.clone();
                }
                if a.get("optional") == Some(&Value::Bool(true)) {
                    req["optional"] = json!(true);
                }
                if kind == "ai"
                    && let Some(rubric) = a.get("rubricId").and_then(Value::as_str)
                {
                    let threshold = a.get("passThreshold").and_then(Value::as_f64);
                    if let Some(judge) = self.judged_approval(id, role, rubric, threshold, cx) {
                        req["judged_by"] = json!(judge);
                    }
                }
                if role.is_empty() {
                    self.notes.push(Note {
                        code: Code::MissingField,
                        level: Level::Error,
                        field: field.clone(),
                        message: format!("gate `{id}`: a `{kind}` approval needs a `role` whose signed approval counts"),
                        help: Some("add `role: \"role:Reviewer\"` and list the reviewers' keys under `roles:` in the trust policy".into()),
                    });
                }
                approvals.push(req);
            }
            out.push(json!({"id": id, "when": when, "criteria": criteria, "approvals": approvals}));
        }
        out
    }

    /// The criterion whose judgment stands for a gate's `ai` approval: a
    /// rubric criterion of the contract with the same rubric and
    /// threshold, else a new std/rubric criterion (`GATE.ROLE`, a SHOULD:
    /// the gate's MUST row holds the verdict) over the text formats of
    /// every required artifact. None without judges: the approval is then
    /// a signed statement only.
    fn judged_approval(
        &mut self,
        gate: &str,
        role: &str,
        rubric: &str,
        threshold: Option<f64>,
        cx: &bind::Context,
    ) -> Option<String> {
        if cx.judges.is_empty() {
            return None;
        }
        let r = cx.rubrics.get(rubric).copied();
        let threshold = threshold.or_else(|| r.and_then(|r| r.pass_threshold))?;
        let same = self.criteria.iter().find(|c| {
            c["validator"] == "rubric"
                && c["params"]["rubric"]["id"] == rubric
                && c["params"]["threshold"].as_f64() == Some(threshold)
        });
        if let Some(c) = same {
            return c["id"].as_str().map(str::to_string);
        }
        let mut ids: Vec<&String> = cx.artifacts.keys().collect();
        ids.sort();
        let targets: Vec<String> = ids
            .iter()
            .filter_map(|id| cx.artifacts.get(*id))
            .flat_map(|info| info.readable.iter().filter(|r| bind::is_text(r)))
            .map(|r| r.id.clone())
            .collect();
        if targets.is_empty() {
            return None;
        }
        let id: String = format!("{gate}.{role}")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let question = format!(
            "Would the {role} approve these deliverables at gate `{gate}`, against rubric `{rubric}`?"
        );
        let params = bind::rubric_params(r, Some(rubric), threshold, &question, &[], cx.intent);
        self.validators
            .insert("rubric".into(), json!({"component": "std/rubric"}));
        self.criterion(
            json!({
                "id": id,
                "severity": "should",
                "description": format!("the AI judgment that stands for the `{role}` approval of gate `{gate}`"),
                "validator": "rubric",
                "targets": targets,
                "judges": cx.judges,
                "params": params,
            }),
            FieldPath::root().key("gates"),
            None,
        );
        Some(id)
    }

    /// Acceptance criteria; returns the rubrics they use.
    pub(super) fn acceptance(
        &mut self,
        acceptance: &[Acceptance],
        cx: &bind::Context,
    ) -> Vec<String> {
        let list = FieldPath::root().key("acceptance");
        let mut used_rubrics = Vec::new();
        for (i, ac) in acceptance.iter().enumerate() {
            let at = list.index(i);
            let severity = match ac.severity.as_str() {
                "must" => Severity::Must,
                "should" => Severity::Should,
                _ => Severity::May,
            };
            if let Some(r) = ac.rule.get("rubricRef").and_then(Value::as_str) {
                if cx.rubrics.contains_key(r) {
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
            let mut unknown = false;
            for (j, t) in ac.target_artifacts.iter().enumerate() {
                if !cx.artifacts.contains_key(t) {
                    unknown = true;
                    self.note(
                        Code::UnknownTarget,
                        at.key("targetArtifacts").index(j),
                        format!(
                            "acceptance `{}` targets `{t}`, which is not an artifact",
                            ac.ac_id
                        ),
                    );
                }
            }
            if unknown {
                continue;
            }
            let bound = bind::bind(ac, cx, &at);
            for note in bound.notes {
                self.notes.push(note);
            }
            for d in bound.deliverables {
                let path = at.key("rule").key("adapter");
                self.deliverable(d, at.clone(), path);
            }
            let mut c = json!({
                "id": ac.ac_id,
                "severity": severity.as_str(),
            });
            if let Some(desc) = ac.rule.get("description").and_then(Value::as_str) {
                c["description"] = json!(desc);
            }
            if let Some(produced) = ac
                .evidence
                .as_ref()
                .and_then(|e| e.get("producedArtifact"))
                .and_then(Value::as_str)
            {
                c[super::PRODUCED_KEY] = json!(produced);
            }
            let blame = match bound.outcome {
                Ok(b) => {
                    self.validators.insert(b.name.clone(), b.entry);
                    self.origin
                        .validators
                        .entry(b.name.clone())
                        .or_insert_with(|| at.key("type"));
                    c["validator"] = json!(b.name);
                    c["targets"] = json!(b.targets);
                    c["params"] = b.params;
                    if !b.judges.is_empty() {
                        c["judges"] = json!(b.judges);
                    }
                    None
                }
                Err(why) => {
                    c["not_evaluated"] = json!(why.reason);
                    c["targets"] = json!(why.targets);
                    Some((why.field, why.code))
                }
            };
            // A param refused by the validator points at the field it came
            // from, not at `rule`.
            let index = self.criteria.len();
            for (param, field, given) in [
                ("max_variance", "varianceMax", ac.variance_max.is_some()),
                (
                    "confidence",
                    "confidenceThreshold",
                    ac.confidence_threshold.is_some(),
                ),
                (
                    "threshold",
                    "passThreshold",
                    ac.rule.contains_key("passThreshold"),
                ),
            ] {
                if given {
                    let from = match field {
                        "passThreshold" => at.key("rule").key(field),
                        _ => at.key(field),
                    };
                    self.origin.params.insert((index, param.to_string()), from);
                }
            }
            if ac.kind == "rubric" || ac.confidence_threshold.is_some() || ac.variance_max.is_some()
            {
                // Carried for the AI judge: what it must reach.
                c["x-vcc1-judge"] = json!({
                    "rubricRef": ac.rule.get("rubricRef"),
                    "passThreshold": ac.rule.get("passThreshold"),
                    "confidenceThreshold": ac.confidence_threshold,
                    "varianceMax": ac.variance_max,
                });
            }
            self.criterion(c, at, blame);
        }
        used_rubrics
    }
}
