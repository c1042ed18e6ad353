//! `vcc check`: integrity pass, snapshot, validator runs, and the verdict.
//!
//! The order matters. Lint first: a contract with an integrity error runs no
//! validator. Then one snapshot of the root. Then each criterion in its own
//! sandbox, in parallel, guarded by its wall-clock budget; validators see
//! the snapshot only. Then the host looks again at the root: if anything
//! changed (any file's or folder's metadata), the verdict is not bound to
//! the bytes that were hashed, and the run is withheld. Last, the law.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use vcc_contract::paths::{self, PathSpec};
use vcc_contract::{
    Contract, Criterion, Deliverable, Document, Excludes, Problem, Severity, ValidatorRef, lint,
};
use vcc_report::{
    AttachedFile, BaseInfo, BundleRef, CacheStats, ContractFileInfo, ContractInfo, CriterionReport,
    DeliverablesInfo, EXCLUDED_SHOWN, EvidenceRef, ExcludedInfo, PriorVerdict, Reason, Report,
    RunInfo, RuntimeInfo, SCHEMA_VERSION, Status, SubjectFile, TargetReport, ValidatorReport,
    Verdict, law,
};

use crate::guard::{Stopped, grace, guarded};
use crate::sandbox::{Request, RunLimits, RunOutput};
use crate::signatures::RecordSigners;
use crate::snapshot::{RESERVED, Reserved, Snapshot, WalkLimits, digest_string};
use crate::validators::{ContractValidators, LoadResult, Loader};
use crate::vfs::Tree;
use vcc_report::output::Evidence;

mod actions;
mod criterion;
mod excludes;
mod integrity;
mod verdict;

use criterion::{Ctx, Step};
use excludes::{exclude_rules, excludes};
use integrity::integrity;
use verdict::{
    Judged, apply_the_law, contract_files, finish, host_rows, look_again, mark_suspects,
    normal_path, store_evidence, take,
};
pub use verdict::{root_digest, root_look, unreadable_contract};

/// The version of wasmtime this host embeds (a test keeps it equal to the
/// workspace pin in Cargo.lock).
pub const WASMTIME_VERSION: &str = "48.0.8";
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The budget of a criterion granted AI judges, unless its limits say:
/// its calls wait for an endpoint within it.
pub const JUDGED_TIMEOUT: Duration = Duration::from_secs(300);
pub const DEFAULT_MEMORY: u64 = 256 << 20;

#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Criteria run at once.
    pub jobs: usize,
    /// Where evidence bytes are stored, named by digest.
    pub evidence_dir: Option<PathBuf>,
    pub walk: WalkLimits,
    /// `blake3:<hex>` of the executable, for the report.
    pub host_digest: Option<String>,
    /// The bundle each base contract came from, by its label.
    pub base_bundles: HashMap<String, BundleRef>,
    /// Files from outside the root, judged as if they were at a path under
    /// it (`vcc hook` attaches the agent's transcript).
    pub attached: Vec<Attached>,
    /// Paths under the root kept for a file the caller would attach but
    /// has not got (a hook whose harness named no transcript): whatever
    /// the root holds there is hidden from validators, and a criterion or
    /// required deliverable that names it is an error, never a pass on a
    /// file the worker wrote in its place.
    pub reserved: Vec<Reserved>,
    /// `--exclude` patterns, on top of the contract's `exclude`.
    pub exclude: Vec<String>,
    /// `--only`: evaluate only these criteria (and host rows), all when
    /// empty. The caller checks that each id exists.
    pub only: Vec<String>,
    /// The keys the trust policy names for records, which `signatures`
    /// (vcc:validator@0.1.3) checks against.
    pub record_signers: Option<Arc<RecordSigners>>,
    /// List every hashed file with its sha256 too (`--attest`).
    pub subjects: bool,
    /// What the caller adds to the reuse key: what binds the contract
    /// beyond its document (its files and lock, the trust policy).
    pub reuse_context: String,
    /// `vcc check --reuse`: a verdict computed earlier for the same reuse
    /// key, if the caller has one; no validator runs then.
    pub reuse: Option<Reuse>,
    /// `vcc check --gate ID`: judge that gate only (its criteria and
    /// approvals). The caller checks that it exists.
    pub gate: Option<String>,
    /// Signed approval statements the caller found and verified.
    pub approvals: Vec<crate::host_rows::Approval>,
    /// The run signs an attestation of itself (`--attest`).
    pub signs_attestation: bool,
    /// Folders under the root that belong to vcc, not to the deliverables
    /// (the approvals folder of a contract with gates, kept in its root):
    /// paths relative to the root (`a/b`), each left out only where the
    /// walk finds a real folder at exactly that path, matched literally
    /// (`Excludes::with_host`). The caller checks that each is a folder
    /// reached through no link.
    pub host_exclude: Vec<String>,
    /// Files this run writes that may be inside the deliverable root (the
    /// report files of `vcc check`), each with the flag that asked for
    /// it. One that lands inside the root is left out of the walk, only
    /// where a regular file is found at that path, and a contract whose
    /// deliverable names it is refused (`check/excludes.rs`). Not in the
    /// reuse key: what the walk leaves out is not in the root digest,
    /// which binds every entry validators can see.
    pub writes: Vec<(PathBuf, String)>,
    /// Where AI judges are answered from: the verifier's configuration, a
    /// session to record or replay, the command line's limits. `None`:
    /// no configuration (a granted judge cannot be asked).
    pub judging: Option<Arc<vcc_judge::Setup>>,
    /// `vcc check --partition`: judge this shard's rows only.
    pub partition: Option<vcc_report::partition::Partition>,
}

/// The verdict the caller holds for a reuse key, or why none can be
/// reused (said in the report: `not_reused`).
pub type Lookup = dyn Fn(&str) -> Result<PriorVerdict, String> + Send + Sync;

/// Looks up a verdict by reuse key (`vcc check --reuse`).
#[derive(Clone)]
pub struct Reuse(pub Arc<Lookup>);

impl std::fmt::Debug for Reuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Reuse")
    }
}

/// A file from outside the deliverable root, read by the caller.
#[derive(Debug, Clone)]
pub struct Attached {
    /// Where validators see it, relative to the root.
    pub path: String,
    /// Where it came from, for the report.
    pub source: String,
    pub bytes: Arc<[u8]>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            evidence_dir: None,
            walk: WalkLimits::default(),
            host_digest: None,
            base_bundles: HashMap::new(),
            attached: Vec::new(),
            reserved: Vec::new(),
            exclude: Vec::new(),
            only: Vec::new(),
            record_signers: None,
            subjects: false,
            reuse_context: String::new(),
            reuse: None,
            gate: None,
            partition: None,
            approvals: Vec::new(),
            signs_attestation: false,
            host_exclude: Vec::new(),
            writes: Vec::new(),
            judging: None,
        }
    }
}

/// Lint a contract, loading its validators; `root` is the deliverable
/// root (default: the contract's folder).
pub fn lint_with_validators<'a>(
    loader: &'a Loader,
    doc: &Document,
    root: Option<&Path>,
) -> (Vec<Problem>, ContractValidators<'a>) {
    let mut validators = ContractValidators::new(loader, doc.dir());
    // No component is loaded from a cache the producer can write.
    let folder = root.unwrap_or(doc.dir());
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    if let Err(why) = trusted_state_outside(loader, &folder) {
        let mut problems = lint(doc, None, root);
        problems.push(Problem {
            code: vcc_contract::Code::InvalidValue,
            level: vcc_contract::Level::Error,
            message: why,
            file: doc.path.display().to_string(),
            field: None,
            line: None,
            column: None,
            help: None,
        });
        return (problems, validators);
    }
    let problems = lint(doc, Some(&mut validators), root);
    (problems, validators)
}

/// Evaluate a contract against the deliverables under `root`: the phases
/// named in the module comment, in order.
pub fn check(loader: &Loader, doc: &Document, root: &Path, options: &CheckOptions) -> Report {
    let started = Instant::now();
    let contract = &doc.contract;
    let mut report = Report {
        schema_version: SCHEMA_VERSION,
        verdict: Verdict::Invalid,
        reason: String::new(),
        contract: ContractInfo {
            path: doc.path.display().to_string(),
            absolute_path: std::path::absolute(&doc.path)
                .ok()
                .map(|p| p.display().to_string()),
            id: Some(contract.id.clone()),
            title: contract.title.clone(),
            digest: Some(doc.digest.clone()),
            format: Some(doc.format.clone()),
            advisory: contract.advisory,
            bases: doc
                .bases
                .iter()
                .map(|b| BaseInfo {
                    source: b.label.clone(),
                    digest: b.digest.clone(),
                    bundle: options.base_bundles.get(&b.label).cloned(),
                })
                .collect(),
            files: doc
                .files
                .iter()
                .map(|f| ContractFileInfo {
                    path: f.path.clone(),
                    digest: f.digest.clone(),
                })
                .collect(),
            // What binds the contract beyond its document: the caller's.
            sources: None,
            policy: None,
        },
        deliverables: None,
        criteria: Vec::new(),
        problems: Vec::new(),
        partial: Vec::new(),
        gate: None,
        run: RunInfo::start(crate::git::head_commit(root)),
        reused: None,
        not_reused: None,
        ledger: None,
        judging: None,
        partition: None,
        merged: None,
        runtime: RuntimeInfo::default(),
    };
    let outcome = run(loader, doc, root, options, &mut report);
    if let Err(why) = outcome {
        report.verdict = Verdict::Invalid;
        report.reason = why;
    }
    finish(report, loader, options, started)
}

/// Every phase of a check; `Err` is why the run is `invalid`.
fn run(
    loader: &Loader,
    doc: &Document,
    root: &Path,
    options: &CheckOptions,
    report: &mut Report,
) -> Result<(), String> {
    // `--gate ID` judges that gate's criteria and approvals; `--only` the
    // rows it names; otherwise everything (None).
    let gate = options
        .gate
        .as_ref()
        .and_then(|g| doc.contract.gates.iter().find(|x| &x.id == g));
    if let (Some(g), None) = (&options.gate, gate) {
        return Err(format!("the contract has no gate `{g}`"));
    }
    report.gate = gate.map(|g| g.id.clone());
    let only: Option<Vec<String>> = match gate {
        // The gate's criteria, and those whose judgment is an approval.
        Some(g) => Some(
            g.criteria
                .iter()
                .chain(g.approvals.iter().filter_map(|a| a.judged_by.as_ref()))
                .cloned()
                .collect(),
        ),
        None => match &options.partition {
            Some(p) => {
                let rows = vcc_report::partition::rows_of(&doc.contract);
                if !doc.contract.gates.is_empty() {
                    return Err(
                        "a contract with gates cannot be partitioned: a gate's row depends on criteria other shards judge, and on approvals of the whole; check it whole"
                            .into(),
                    );
                }
                let mine = p.assign(&rows);
                report.partition = Some(vcc_report::partition::PartitionInfo {
                    scheme: p.scheme,
                    index: p.index,
                    total: p.total,
                    rows,
                });
                Some(mine)
            }
            None if options.only.is_empty() => None,
            None => Some(options.only.clone()),
        },
    };
    let wanted = |id: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == id));
    // Required deliverables no MUST targets get a row of the host's own;
    // which ones is decided on the whole contract, before `--only`.
    let presence: Vec<Deliverable> = vcc_contract::model::presence_checks(&doc.contract)
        .into_iter()
        .filter(|d| gate.is_none() && wanted(&vcc_contract::model::presence_id(&d.id)))
        .cloned()
        .collect();
    let partial;
    let doc = if only.is_none() {
        doc
    } else {
        let mut kept: Document = doc.clone();
        // Gates without a row in this run are not judged; one that is may
        // name criteria the run left out (it then says so, and is
        // undecided).
        kept.retain(
            |c| wanted(&c.id),
            |g| {
                options.gate.as_deref() == Some(g.id.as_str())
                    || wanted(&vcc_contract::model::gate_id(&g.id))
            },
        );
        partial = kept;
        &partial
    };
    let contract = &doc.contract;
    let judging = options.judging.clone().unwrap_or_default();
    // Before any component is loaded: a cache the producer can write
    // holds native code that would run here.
    let folder = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    trusted_state_outside(loader, &folder)?;
    let validators = integrity(loader, doc, root, report, only.is_some(), &judging)?;

    // Digests remembered from an earlier run over the same (canonical) root
    // spare reading files whose metadata has not changed.
    let excludes = excludes(doc, options, &folder)?;
    let written_rules = excludes.host_file_rules();
    let started_reading = crate::stat::now();
    let (mut snapshot, known) = take(loader, root, &folder, options.walk.clone(), excludes)?;
    // Approvals are of the deliverables, not of what the caller attaches.
    let judged_root = digest_string(&snapshot.root_digest);
    for a in &options.attached {
        snapshot.attach(&a.path, a.bytes.clone())?;
    }
    for r in &options.reserved {
        snapshot.reserve(r);
    }
    let snapshot = Arc::new(snapshot);

    // Everything the verdict depends on, hashed: the same key, the same
    // verdict. With --reuse, an earlier verdict for it runs no validator.
    let key = reuse_key(doc, options, &snapshot, &validators.loaded);
    report.runtime.reuse_key = Some(key.clone());
    let prior = match (&options.reuse, &snapshot.truncated) {
        (None, _) => None,
        (Some(_), Some(_)) => {
            report.not_reused = Some(
                "the walk of the root was cut short: a verdict is reused only for a whole root"
                    .into(),
            );
            None
        }
        (Some(reuse), None) => match (reuse.0)(&key) {
            Ok(prior) => Some(prior),
            Err(why) => {
                report.not_reused = Some(why);
                None
            }
        },
    };
    report.reused = prior.as_ref().map(|p| p.reused.clone());

    let origins = doc
        .bases
        .iter()
        .flat_map(|b| b.criteria.iter().map(|id| (id.as_str(), b.label.as_str())))
        .collect();
    // Judges answer the criteria that grant them, from the cache, a
    // session or an allowed endpoint, within the run's limits.
    let judge_run = contract
        .criteria
        .iter()
        .any(|c| !c.judges.is_empty())
        .then(|| {
            Arc::new(vcc_judge::Run::start(
                judging.clone(),
                contract,
                loader.cache().map(|c| c.judge_store()),
            ))
        });
    let (evaluated, consulted) = evaluate(
        loader,
        contract,
        &validators.loaded,
        &snapshot,
        Plan {
            jobs: options.jobs,
            origins,
            presence: &presence,
            signers: &options.record_signers,
            prior: prior.as_ref(),
            judges: judge_run.clone(),
        },
    );
    let deliverables: Vec<&Deliverable> = contract.deliverables.iter().chain(&presence).collect();
    let changed = look_again(
        &snapshot,
        Judged {
            deliverables: &deliverables,
            consulted: &consulted,
            contract_files: &contract_files(doc, &folder),
        },
        &evaluated,
    );

    // Remember the digests only of a tree that held still.
    if let Some(cache) = loader.cache()
        && changed.is_empty()
        && (snapshot.remembered != snapshot.files.len() || known.len() != snapshot.files.len())
    {
        // Only a speed-up: a memo that cannot be written is not an error.
        let files = snapshot
            .files
            .iter()
            .filter(|(path, _)| !snapshot.attached.contains(*path))
            .map(|(path, e)| (path.as_str(), &e.stat, &e.digest));
        let _ = cache.save_memo(&folder, started_reading, files);
    }
    // One root digest per report: the root's, as walked (what approvals
    // bind and `vcc approve` computes). Files attached from outside it are
    // counted and listed apart (`attached`, each with its digest).
    let attached_bytes: u64 = snapshot
        .attached
        .iter()
        .filter_map(|p| snapshot.files.get(p))
        .map(|f| f.size)
        .sum();
    report.deliverables = Some(DeliverablesInfo {
        root: root.display().to_string(),
        root_absolute: folder.display().to_string(),
        root_digest: judged_root.clone(),
        files: (snapshot.files.len() - snapshot.attached.len()) as u64,
        bytes: snapshot.total_bytes - attached_bytes,
        unreadable: snapshot.unreadable.clone(),
        changed: changed.clone(),
        excluded: ExcludedInfo {
            entries: snapshot.excluded.len() as u64,
            rules: [exclude_rules(contract, options), written_rules].concat(),
            first: snapshot
                .excluded
                .iter()
                .take(EXCLUDED_SHOWN)
                .cloned()
                .collect(),
        },
        attached: options
            .attached
            .iter()
            .map(|a| AttachedFile {
                path: a.path.clone(),
                source: a.source.clone(),
                digest: digest_string(&blake3::hash(&a.bytes)),
            })
            .collect(),
        // The provenance policy's `inputs.enumerated`: the report lists them.
        subjects: if (options.subjects || contract.provenance.is_some()) && changed.is_empty() {
            subjects(&snapshot)?
        } else {
            Vec::new()
        },
    });
    // Evidence is written after the second look: the evidence folder may
    // be under the root, and writing it earlier would be a change.
    let mut evidence_error = None;
    for (mut criterion, evidence, _) in evaluated {
        for item in evidence {
            match store_evidence(&item, options.evidence_dir.as_deref()) {
                Ok(r) => criterion.evidence.push(r),
                Err(err) => {
                    let dir = options.evidence_dir.as_deref().unwrap_or(Path::new("?"));
                    evidence_error = Some(format!("{}: {err}", dir.display()));
                }
            }
        }
        report.criteria.push(criterion);
    }
    mark_suspects(contract, &mut report.criteria);
    criterion::contract_lines(doc, &mut report.criteria);
    let actions = actions::agent_actions(loader, contract, &snapshot, options, &wanted);
    host_rows(report, doc, options, gate, &wanted, &judged_root, actions);
    apply_the_law(report, contract, &changed);
    // The recorded session is written with the verdict: a run whose
    // session cannot be kept says so, as one whose evidence cannot.
    let judging_error = match judge_run.map(|r| r.finish()) {
        Some(Ok(info)) => {
            report.judging = Some(info);
            None
        }
        Some(Err(why)) => Some(why),
        None => None,
    };
    match (evidence_error, judging_error) {
        (Some(err), _) => Err(format!("evidence could not be stored: {err}")),
        (None, Some(why)) => Err(why),
        (None, None) => Ok(()),
    }
}

/// blake3 over everything a verdict depends on (`vcc check --reuse`): the
/// contract (with its files) and its bases, what the caller binds beyond
/// it (lock, trust policy), the root digest, every validator's digest, the
/// walk's limits and excludes, `--only`, the attached files (in the root
/// digest), vcc's version and its digest.
fn reuse_key(
    doc: &Document,
    options: &CheckOptions,
    snapshot: &Snapshot,
    loaded: &HashMap<String, LoadResult>,
) -> String {
    let validators: std::collections::BTreeMap<&String, Option<&str>> = loaded
        .iter()
        .map(|(name, l)| (name, l.as_ref().ok().map(|l| l.digest.as_str())))
        .collect();
    let key = serde_json::json!({
        "vcc-reuse": 1,
        "contract": doc.digest,
        "bases": doc.bases.iter().map(|b| (&b.label, &b.digest)).collect::<Vec<_>>(),
        "context": options.reuse_context,
        "root": digest_string(&snapshot.root_digest),
        "validators": validators,
        "walk": format!("{:?}", options.walk),
        "exclude": options.exclude,
        "only": options.only,
        "gate": options.gate,
        "host_exclude": options.host_exclude,
        "signs": options.signs_attestation,
        // A verdict with gates depends on the approvals found and why each
        // counted or not: deleting one must not reuse an open gate.
        "approvals": options.approvals.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>(),
        "attached": options.attached.iter().map(|a| (&a.path, blake3::hash(&a.bytes).to_hex().to_string())).collect::<Vec<_>>(),
        "reserved": options.reserved.iter().map(|r| &r.path).collect::<Vec<_>>(),
        "vcc": env!("CARGO_PKG_VERSION"),
        "host": options.host_digest,
        // Another judge configuration or session may judge otherwise.
        "judging": options.judging.as_ref().map(|j| (
            j.config.as_ref().map(|c| &c.digest),
            j.replay.as_ref().map(|s| &s.digest),
        )),
    });
    format!(
        "blake3:{}",
        blake3::hash(key.to_string().as_bytes()).to_hex()
    )
}

/// Every file of the snapshot with its sha256, computed from the bytes the
/// host hashed (re-read and checked against their blake3).
fn subjects(snapshot: &Snapshot) -> Result<Vec<SubjectFile>, String> {
    use sha2::Digest as _;
    let deadline = Instant::now() + Duration::from_secs(3600);
    snapshot
        .files
        .iter()
        .map(|(path, entry)| {
            let bytes = snapshot
                .read_before(path, deadline)
                .map_err(|e| format!("the attestation's subjects could not be read: {e}"))?;
            Ok(SubjectFile {
                path: path.clone(),
                sha256: format!("{:x}", sha2::Sha256::digest(&bytes)),
                blake3: entry.digest.to_hex().to_string(),
            })
        })
        .collect()
}

/// The component cache holds native code that vcc runs: it must not be
/// something the producer of the deliverables can write, nor something a
/// validator can read (its MAC key). Neither may hold the other.
fn trusted_state_outside(loader: &Loader, root: &Path) -> Result<(), String> {
    let Some(cache) = loader.cache() else {
        return Ok(());
    };
    let dir = std::fs::canonicalize(cache.dir()).unwrap_or_else(|_| cache.dir().to_path_buf());
    if dir.starts_with(root) || root.starts_with(&dir) {
        return Err(format!(
            "the component cache {} is {} the deliverable root {}: whoever writes the deliverables could write the native code vcc runs; put the cache elsewhere (--cache-dir, VCC_CACHE_DIR) or use --no-cache",
            dir.display(),
            if dir.starts_with(root) {
                "inside"
            } else {
                "around"
            },
            root.display()
        ));
    }
    Ok(())
}

/// Run every criterion, `jobs` at a time, each in its own sandbox; then
/// the host's own rows for the deliverables in `presence`.
/// How the criteria of one check are judged, beyond the contract and the
/// snapshot.
struct Plan<'a> {
    /// Criteria run at once.
    jobs: usize,
    /// Criterion id → the base it was taken from unchanged.
    origins: HashMap<&'a str, &'a str>,
    /// Required deliverables the host checks itself.
    presence: &'a [Deliverable],
    signers: &'a Option<Arc<RecordSigners>>,
    /// A verdict reused for the same key: nothing runs.
    prior: Option<&'a PriorVerdict>,
    /// The run's judges, when a criterion grants one.
    judges: Option<Arc<vcc_judge::Run>>,
}

/// Evaluations in this process so far (`converge` runs several).
static RUNS: AtomicU64 = AtomicU64::new(0);

fn evaluate(
    loader: &Loader,
    contract: &Contract,
    validators: &HashMap<String, LoadResult>,
    snapshot: &Arc<Snapshot>,
    plan: Plan,
) -> (Vec<Evaluated>, HashSet<String>) {
    let Plan {
        jobs,
        origins,
        presence,
        signers,
        prior,
        judges,
    } = plan;
    let resolved: HashMap<&str, (Vec<String>, Vec<String>)> = contract
        .deliverables
        .iter()
        .chain(presence)
        .map(|d| {
            let (files, blocked) = match paths::check(&d.path) {
                Ok(spec) => {
                    let r = snapshot.resolve(&spec);
                    let blocked = r
                        .blocked
                        .iter()
                        .map(|u| match u.kind.as_str() {
                            RESERVED => format!("{} (reserved: {})", u.path, u.detail),
                            _ => format!("{} ({})", u.path, u.kind),
                        })
                        .collect();
                    (r.files, blocked)
                }
                // lint refused bad paths already; never a silent empty match.
                Err((_, message)) => (Vec::new(), vec![message]),
            };
            (d.id.as_str(), (files, blocked))
        })
        .collect();
    let listing: Arc<HashMap<String, Vec<String>>> = Arc::new(
        resolved
            .iter()
            .map(|(id, (files, _))| (id.to_string(), files.clone()))
            .collect(),
    );
    let ctx = Ctx {
        loader,
        contract,
        validators,
        snapshot,
        resolved: &resolved,
        listing: &listing,
        tree: &Arc::new(OnceLock::new()),
        origins,
        signers: signers.clone(),
        judges,
        run: RUNS.fetch_add(1, Ordering::Relaxed),
        consulted: Arc::default(),
    };
    // The host decides what it can here; the validators' calls run on
    // worker threads, `jobs` at a time, watched by this thread.
    let mut evaluated: Vec<Option<Evaluated>> = Vec::with_capacity(contract.criteria.len());
    let mut waiting = Vec::new();
    let mut calls = Vec::new();
    for criterion in &contract.criteria {
        match prior {
            Some(prior) => evaluated.push(Some(ctx.reused_row(criterion, prior))),
            None => match ctx.start(criterion) {
                Step::Done(row) => evaluated.push(Some(row)),
                Step::Call(report, call) => {
                    waiting.push((evaluated.len(), report, call.budget));
                    evaluated.push(None);
                    calls.push(call);
                }
            },
        }
    }
    let ran = crate::guard::run_all(c"vcc-validate", jobs, calls);
    for ((i, report, budget), ran) in waiting.into_iter().zip(ran) {
        let (out, took) = criterion::outcome(ran, budget);
        evaluated[i] = Some(criterion::finish(report, out, took));
    }
    // A criterion without a result (a host bug) is an error, never absent:
    // a missing MUST must not let the others decide.
    let mut evaluated: Vec<Evaluated> = evaluated
        .into_iter()
        .enumerate()
        .map(|(i, result)| {
            result.unwrap_or_else(|| {
                let mut lost = ctx.base_report(&contract.criteria[i]);
                lost.summary = "the host lost this criterion's result".into();
                (lost, Vec::new(), false)
            })
        })
        .collect();
    evaluated.extend(
        presence
            .iter()
            .map(|d| (ctx.presence(d), Vec::new(), false)),
    );
    let consulted = std::mem::take(
        &mut *ctx
            .consulted
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    );
    (evaluated, consulted)
}

/// A criterion's report, its evidence bytes (stored after the runs), and
/// whether it saw a deliverable change.
type Evaluated = (CriterionReport, Vec<Evidence>, bool);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reported_wasmtime_version_is_the_one_in_cargo_lock() {
        let lock =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock"))
                .unwrap();
        let needle = format!("name = \"wasmtime\"\nversion = \"{WASMTIME_VERSION}\"");
        assert!(
            lock.contains(&needle),
            "Cargo.lock does not pin wasmtime {WASMTIME_VERSION}"
        );
    }
}
