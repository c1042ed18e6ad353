//! Load a contract, verify what binds it, and check it: what `vcc check`,
//! `converge`, `hook` and `mcp` share.
//!
//! A contract is read once ([`Sources`]: its file, the files its params
//! name, its `vcc.lock`) and made [`Ready`] (trust policy, lock and bases
//! verified and composed). A loop checks the same `Ready` again and again,
//! so whatever the command it runs writes to the contract never changes
//! what it is judged by.

use std::path::{Path, PathBuf};

use vcc_contract::{Level, Sources};
use vcc_report::Report;
use vcc_runtime::{CheckOptions, Runtime};

use crate::args::BindingArgs;
use crate::trust::binding::Prepared;

/// A check's report.
pub struct Evaluation {
    pub report: Report,
}

/// A contract read once and made ready to check.
pub struct Ready {
    pub sources: Sources,
    pub prepared: Prepared,
    /// The deliverable root: `--dir`, else the contract's `root:` (a
    /// base's, for a contract built on one that states none), else its
    /// folder.
    pub root: PathBuf,
    /// Where the gates' signed approvals are read from.
    pub approvals: PathBuf,
}

impl Ready {
    /// Read the contract at `contract` and prepare it; `Err`: the
    /// `invalid` report that says why it cannot be checked.
    pub fn read(
        runtime: &Runtime,
        contract: &Path,
        dir: Option<&Path>,
        binding: &BindingArgs,
    ) -> Result<Ready, Box<Report>> {
        let read = binding
            .mapping()
            .map_err(|why| vec![flag_problem(contract, why)]);
        let sources = match read.and_then(|mapping| Sources::read_mapped(contract, mapping)) {
            Ok((sources, _)) => sources,
            Err(problems) => {
                return Err(Box::new(vcc_runtime::unreadable_contract(
                    contract,
                    problems,
                    runtime.loader().stats(),
                )));
            }
        };
        Ready::from_sources(runtime, sources, dir, binding)
    }

    /// Prepare a contract from bytes read earlier (a hook's first stop).
    pub fn from_sources(
        runtime: &Runtime,
        mut sources: Sources,
        dir: Option<&Path>,
        binding: &BindingArgs,
    ) -> Result<Ready, Box<Report>> {
        // Bytes pinned without the command line's mapping get it again.
        if sources.mapping.is_empty() {
            match binding.mapping() {
                Ok(m) => sources.mapping = m,
                Err(why) => {
                    return Err(Box::new(vcc_runtime::unreadable_contract(
                        &sources.path,
                        vec![flag_problem(&sources.path, why)],
                        runtime.loader().stats(),
                    )));
                }
            }
        }
        let doc = match sources.load() {
            Ok(doc) => doc,
            Err(problems) => {
                return Err(Box::new(vcc_runtime::unreadable_contract(
                    &sources.path,
                    problems,
                    runtime.loader().stats(),
                )));
            }
        };
        let (path, digest) = (doc.path.clone(), doc.digest.clone());
        let approvals =
            crate::trust::approvals::dir_for(&sources.path, binding.approvals.as_deref());
        match crate::trust::binding::prepare(runtime, doc, &sources, dir, binding) {
            Ok(prepared) => Ok(Ready {
                sources,
                root: prepared.root.clone(),
                prepared,
                approvals,
            }),
            Err(problems) => Err(Box::new(refused_report(
                &path,
                &digest,
                problems,
                runtime.loader().stats(),
            ))),
        }
    }

    /// The contract's id (what reports and messages name it by).
    pub fn id(&self) -> &str {
        &self.prepared.doc.contract.id
    }

    /// Check the deliverables under the root against this contract.
    pub fn check(&self, runtime: &Runtime, mut options: CheckOptions) -> Evaluation {
        let doc = &self.prepared.doc;
        if let Some(g) = &options.gate
            && !doc.contract.gates.iter().any(|x| &x.id == g)
        {
            let ids: Vec<String> = doc.contract.gates.iter().map(|x| x.id.clone()).collect();
            return Evaluation {
                report: unknown_only(runtime, doc, &[g.as_str()], &ids, "--gate"),
            };
        }
        if !options.only.is_empty() {
            let mut ids: Vec<String> = doc.contract.criteria.iter().map(|c| c.id.clone()).collect();
            ids.extend(
                vcc_contract::model::presence_checks(&doc.contract)
                    .iter()
                    .map(|d| vcc_contract::model::presence_id(&d.id)),
            );
            ids.extend(
                doc.contract
                    .gates
                    .iter()
                    .map(|g| vcc_contract::model::gate_id(&g.id)),
            );
            ids.extend(
                doc.contract
                    .provenance
                    .iter()
                    .map(|p| vcc_contract::model::provenance_id(&p.id)),
            );
            let unknown: Vec<&str> = options
                .only
                .iter()
                .filter(|id| !ids.contains(id))
                .map(String::as_str)
                .collect();
            if !unknown.is_empty() {
                return Evaluation {
                    report: unknown_only(runtime, doc, &unknown, &ids, "--only"),
                };
            }
        }
        // Approvals are verified here, against the trust policy in force;
        // a folder of them inside the root is vcc's, not a deliverable
        // (only a real folder, and only when there are gates to read
        // approvals for).
        options.host_exclude.extend(self.host_exclude(doc));
        if !doc.contract.gates.is_empty() {
            options.approvals =
                crate::trust::approvals::load(&self.approvals, self.prepared.policy.as_ref());
        }
        options.host_digest = runtime.host_digest();
        if options.judging.is_none() {
            options.judging = Some(self.prepared.judging.clone());
        }
        options.base_bundles = self.prepared.base_bundles.clone();
        options.record_signers = self.prepared.record_signers.clone();
        // What binds the contract beyond its document: its files and lock
        // (the sources' fingerprint) and the trust policy.
        options.reuse_context = format!(
            "{} {}",
            self.sources.fingerprint(),
            self.prepared
                .policy_digest
                .as_deref()
                .unwrap_or("no-policy")
        );
        let mut report = vcc_runtime::check(runtime.loader(), doc, &self.root, &options);
        // What binds the contract beyond its document, for whoever holds
        // the report to (`vcc merge` binds shards to it).
        report.contract.sources = Some(self.sources.fingerprint());
        report.contract.policy = self.prepared.policy_digest.clone();
        Evaluation { report }
    }

    /// Folders under the root that are vcc's, not deliverables: what a
    /// check leaves out of the walk besides the contract's excludes.
    pub fn host_exclude(&self, doc: &vcc_contract::Document) -> Vec<String> {
        let gates = !doc.contract.gates.is_empty();
        crate::trust::approvals::root_exclude(gates, &self.approvals, &self.root)
            .into_iter()
            .collect()
    }
}

/// Load a contract, verify what binds it (trust policy, vcc.lock, bases),
/// and check it against the deliverables under `dir` (default: the
/// contract's `root:`, else its folder). `options.only` keeps only the
/// criteria it names.
pub fn evaluate(
    runtime: &Runtime,
    contract: &Path,
    dir: Option<&Path>,
    binding: &BindingArgs,
    options: CheckOptions,
) -> Evaluation {
    match Ready::read(runtime, contract, dir, binding) {
        Ok(ready) => ready.check(runtime, options),
        Err(report) => Evaluation { report: *report },
    }
}

/// The integrity pass of `vcc lint`: the contract's digest (when it could
/// be read) and its problems.
pub fn lint_problems(
    runtime: &Runtime,
    contract: &Path,
    dir: Option<&Path>,
    binding: &BindingArgs,
) -> (Option<String>, Vec<vcc_contract::Problem>) {
    let mapping = match binding.mapping() {
        Ok(m) => m,
        Err(why) => return (None, vec![flag_problem(contract, why)]),
    };
    let (sources, doc) = match vcc_contract::Sources::read_mapped(contract, mapping) {
        Ok(read) => read,
        Err(problems) => return (None, problems),
    };
    let digest = doc.digest.clone();
    let prepared = match crate::trust::binding::prepare(runtime, doc, &sources, dir, binding) {
        Ok(prepared) => prepared,
        Err(problems) => return (Some(digest), problems),
    };
    let doc = &prepared.doc;
    let (mut problems, _) =
        vcc_runtime::lint_with_validators(runtime.loader(), doc, Some(&prepared.root));
    problems.extend(prepared.judging.problems(doc));
    (Some(doc.digest.clone()), problems)
}

/// A command-line mapping (`--artifact-root`, `--adapters`) that cannot
/// be used: the contract cannot be read as asked.
fn flag_problem(contract: &Path, why: String) -> vcc_contract::Problem {
    vcc_contract::Problem {
        code: vcc_contract::Code::InvalidValue,
        level: Level::Error,
        message: why,
        file: contract.display().to_string(),
        field: None,
        line: None,
        column: None,
        help: None,
    }
}

/// `--only` names a criterion the contract does not have: invalid, with a
/// did-you-mean.
fn unknown_only(
    runtime: &Runtime,
    doc: &vcc_contract::Document,
    unknown: &[&str],
    ids: &[String],
    flag: &str,
) -> Report {
    let hints: Vec<String> = unknown
        .iter()
        .filter_map(|u| {
            vcc_contract::problem::closest(u, ids.iter().map(String::as_str))
                .map(|c| format!("`{u}`: did you mean `{c}`?"))
        })
        .collect();
    let (what, field) = if flag == "--gate" {
        ("gate", "gates")
    } else {
        ("criterion", "criteria")
    };
    let mut problem = doc.problem(
        vcc_contract::Code::InvalidValue,
        Level::Error,
        &vcc_contract::FieldPath::root().key(field),
        format!(
            "{flag} {}: no such {what} (the contract has: {})",
            unknown.join(", "),
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ),
    );
    if !hints.is_empty() {
        problem.help = Some(hints.join("; "));
    }
    let mut report = refused_report(
        &doc.path,
        &doc.digest,
        vec![problem],
        runtime.loader().stats(),
    );
    report.reason = format!(
        "{flag} names {field} the contract does not have: {}{}",
        unknown.join(", "),
        if hints.is_empty() {
            String::new()
        } else {
            format!(" ({})", hints.join("; "))
        }
    );
    report
}

/// A check refused before evaluation: its bundles, lock, trust policy or
/// bases could not be trusted.
fn refused_report(
    path: &Path,
    digest: &str,
    problems: Vec<vcc_contract::Problem>,
    cache: vcc_report::CacheStats,
) -> Report {
    if problems.is_empty() {
        return Report::unfinished(&path.display().to_string());
    }
    let mut report = vcc_runtime::unreadable_contract(path, problems, cache);
    report.contract.digest = Some(digest.to_string());
    report.reason = format!(
        "the contract's trust chain was refused ({}); no validator was run",
        report
            .problems
            .iter()
            .map(|p| p.code.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    report
}
