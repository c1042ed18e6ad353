//! After the runs: the second look at the root, the host's own rows, the
//! termination law applied to the rows, suspects marked, evidence stored,
//! and the report finished (also for a contract that could not be read).

use super::*;

/// What a row may depend on, beside the bytes it read.
pub(super) struct Judged<'a> {
    pub(super) deliverables: &'a [&'a Deliverable],
    /// Every file a validator looked up: read, or judged by its size or
    /// digest alone (`stat-file`, a WASI stat).
    pub(super) consulted: &'a HashSet<String>,
    /// The contract's own files under the root.
    pub(super) contract_files: &'a [String],
}

/// The contract's files (the contract, its bases and included files) that
/// lie under the root, as root-relative paths.
pub(super) fn contract_files(doc: &Document, root: &Path) -> Vec<String> {
    std::iter::once(doc.path.clone())
        .chain(doc.files.iter().map(|f| doc.dir().join(&f.path)))
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter_map(|p| {
            p.strip_prefix(root)
                .ok()
                .map(|r| r.to_string_lossy().into_owned())
        })
        .collect()
}

/// Look at the root again: any change since the walk — metadata of a file
/// or folder, an entry added or removed — means the verdict would not be
/// about the bytes that were judged.
///
/// Every folder is looked at, but one by one only the files a row may
/// depend on: every file of every deliverable (what criteria target and
/// list), every file a validator looked up, every file that could not be
/// hashed, the contract's own files, the host's own `.vcc/` and the ignore
/// files. Any other file can only have changed in place (adding,
/// removing or renaming one moves its folder, which is a change): its
/// bytes were hashed but never judged, so no row is about them (W5: a stat
/// per file saved). The full walk, when a folder moved, applies the same
/// rule to files changed in place.
pub(super) fn look_again(
    snapshot: &Snapshot,
    judged: Judged,
    evaluated: &[Evaluated],
) -> Vec<String> {
    let mut names: HashSet<&str> = evaluated
        .iter()
        .flat_map(|(row, _, _)| row.files_read.iter().map(|r| r.path.as_str()))
        .collect();
    names.extend(judged.consulted.iter().map(String::as_str));
    names.extend(judged.contract_files.iter().map(String::as_str));
    // What each deliverable matches, hashed or not (an entry that could not
    // be hashed is still the deliverable's).
    let targeted: Vec<String> = judged
        .deliverables
        .iter()
        .filter_map(|d| paths::check(&d.path).ok())
        .flat_map(|spec| {
            let r = snapshot.resolve(&spec);
            r.files
                .into_iter()
                .chain(r.blocked.into_iter().map(|u| u.path))
        })
        .collect();
    names.extend(targeted.iter().map(String::as_str));
    let judged = |path: &str| {
        names.contains(path)
            || path.starts_with(".vcc/")
            || vcc_contract::exclude::IGNORE_FILES
                .contains(&path.rsplit('/').next().unwrap_or(path))
    };
    let a_read_saw_a_change = evaluated.iter().any(|e| e.2);
    let mut changed = snapshot.changes(&judged);
    if a_read_saw_a_change && changed.is_empty() {
        changed.push("(a file changed while a validator read it)".into());
    }
    changed
}

/// The provenance policy's row and the gates' rows, judged after every
/// criterion (a gate needs their outcomes).
pub(super) fn host_rows(
    report: &mut Report,
    doc: &Document,
    options: &CheckOptions,
    gate: Option<&vcc_contract::model::Gate>,
    wanted: &dyn Fn(&str) -> bool,
    judged_root: &str,
    actions: Option<crate::host_rows::Actions>,
) {
    let contract = &doc.contract;
    if let Some(policy) = &contract.provenance {
        let id = vcc_contract::model::provenance_id(&policy.id);
        if wanted(&id) {
            let facts = crate::host_rows::RunFacts {
                files: report.deliverables.as_ref().map_or(0, |d| d.files as usize),
                attached: report
                    .deliverables
                    .as_ref()
                    .map(|d| d.attached.iter().map(|a| a.path.clone()).collect())
                    .unwrap_or_default(),
                root_digest: judged_root,
                contract_digest: &doc.digest,
                actions: actions.as_ref(),
                signs: options.signs_attestation,
            };
            report
                .criteria
                .push(crate::host_rows::provenance(policy, &facts));
        }
    }
    for g in &contract.gates {
        let id = vcc_contract::model::gate_id(&g.id);
        let row = match gate {
            Some(sel) if sel.id == g.id => crate::host_rows::gate(
                g,
                &report.criteria,
                &options.approvals,
                &doc.digest,
                judged_root,
            ),
            Some(_) => continue,
            None if !wanted(&id) => continue,
            None if g.when == vcc_contract::model::GateWhen::BeforeFinal => crate::host_rows::gate(
                g,
                &report.criteria,
                &options.approvals,
                &doc.digest,
                judged_root,
            ),
            None => crate::host_rows::later_gate(g),
        };
        report.criteria.push(row);
    }
}

/// The termination law, then what a change during the run does to it.
pub(super) fn apply_the_law(report: &mut Report, contract: &Contract, changed: &[String]) {
    let outcomes = report.criteria.iter().map(|c| (c.severity, c.status));
    report.verdict = law::decide(contract.advisory, outcomes);
    report.reason = verdict_reason(report, contract);
    // A shard dealt no MUST row is not a contract without one: the whole
    // contract has its MUSTs, in other shards. It decides nothing alone.
    if report.verdict == Verdict::Invalid && report.partition.is_some() {
        report.verdict = Verdict::Withheld;
        report.reason = "this shard was dealt no MUST row".into();
    }
    // Every MUST finding nothing at all usually means the wrong folder.
    let mut targeted = report
        .criteria
        .iter()
        .filter(|c| c.severity == Severity::Must && !c.targets.is_empty())
        .peekable();
    if targeted.peek().is_some()
        && targeted.all(|c| c.reason == Reason::MissingDeliverable)
        && let Some(d) = &report.deliverables
    {
        report.reason.push_str(&format!(
            "; no deliverable a MUST needs was found under {}: if that is not the folder the contract is about, give --dir ROOT, or set `root:` in the contract (relative to the contract file)",
            d.root_absolute
        ));
    }
    if !changed.is_empty() && report.verdict != Verdict::Advisory {
        report.verdict = Verdict::Withheld;
        report.reason = format!(
            "deliverables changed while the run was in progress ({}); the verdict would not be about the bytes that were judged",
            changed
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

pub(super) fn finish(
    mut report: Report,
    loader: &Loader,
    options: &CheckOptions,
    started: Instant,
) -> Report {
    let reuse_key = report.runtime.reuse_key.take();
    report.runtime = RuntimeInfo {
        vcc_version: env!("CARGO_PKG_VERSION").to_string(),
        wasmtime_version: WASMTIME_VERSION.to_string(),
        host_digest: options.host_digest.clone(),
        cache: loader.stats(),
        duration_ms: started.elapsed().as_millis() as u64,
        reuse_key,
    };
    report
}

pub(super) fn normal_path(path: &str) -> String {
    match paths::check(path) {
        Ok(PathSpec::Literal(p) | PathSpec::Glob(p)) => p,
        Err(_) => path.to_string(),
    }
}

/// Criteria judging deliverables whose upstream (`depends_on`, transitively)
/// has a MUST criterion that did not pass.
pub(super) fn mark_suspects(contract: &Contract, criteria: &mut [CriterionReport]) {
    // Deliverable → the MUST criteria that did not pass on it.
    let mut not_passed: HashMap<&str, Vec<&str>> = HashMap::new();
    for (c, r) in contract.criteria.iter().zip(criteria.iter()) {
        if c.severity == Severity::Must && r.status != Status::Pass {
            for t in &c.targets {
                not_passed
                    .entry(t.as_str())
                    .or_default()
                    .push(c.id.as_str());
            }
        }
    }
    if not_passed.is_empty() {
        return;
    }
    let deps: HashMap<&str, &[String]> = contract
        .deliverables
        .iter()
        .map(|d| (d.id.as_str(), d.depends_on.as_slice()))
        .collect();
    for (c, r) in contract.criteria.iter().zip(criteria.iter_mut()) {
        let mut upstream = BTreeSet::new();
        let mut todo: Vec<&str> = c
            .targets
            .iter()
            .flat_map(|t| deps.get(t.as_str()).copied().unwrap_or_default())
            .map(String::as_str)
            .collect();
        // lint refused cycles, but a visited set keeps this finite anyway.
        let mut seen = BTreeSet::new();
        while let Some(d) = todo.pop() {
            if !seen.insert(d) {
                continue;
            }
            // A criterion's own targets, or a failure that is its own, are
            // not inputs someone else got wrong.
            let others = not_passed
                .get(d)
                .is_some_and(|ids| ids.iter().any(|id| *id != c.id));
            if others && !c.targets.iter().any(|t| t == d) {
                upstream.insert(d.to_string());
            }
            todo.extend(
                deps.get(d)
                    .copied()
                    .unwrap_or_default()
                    .iter()
                    .map(String::as_str),
            );
        }
        r.suspect_inputs = upstream.into_iter().collect();
    }
}

pub(super) fn verdict_reason(report: &Report, contract: &Contract) -> String {
    vcc_report::verdict_reason(report.verdict, &report.criteria, &contract.id)
}

/// Hash an evidence item and, with an evidence dir, store it by digest.
pub(super) fn store_evidence(item: &Evidence, dir: Option<&Path>) -> std::io::Result<EvidenceRef> {
    let hash = blake3::hash(&item.bytes);
    let file = match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            let path = dir.join(hash.to_hex().as_str());
            if !path.exists() {
                let tmp = dir.join(format!(".{}.{}.tmp", hash.to_hex(), std::process::id()));
                std::fs::write(&tmp, &item.bytes)?;
                std::fs::rename(&tmp, &path)?;
            }
            Some(path.display().to_string())
        }
        None => None,
    };
    Ok(EvidenceRef {
        name: item.name.clone(),
        media_type: item.media_type.clone(),
        size: item.bytes.len() as u64,
        digest: digest_string(&hash),
        file,
    })
}

/// The deliverables walked and hashed for a check, with the digests an
/// earlier run over the same (canonical) `folder` remembered: a large
/// memo is loaded while the tree is walked, a small one first (a thread
/// costs more than reading it).
pub(super) fn take(
    loader: &Loader,
    root: &Path,
    folder: &Path,
    walk: WalkLimits,
    excludes: vcc_contract::Excludes,
) -> Result<(Snapshot, crate::memo::Memo), String> {
    let load = || {
        loader
            .cache()
            .map(|c| c.load_memo(folder))
            .unwrap_or_default()
    };
    if loader.cache().is_some_and(|c| c.memo_is_large(folder)) {
        Snapshot::take_loading(root, walk, excludes, load, loader.progress())
    } else {
        let known = load();
        Snapshot::take_with(root, walk, excludes, &known, loader.progress())
            .map(|snapshot| (snapshot, known))
    }
    .map_err(|e| e.to_string())
}

/// The root digest a check of `doc` over `root` computes for the
/// deliverables (before anything is attached): what `vcc approve` binds
/// an approval to.
pub fn root_digest(
    loader: &Loader,
    doc: &Document,
    root: &Path,
    options: &CheckOptions,
) -> Result<String, String> {
    root_look(loader, doc, root, options)
        .map(|(digest, _)| digest)
        .map_err(|why| format!("{why}: an approval is of every file"))
}

/// The deliverables as a check of `doc` over `root` with `options` walks
/// them: the root digest and, with `options.subjects`, every file by
/// sha256 and blake3 (an attestation's subjects). `Err`: a walk that did
/// not see every file (a limit), or a file that could not be read.
pub fn root_look(
    loader: &Loader,
    doc: &Document,
    root: &Path,
    options: &CheckOptions,
) -> Result<(String, Vec<SubjectFile>), String> {
    let snapshot = Snapshot::take_with(
        root,
        options.walk.clone(),
        excludes(doc, options, root)?,
        &Default::default(),
        loader.progress(),
    )
    .map_err(|e| e.to_string())?;
    if let Some(why) = &snapshot.truncated {
        return Err(why.to_string());
    }
    let subjects = if options.subjects {
        super::subjects(&snapshot)?
    } else {
        Vec::new()
    };
    Ok((digest_string(&snapshot.root_digest), subjects))
}

/// A report for a contract that could not even be read.
pub fn unreadable_contract(path: &Path, problems: Vec<Problem>, cache: CacheStats) -> Report {
    let first = problems.first().map_or("", |p| p.message.as_str());
    let more = match problems.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more problem(s))", n - 1),
    };
    Report {
        schema_version: SCHEMA_VERSION,
        verdict: Verdict::Invalid,
        reason: format!("the contract could not be loaded: {first}{more}"),
        contract: ContractInfo {
            path: path.display().to_string(),
            absolute_path: std::path::absolute(path)
                .ok()
                .map(|p| p.display().to_string()),
            id: None,
            title: None,
            digest: None,
            format: None,
            advisory: false,
            bases: Vec::new(),
            files: Vec::new(),
            sources: None,
            policy: None,
        },
        deliverables: None,
        criteria: Vec::new(),
        problems,
        partial: Vec::new(),
        gate: None,
        run: RunInfo::start(None),
        reused: None,
        not_reused: None,
        ledger: None,
        judging: None,
        partition: None,
        merged: None,
        runtime: RuntimeInfo {
            vcc_version: env!("CARGO_PKG_VERSION").to_string(),
            wasmtime_version: WASMTIME_VERSION.to_string(),
            host_digest: None,
            cache,
            duration_ms: 0,
            reuse_key: None,
        },
    }
}
