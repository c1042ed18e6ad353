//! One binder per VCC v1 evidence type: what a criterion of that type runs
//! (a standard validator and its params), or why it cannot be evaluated.

use super::*;

/// The largest variance scores normalised to 0..1 can have.
const MAX_VARIANCE: f64 = 0.25;

impl Binder<'_> {
    pub(super) fn structure(&mut self) -> Result<Std, NotEvaluated> {
        let sections = self
            .ac
            .rule
            .get("requiredSections")
            .and_then(Value::as_array)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                self.refuse("rule", "`rule.requiredSections` is missing or empty".into())
            })?;
        Ok((
            "markdown-sections",
            json!({"required": sections, "labels": true}),
            TEXT,
            &["requiredSections"],
        ))
    }

    pub(super) fn schema(&mut self) -> Result<Std, NotEvaluated> {
        let params = match self.ac.rule.get("jsonSchema") {
            Some(Value::String(path)) if !crate::vcc1::is_path(path) => {
                return Err(self.refuse_at(
                    self.at.key("rule").key("jsonSchema"),
                    format!("`rule.jsonSchema` is `{path}`, not a path (vcc reads no network): put the schema beside the contract"),
                    Code::UnverifiableMust,
                ));
            }
            // The specification's authors write schema paths as their own
            // files, beside the contract: those are the contract's (pinned
            // with it); otherwise the schema is looked for under the root.
            Some(Value::String(path)) if self.cx.dir.is_some_and(|d| d.join(path).is_file()) => {
                json!({"schema": {crate::model::FILE_KEY: path}})
            }
            Some(Value::String(path)) => json!({"schema_file": path}),
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => json!({"schema": schema}),
            _ => return Err(self.refuse("rule", "`rule.jsonSchema` is missing".into())),
        };
        Ok(("json-schema", params, DATA, &["jsonSchema"]))
    }

    pub(super) fn traceability(&mut self) -> Result<Std, NotEvaluated> {
        let rule = &self.ac.rule;
        let min = match rule.get("minCitationCoverage") {
            Some(v) => v.as_f64().ok_or_else(|| {
                self.refuse("rule", "`rule.minCitationCoverage` is not a number".into())
            })?,
            // The reference validator's default when only a pattern is given.
            None if rule.contains_key("citationPattern") => 0.5,
            None => {
                return Err(self.refuse("rule", "`rule.minCitationCoverage` is missing".into()));
            }
        };
        let mut params = json!({"min_coverage": min});
        if let Some(p) = rule.get("citationPattern").and_then(Value::as_str) {
            params["pattern"] = json!(p);
        }
        Ok((
            "citation-coverage",
            params,
            TEXT,
            &["minCitationCoverage", "citationPattern"],
        ))
    }

    /// The targets are cross-checked; the specification artifacts among
    /// them and the artifacts they depend on define the requirement ids.
    pub(super) fn consistency(&mut self) -> Std {
        let mut spec = Vec::new();
        let mut seen = Vec::new();
        let mut todo: Vec<&String> = self.ac.target_artifacts.iter().collect();
        while let Some(t) = todo.pop() {
            if seen.contains(t) {
                continue;
            }
            seen.push(t.clone());
            if let Some(info) = self.cx.artifacts.get(t) {
                if info.kind == "specification" {
                    spec.extend(info.readable.iter().map(|r| r.id.clone()));
                }
                todo.extend(info.depends_on_ids.iter());
            }
        }
        let trace = self.ac.rule.get("requireTraceMatrix") == Some(&Value::Bool(true));
        let mut params = json!({"trace_matrix": trace});
        if !spec.is_empty() {
            params["specification"] = json!(spec);
        }
        ("consistency", params, &[], &["requireTraceMatrix"])
    }

    pub(super) fn provenance(&mut self) -> Std {
        let rule = &self.ac.rule;
        let declared: Vec<String> = match rule.get("require").and_then(Value::as_array) {
            Some(list) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            None => self
                .cx
                .policy
                .map(|p| p.require.clone())
                .unwrap_or_default(),
        };
        let require: Vec<&String> = declared
            .iter()
            .filter(|r| *r != SIGNED && PROVENANCE_REQUIREMENTS.contains(&r.as_str()))
            .collect();
        let record = rule
            .get("record")
            .or_else(|| self.cx.policy.and_then(|p| p.rest.get("x-vcc-record")))
            .and_then(Value::as_str)
            .unwrap_or("provenance.json");
        let mut params = json!({"require": require, "record": record});
        if declared.iter().any(|r| r == SIGNED) {
            // Signed by a key the trust policy names for records; the host
            // verifies the signature, never the validator.
            params["require_signed"] = json!(true);
        }
        ("provenance", params, &[], &["require", "record"])
    }

    pub(super) fn execution(&mut self) -> Result<Binding, NotEvaluated> {
        let rule = &self.ac.rule;
        if rule.get("passFailFromExitCode") == Some(&Value::Bool(false)) {
            return Err(self.refuse_at(
                self.at.key("rule").key("passFailFromExitCode"),
                "`rule.passFailFromExitCode` is false, and vcc judges execution by the exit code"
                    .into(),
                Code::UnverifiableMust,
            ));
        }
        if let Some(adapter) = rule.get("adapter").and_then(Value::as_str) {
            let field = self.at.key("rule").key("adapter");
            let Some(binding) = self.cx.adapters.get(adapter) else {
                return Err(self.refuse_at(
                    field,
                    format!(
                        "adapter `{adapter}` is not mapped to a validator; map it in `x-vcc-adapters` (or `vcc check --adapters FILE`), e.g. `{adapter}: {{ component: std/exit-record, record: evidence/tests.vcc.json, params: {{ command_matches: \"pytest\" }} }}`"
                    ),
                    Code::ExplicitValidatorMissing,
                ));
            };
            let x: Explicit = match serde_json::from_value(binding.clone()) {
                Ok(x) => x,
                Err(e) => {
                    let reason = format!("the binding of adapter `{adapter}` is not valid: {e}");
                    self.note(
                        Code::InvalidValue,
                        Level::Error,
                        field.clone(),
                        reason.clone(),
                    );
                    return Err(self.refuse_at(field, reason, Code::InvalidValue));
                }
            };
            let mut b = self.explicit(&x, &field, Some(adapter))?;
            if x.component.as_deref() == Some("std/exit-record")
                && let Some(codes) = rule.get("allowedExitCodes")
                && b.params.get("allowed_exit_codes").is_none()
            {
                b.params["allowed_exit_codes"] = codes.clone();
            }
            return Ok(b);
        }
        self.unreadable()?;
        let readable = self.readable();
        let junit = readable.iter().all(|r| is_junit(r));
        let records = readable
            .iter()
            .all(|r| JSON.iter().any(|p| r.media.contains(p)));
        if !readable.is_empty() && junit {
            return Ok(Binding {
                name: "junit".into(),
                entry: json!({"component": "std/junit"}),
                targets: self.targets(&[]),
                params: json!({}),
                judges: Vec::new(),
            });
        }
        if readable.is_empty() || !records {
            let plain: Vec<String> = readable
                .iter()
                .filter(|r| !is_junit(r) && !JSON.iter().any(|p| r.media.contains(p)))
                .map(|r| {
                    format!(
                        "`{}` ({})",
                        r.uri,
                        if r.media.is_empty() {
                            "no media type"
                        } else {
                            &r.media
                        }
                    )
                })
                .collect();
            return Err(self.refuse(
                "targetArtifacts",
                format!(
                    "{} carries no exit status vcc can check: give a command record (`vcc record`, application/json), JUnit XML (application/junit+xml) or a TAP stream (text/x-tap), or name an adapter in `rule.adapter` and map it",
                    plain.join(", ")
                ),
            ));
        }
        let mut params = json!({
            "allowed_exit_codes": rule.get("allowedExitCodes").cloned().unwrap_or_else(|| json!([0])),
        });
        self.bind_inputs(&mut params);
        Ok(Binding {
            name: "exit-record".into(),
            entry: json!({"component": "std/exit-record"}),
            targets: self.targets(JSON),
            params,
            judges: Vec::new(),
        })
    }

    pub(super) fn security(&mut self) -> Result<Binding, NotEvaluated> {
        self.unreadable()?;
        let sarif: Vec<String> = self
            .readable()
            .iter()
            .filter(|r| {
                r.media.contains("sarif")
                    || r.uri.ends_with(".sarif")
                    || r.uri.ends_with(".sarif.json")
            })
            .map(|r| r.id.clone())
            .collect();
        if sarif.is_empty() {
            return Err(self.refuse(
                "targetArtifacts",
                "its targets carry no security evidence vcc can read: add a scanner's SARIF report (application/sarif+json) as a format of a target artifact, or bind a validator with `x-vcc-validator`".into(),
            ));
        }
        self.unread_rule_keys(&[], "std/sarif");
        Ok(Binding {
            name: "sarif".into(),
            entry: json!({"component": "std/sarif"}),
            targets: sarif,
            params: json!({}),
            judges: Vec::new(),
        })
    }

    /// A rubric is an AI or human judgment; a score the producer writes is
    /// neither, so vcc never reads one in its place. An `ai-judged` rubric
    /// is std/rubric, asking the judges the contract names, over the text
    /// formats of its targets.
    pub(super) fn rubric(&mut self) -> Result<Binding, NotEvaluated> {
        let evidence = self.ac.evidence.as_ref();
        if let Some(produced) = evidence
            .and_then(|e| e.get("producedArtifact"))
            .and_then(Value::as_str)
            && self.cx.artifacts.contains_key(produced)
        {
            let mut n = Note {
                code: Code::InvalidValue,
                level: Level::Error,
                field: self.at.key("evidence").key("producedArtifact"),
                message: format!(
                    "`evidence.producedArtifact` of rubric `{}` is the artifact `{produced}`: a score file the producer writes is not a judgment, and vcc does not read one",
                    self.ac.ac_id
                ),
                help: None,
            };
            n.help = Some(format!(
                "name the evidence the judgment produces instead (e.g. `producedArtifact: \"E-{}\"`), not a deliverable",
                self.ac.ac_id
            ));
            self.notes.push(n);
        }
        let rubric_id = self.ac.rule.get("rubricRef").and_then(Value::as_str);
        let rubric = rubric_id.and_then(|r| self.cx.rubrics.get(r).copied());
        let threshold = self
            .ac
            .rule
            .get("passThreshold")
            .and_then(Value::as_f64)
            .or_else(|| rubric.and_then(|r| r.pass_threshold));
        if self.cx.judges.is_empty() {
            return Err(self.refuse(
                "type",
                format!(
                    "a rubric is judged by AI judges (pass at {}), and the contract names none: name them in `{}` (in the contract, or in the --adapters file) and allow an endpoint for them (--judges); a score file the producer writes is not a judgment",
                    threshold.map_or("its threshold".to_string(), |t| t.to_string()),
                    crate::vcc1::JUDGES_KEY
                ),
            ));
        }
        let Some(threshold) = threshold else {
            return Err(self.refuse(
                "rule",
                "the rubric has no `passThreshold` (on the rule or the rubric): nothing says what passes".into(),
            ));
        };
        let targets: Vec<String> = self
            .readable()
            .into_iter()
            .filter(|r| is_text(r))
            .map(|r| r.id.clone())
            .collect();
        if targets.is_empty() {
            let formats: Vec<String> = self.readable().iter().map(|r| r.media.clone()).collect();
            return Err(self.refuse(
                "targetArtifacts",
                format!(
                    "no format of the target artifacts is text a judge reads ({}); add a Markdown or plain-text format",
                    if formats.is_empty() { "none is readable".to_string() } else { formats.join(", ") }
                ),
            ));
        }
        self.unread_rule_keys(&["rubricRef", "passThreshold"], "std/rubric");
        let question = self
            .ac
            .rule
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| match rubric_id {
                Some(id) => format!("How well do the deliverables meet rubric `{id}`?"),
                None => "How well do the deliverables meet the criterion?".to_string(),
            });
        let artifacts: Vec<String> = self
            .ac
            .target_artifacts
            .iter()
            .filter_map(|t| self.cx.artifacts.get(t).map(|i| (t, i)))
            .map(|(t, i)| {
                format!(
                    "{t} ({}){}",
                    if i.kind.is_empty() {
                        "artifact"
                    } else {
                        &i.kind
                    },
                    i.description
                        .as_deref()
                        .map(|d| format!(": {d}"))
                        .unwrap_or_default()
                )
            })
            .collect();
        let mut params = rubric_params(
            rubric,
            rubric_id,
            threshold,
            &question,
            &artifacts,
            self.cx.intent,
        );
        if let Some(c) = self.ac.confidence_threshold {
            params["confidence"] = json!(c);
        }
        if let Some(v) = self.ac.variance_max {
            // The specification allows 0..1; scores normalised to 0..1 vary
            // by at most 0.25 (half at each end), std/rubric's maximum: any
            // larger bound means the same, never "the judges disagree".
            params["max_variance"] = json!(v.min(MAX_VARIANCE));
        }
        Ok(Binding {
            name: "rubric".into(),
            entry: json!({"component": "std/rubric"}),
            targets,
            params,
            judges: self.cx.judges.clone(),
        })
    }
}
