//! Where the native contract's fields came from in the VCC document, so
//! every problem points at the VCC text.

use std::collections::BTreeMap;

use crate::problem::{Code, FieldPath, Seg};

/// Where native fields came from, to point problems at the VCC text.
#[derive(Debug, Default, Clone)]
pub struct Origin {
    /// Native criterion index → the VCC object it was made from
    /// (`acceptance[i]`, `artifacts[a]`, `delivery[d]`).
    pub criteria: Vec<FieldPath>,
    /// Native criterion index → for a criterion vcc cannot judge, the
    /// field that says why and the code a MUST of it is refused with.
    pub blame: Vec<Option<(FieldPath, Code)>>,
    /// Native deliverable index → (the VCC object, the field of its path).
    pub deliverables: Vec<(FieldPath, FieldPath)>,
    /// Native validator name → the field that introduced it.
    pub validators: BTreeMap<String, FieldPath>,
    /// (native criterion index, param) → the VCC field the param was made
    /// from, where it is not `rule` (`varianceMax` → `max_variance`).
    pub params: BTreeMap<(usize, String), FieldPath>,
}

impl Origin {
    /// The code a MUST criterion that is not evaluated is refused with.
    pub fn blame_code(&self, criterion: usize) -> Option<Code> {
        self.blame.get(criterion).cloned().flatten().map(|b| b.1)
    }

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
                let Some(at) = self.criteria.get(i) else {
                    return root.key("acceptance");
                };
                if key(2) == Some("not_evaluated")
                    && let Some(Some((field, _))) = self.blame.get(i)
                {
                    return field.clone();
                }
                if !matches!(at.0.first(), Some(Seg::Key(k)) if k == "acceptance") {
                    return at.clone();
                }
                if key(2) == Some("params")
                    && let Some(field) = key(3).and_then(|k| self.params.get(&(i, k.to_string())))
                {
                    return field.clone();
                }
                match key(2) {
                    Some("id") => at.key("acId"),
                    Some("severity") => at.key("severity"),
                    Some("validator") => at.key("type"),
                    Some("targets") => at.key("targetArtifacts"),
                    Some("params" | "description") => at.key("rule"),
                    _ => at.clone(),
                }
            }
            (Some("deliverables"), Some(k)) => match self.deliverables.get(k) {
                Some((at, path)) => match key(2) {
                    Some("path") => path.clone(),
                    Some("id") if at.0.len() == 2 => at.key(id_key(at)),
                    Some("depends_on") => at.key("dependsOn"),
                    _ => at.clone(),
                },
                None => root.key("artifacts"),
            },
            (Some("validators"), _) => match key(1).and_then(|n| self.validators.get(n)) {
                Some(field) => field.clone(),
                None => root.key("acceptance"),
            },
            (Some("gates"), Some(g)) => {
                let at = root.key("gates").index(g);
                match (key(2), index(3)) {
                    (Some("approvals"), Some(j)) => at.key("requiredApprovals").index(j),
                    (Some("id"), _) => at.key("gateId"),
                    _ => at,
                }
            }
            (Some("provenance"), _) => root.key("provenancePolicy"),
            (Some("budget"), _) => root.key("resourceConstraints"),
            (Some("criteria"), None) => root.key("acceptance"),
            (Some("deliverables"), None) => root.key("artifacts"),
            (Some("id"), _) => root.key("id"),
            (Some("title"), _) => root.key("title"),
            _ => native.clone(),
        }
    }
}

/// The id field of a VCC object, by its list.
fn id_key(at: &FieldPath) -> &'static str {
    match at.0.first() {
        Some(Seg::Key(k)) if k == "packaging" => "packageId",
        Some(Seg::Key(k)) if k == "delivery" => "deliveryId",
        _ => "artifactId",
    }
}
