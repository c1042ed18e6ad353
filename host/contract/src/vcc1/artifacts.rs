//! Artifacts become deliverables: one per format whose URI is a path
//! under the root, or the folder an `x-vcc-path` (`--artifact-root`) maps
//! a `worktree://…` URI to. A required artifact nothing can read is a MUST
//! vcc cannot verify.

use std::collections::HashMap;

use serde_json::json;

use super::{Artifact, Format, PATH_KEY, Translator};
use crate::problem::{Code, FieldPath};

/// One artifact's deliverables: (native id, media type, uri).
#[derive(Debug, Clone)]
pub(crate) struct Readable {
    pub id: String,
    pub media: String,
    pub uri: String,
}

/// Per artifact id: its index, its deliverables, the deliverables of the
/// artifacts it depends on, and (when none is readable) why.
pub(crate) struct ArtifactInfo {
    pub index: usize,
    /// `kind` (`specification`, `implementation`, …).
    pub kind: String,
    /// The artifact ids it depends on.
    pub depends_on_ids: Vec<String>,
    pub readable: Vec<Readable>,
    pub depends_on: Vec<String>,
    pub unreadable: Option<String>,
    /// What the artifact is (shown to AI judges).
    pub description: Option<String>,
}

pub(crate) type Artifacts = HashMap<String, ArtifactInfo>;

impl Translator {
    pub(super) fn artifacts(&mut self, artifacts: &[Artifact]) -> Artifacts {
        let list = FieldPath::root().key("artifacts");
        let mut out: Artifacts = HashMap::new();
        for (a, art) in artifacts.iter().enumerate() {
            let at = list.index(a);
            if out.contains_key(&art.artifact_id) {
                self.note(
                    Code::DuplicateId,
                    at.key("artifactId"),
                    format!("artifactId `{}` is used twice", art.artifact_id),
                );
                continue;
            }
            let paths: Vec<(usize, &Format)> = art
                .formats
                .iter()
                .enumerate()
                .filter(|(_, f)| is_path(&f.uri))
                .collect();
            let remote: Vec<&Format> = art.formats.iter().filter(|f| !is_path(&f.uri)).collect();
            let mut readable = Vec::new();
            let many = paths.len() + usize::from(art.mapped.is_some()) > 1;
            for (f, fmt) in &paths {
                let ext = extension(&fmt.uri);
                let id = if !many {
                    art.artifact_id.clone()
                } else if ext.is_empty()
                    || readable
                        .iter()
                        .any(|r: &Readable| r.id.ends_with(&format!(".{ext}")))
                {
                    format!("{}.{f}", art.artifact_id)
                } else {
                    format!("{}.{ext}", art.artifact_id)
                };
                readable.push(Readable {
                    id,
                    media: fmt.media_type.clone().unwrap_or_default(),
                    uri: fmt.uri.clone(),
                });
                self.origin
                    .deliverables
                    .push((at.clone(), at.key("formats").index(*f).key("uri")));
            }
            if let Some(dir) = &art.mapped {
                let id = if many {
                    format!("{}.path", art.artifact_id)
                } else {
                    art.artifact_id.clone()
                };
                let media = remote
                    .first()
                    .and_then(|f| f.media_type.clone())
                    .unwrap_or_default();
                readable.push(Readable {
                    id,
                    media,
                    uri: dir.clone(),
                });
                self.origin
                    .deliverables
                    .push((at.clone(), at.key(PATH_KEY)));
            } else {
                for (f, fmt) in art.formats.iter().enumerate() {
                    if !is_path(&fmt.uri) && !paths.is_empty() {
                        // Every row visible: the format vcc cannot see is
                        // a `skip` row of its own, not a vanished note.
                        let field = at.key("formats").index(f).key("uri");
                        let c = json!({
                            "id": format!("{}.format-{f}", art.artifact_id),
                            "severity": "should",
                            "not_evaluated": format!(
                                "format `{}` of artifact `{}` is not a path under the deliverable root; vcc reads its other formats",
                                fmt.uri, art.artifact_id
                            ),
                            "description": format!("artifact `{}` as {}", art.artifact_id, fmt.media_type.as_deref().unwrap_or("an unnamed media type")),
                        });
                        self.criterion(c, at.clone(), Some((field, Code::UnverifiableMust)));
                    }
                }
            }
            let unreadable = readable.is_empty().then(|| {
                format!(
                    "artifact `{}` has no format vcc can read: {} {} not a path under the deliverable root",
                    art.artifact_id,
                    remote
                        .iter()
                        .map(|f| format!("`{}`", f.uri))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if remote.len() == 1 { "is" } else { "are" }
                )
            });
            for r in &readable {
                let mut d = json!({"id": r.id, "path": r.uri, "required": art.required});
                if !r.media.is_empty() {
                    d["media_type"] = json!(r.media);
                }
                if let Some(desc) = &art.description {
                    d["description"] = json!(desc);
                }
                self.deliverables.push(d);
            }
            out.insert(
                art.artifact_id.clone(),
                ArtifactInfo {
                    index: a,
                    kind: art.kind.clone(),
                    depends_on_ids: art.depends_on.clone(),
                    readable,
                    depends_on: Vec::new(),
                    unreadable,
                    description: art.description.clone(),
                },
            );
        }
        self.dependencies(artifacts, &mut out);
        // A required artifact nothing can read cannot be shown to exist.
        for art in artifacts {
            let Some(info) = out.get(&art.artifact_id) else {
                continue;
            };
            if let (true, Some(why)) = (art.required, &info.unreadable) {
                let at = list.index(info.index);
                let field = at
                    .key("formats")
                    .index(
                        art.formats
                            .iter()
                            .position(|f| !is_path(&f.uri))
                            .unwrap_or(0),
                    )
                    .key("uri");
                let why = format!(
                    "{why}; map it with `{PATH_KEY}: DIR` on the artifact or `vcc check --artifact-root {}=DIR` (DIR under the deliverable root)",
                    art.artifact_id
                );
                let c = json!({
                    "id": format!("{}.present", art.artifact_id),
                    "severity": "must",
                    "not_evaluated": why,
                    "description": format!("required artifact `{}` exists", art.artifact_id),
                });
                self.criterion(c, at, Some((field, Code::UnverifiableMust)));
            }
        }
        out
    }

    /// `dependsOn`, once every artifact has its deliverables.
    fn dependencies(&mut self, artifacts: &[Artifact], out: &mut Artifacts) {
        let list = FieldPath::root().key("artifacts");
        let mut k = 0;
        for (a, art) in artifacts.iter().enumerate() {
            if out.get(&art.artifact_id).map(|i| i.index) != Some(a) {
                continue;
            }
            let mut deps = Vec::new();
            for (j, dep) in art.depends_on.iter().enumerate() {
                match out.get(dep) {
                    Some(theirs) => deps.extend(theirs.readable.iter().map(|r| r.id.clone())),
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
            let Some(info) = out.get_mut(&art.artifact_id) else {
                continue;
            };
            for _ in &info.readable {
                self.deliverables[k]["depends_on"] = json!(deps);
                k += 1;
            }
            info.depends_on = deps;
        }
    }
}

/// A relative path (not `scheme://…`, not absolute): something under the
/// deliverable root. Invalid paths (`..`) are still paths, refused by lint.
pub(crate) fn is_path(uri: &str) -> bool {
    let has_scheme = uri.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    !uri.is_empty() && !has_scheme && !uri.starts_with('/')
}

pub(crate) fn extension(uri: &str) -> String {
    let name = uri.rsplit('/').next().unwrap_or(uri);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()) => {
            ext.to_lowercase()
        }
        _ => String::new(),
    }
}
