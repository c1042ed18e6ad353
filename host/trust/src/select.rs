//! Which bundle of an OCI image layout a command means: `DIR` (the one
//! bundle it holds), `DIR:TAG` (the index entry whose
//! `org.opencontainers.image.ref.name` is TAG: the version in layouts vcc
//! writes, the tag it was given in skopeo's) or `DIR@sha256:…` (by
//! manifest digest).
//!
//! A layout is untrusted input: the tag is only compared, never used as a
//! path, and a digest is checked for form before it names a blob.

use std::path::{Path, PathBuf};

use crate::bundle::{Bundle, listed};
use crate::layout::{self, Descriptor, Layout, annotation};
use crate::refusal::{Code, Refusal};

#[derive(Debug, Clone, PartialEq)]
pub enum Pick {
    /// `DIR`: the bundle it holds (or, for `pull`, every bundle).
    Only,
    Tag(String),
    Digest(String),
}

#[derive(Debug, Clone)]
pub struct Target {
    pub dir: PathBuf,
    pub pick: Pick,
}

/// `text` as a layout target, if its folder part is an OCI image layout
/// (holds `oci-layout`); `None` for anything else (a registry reference).
pub fn layout_target(text: &str) -> Option<Target> {
    let is_layout = |p: &str| !p.is_empty() && Path::new(p).join("oci-layout").is_file();
    let target = |dir: &str, pick| {
        Some(Target {
            dir: PathBuf::from(dir),
            pick,
        })
    };
    if is_layout(text) {
        return target(text, Pick::Only);
    }
    if let Some((dir, digest)) = text.rsplit_once('@')
        && is_layout(dir)
    {
        return target(dir, Pick::Digest(digest.to_string()));
    }
    if let Some((dir, tag)) = text.rsplit_once(':')
        && is_layout(dir)
    {
        return target(dir, Pick::Tag(tag.to_string()));
    }
    None
}

impl Target {
    /// The one bundle this target names, read and checked.
    pub fn open(&self) -> Result<Bundle, Refusal> {
        let layout = Layout::open(&self.dir)?;
        let entry = match &self.pick {
            Pick::Only => {
                let all = listed(&layout)?;
                match all.as_slice() {
                    [one] => one.clone(),
                    [] => return Err(holds_none(&self.dir)),
                    _ => {
                        return Err(Refusal::new(
                            Code::MalformedBundle,
                            format!(
                                "{} holds {} bundles; name one: {}",
                                self.dir.display(),
                                all.len(),
                                choices(&self.dir, &all)
                            ),
                        ));
                    }
                }
            }
            Pick::Digest(digest) => self.by_digest(&layout, digest)?,
            Pick::Tag(tag) => self.by_tag(&layout, tag)?,
        };
        let bundle = Bundle::read(&layout, &entry)?;
        // A tag that is a version must name that version, as a registry
        // tag must: a layout's tags are written by whoever handed it over.
        if let Pick::Tag(tag) = &self.pick
            && let Ok(named) = semver::Version::parse(tag.strip_prefix('v').unwrap_or(tag))
            && semver::Version::parse(&bundle.config.version).ok() != Some(named)
        {
            return Err(Refusal::new(
                Code::TagVersionMismatch,
                format!(
                    "{}:{tag}: the tag names version {tag}, and the manifest it points to ({}) is {} {}",
                    self.dir.display(),
                    entry.digest,
                    bundle.config.name,
                    bundle.config.version
                ),
            ));
        }
        Ok(bundle)
    }

    /// Every bundle this target names: all the layout holds for `DIR`
    /// (none is an error), else the one named.
    pub fn bundles(&self) -> Result<Vec<Bundle>, Refusal> {
        if self.pick != Pick::Only {
            return self.open().map(|b| vec![b]);
        }
        let layout = Layout::open(&self.dir)?;
        let all = listed(&layout)?;
        if all.is_empty() {
            return Err(holds_none(&self.dir));
        }
        all.iter().map(|d| Bundle::read(&layout, d)).collect()
    }

    fn by_digest(&self, layout: &Layout, digest: &str) -> Result<Descriptor, Refusal> {
        if layout::sha256_hex(digest).is_none() {
            return Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{}@{digest}: `{digest}` is not a sha256 digest (sha256: and 64 lower-case hex digits)",
                    self.dir.display()
                ),
            ));
        }
        let index = layout.index()?;
        index
            .manifests
            .into_iter()
            .find(|m| m.digest == digest)
            .ok_or_else(|| self.no_such(layout, &format!("manifest {digest}")))
    }

    fn by_tag(&self, layout: &Layout, tag: &str) -> Result<Descriptor, Refusal> {
        let tagged: Vec<Descriptor> = layout
            .index()?
            .manifests
            .into_iter()
            .filter(|m| m.annotations.get(annotation::REF_NAME).map(String::as_str) == Some(tag))
            .collect();
        match tagged.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(self.no_such(layout, &format!("tag `{tag}`"))),
            _ => Err(Refusal::new(
                Code::MalformedBundle,
                format!(
                    "{}: the tag `{tag}` names {} manifests; name one by digest: {}",
                    self.dir.display(),
                    tagged.len(),
                    tagged
                        .iter()
                        .map(|d| format!("{}@{}", self.dir.display(), d.digest))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    fn no_such(&self, layout: &Layout, what: &str) -> Refusal {
        let held = listed(layout).unwrap_or_default();
        Refusal::new(
            Code::NotInStore,
            format!(
                "{} has no {what}; {}",
                self.dir.display(),
                if held.is_empty() {
                    "it holds no vcc bundle".to_string()
                } else {
                    format!("it holds: {}", choices(&self.dir, &held))
                }
            ),
        )
    }
}

fn holds_none(dir: &Path) -> Refusal {
    Refusal::new(
        Code::MalformedBundle,
        format!(
            "{} holds no vcc bundle (no index entry is a manifest of a vcc bundle)",
            dir.display()
        ),
    )
}

/// `DIR:1.0.0, DIR:1.0.1 or DIR@sha256:…`: how to name each bundle.
fn choices(dir: &Path, bundles: &[Descriptor]) -> String {
    let mut named: Vec<String> = bundles
        .iter()
        .map(|d| match d.annotations.get(annotation::REF_NAME) {
            Some(tag) => format!("{}:{tag}", dir.display()),
            None => format!("{}@{}", dir.display(), d.digest),
        })
        .collect();
    named.dedup();
    format!(
        "{} (or {}@sha256:… by manifest digest)",
        named.join(", "),
        dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::sample;

    #[test]
    fn a_layout_is_named_by_tag_or_digest() {
        let dir = tempfile::tempdir().unwrap();
        let one = sample(dir.path(), "1.2.0");
        let shown = dir.path().display().to_string();
        let only = layout_target(&shown).unwrap();
        assert_eq!(only.pick, Pick::Only);
        assert_eq!(only.open().unwrap().descriptor, one.descriptor);
        let tagged = layout_target(&format!("{shown}:1.2.0")).unwrap();
        assert_eq!(tagged.open().unwrap().descriptor, one.descriptor);
        let digest = format!("{shown}@{}", one.descriptor.digest);
        assert_eq!(
            layout_target(&digest).unwrap().open().unwrap().descriptor,
            one.descriptor
        );
        let missing = layout_target(&format!("{shown}:9.9.9")).unwrap();
        let r = missing.open().unwrap_err();
        assert_eq!(r.code, Code::NotInStore);
        assert!(
            r.message.contains(&format!("{shown}:1.2.0")),
            "{}",
            r.message
        );
        let bad = layout_target(&format!("{shown}@sha256:../../x")).unwrap();
        assert_eq!(bad.open().unwrap_err().code, Code::MalformedBundle);
        assert!(layout_target("127.0.0.1:5000/acme/x:1.0.0").is_none());
    }
}
