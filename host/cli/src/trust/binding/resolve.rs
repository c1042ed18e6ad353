//! Which version of a bundle a contract gets: the highest the trust policy
//! trusts, from the local store or the registry its rule names, with
//! every version passed over noted (`vcc lock` prints why).

use semver::{Version, VersionReq};
use vcc_contract::Code;
use vcc_trust::Refusal;

use super::{Binding, Resolved};
use crate::trust::bundles::registry_refusal;

impl Binding<'_> {
    /// The highest version of `name` meeting `reqs` that the policy
    /// trusts: from the store, unless it has none at or above `floor` (the
    /// version vcc.lock holds) or `--update` asks for newer ones; then
    /// also from the registry its rule names (only tags above what the
    /// store has). Every version passed over is noted with why.
    pub(super) fn resolve(
        &mut self,
        name: &str,
        reqs: &[VersionReq],
        floor: Option<&Version>,
    ) -> Result<Resolved, Refusal> {
        let policy = self.policy()?.clone();
        let mut refusal = None;
        let stored = self.in_store(name, reqs).unwrap_or_else(|r| {
            refusal = Some(r);
            None
        });
        let stored_version = stored
            .as_ref()
            .and_then(|r| Version::parse(&r.verified.version).ok());
        let enough = stored_version
            .as_ref()
            .is_some_and(|v| !self.update && floor.is_none_or(|f| v >= f));
        let source = policy.rule_for(name).and_then(|r| r.source.clone());
        let from_registry = match (&source, enough) {
            (Some(source), false) => {
                self.in_registry(name, reqs, source, stored_version.as_ref(), &mut refusal)?
            }
            (None, false) if self.update => {
                self.notes.push(format!(
                    "--update: the trust policy's rule for {name} names no `source`; only the store was searched"
                ));
                None
            }
            _ => None,
        };
        if let Some(r) = from_registry.or(stored) {
            return Ok(r);
        }
        let wanted = reqs
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Err(refusal.unwrap_or_else(|| {
            Refusal::new(
                vcc_contract::Code::NotInStore,
                format!(
                    "no version of bundle `{name}` matching `{}` is in the store{}; pull one with `vcc bundle pull`",
                    if wanted.is_empty() { "*" } else { &wanted },
                    if source.is_some() {
                        " or in the registry the trust policy names"
                    } else {
                        ""
                    }
                ),
            )
        }))
    }

    /// The highest version of `name` meeting `reqs` and above `above` that
    /// the policy trusts, from the registry `source` (tags that are semver
    /// versions, the bundle's name its repository); `None` when it has
    /// none. Each tag refused is noted, and the first refusal kept.
    fn in_registry(
        &mut self,
        name: &str,
        reqs: &[VersionReq],
        source: &str,
        above: Option<&Version>,
        refusal: &mut Option<Refusal>,
    ) -> Result<Option<Resolved>, Refusal> {
        let repository = format!("{}/{name}", source.trim_end_matches('/'));
        let listing =
            vcc_registry::parse_reference(&format!("{repository}:latest")).map_err(|e| {
                Refusal::new(
                    Code::MalformedPolicy,
                    format!("bundle rule for `{name}`: source: {e}"),
                )
            })?;
        let registry =
            vcc_registry::Registry::connect(&listing, self.insecure).map_err(registry_refusal)?;
        let mut tags: Vec<(Version, String)> = registry
            .tags(&listing)
            .map_err(registry_refusal)?
            .into_iter()
            .filter_map(|t| {
                Version::parse(t.strip_prefix('v').unwrap_or(&t))
                    .ok()
                    .map(|v| (v, t))
            })
            .filter(|(v, _)| reqs.iter().all(|r| r.matches(v)))
            .filter(|(v, _)| above.is_none_or(|a| v > a))
            .collect();
        tags.sort_by(|a, b| b.0.cmp(&a.0));
        for (version, tag) in tags {
            let reference = format!("{repository}:{tag}");
            match self.pull(&reference, name, None) {
                Ok(r) => return Ok(Some(r)),
                Err(r) => {
                    self.notes.push(format!(
                        "skipped {name} {version} ({reference}): {}: {}",
                        r.code, r.message
                    ));
                    refusal.get_or_insert(r);
                }
            }
        }
        Ok(None)
    }

    /// The highest version of `name` meeting `reqs` in the local store that
    /// the policy trusts; `Ok(None)` when the store has none (`Err`: the
    /// first refusal of one it has).
    pub(super) fn in_store(
        &mut self,
        name: &str,
        reqs: &[VersionReq],
    ) -> Result<Option<Resolved>, Refusal> {
        let mut refusal = None;
        for (version, digest) in self.store()?.versions(name)? {
            if !reqs.iter().all(|r| r.matches(&version)) {
                continue;
            }
            match self.stored(&digest) {
                Ok(r) => return Ok(Some(r)),
                Err(r) => {
                    self.notes.push(format!(
                        "skipped {name} {version} (store): {}: {}",
                        r.code, r.message
                    ));
                    refusal.get_or_insert(r);
                }
            }
        }
        refusal.map_or(Ok(None), Err)
    }
}
