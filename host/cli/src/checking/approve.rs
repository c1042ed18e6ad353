//! `vcc approve`: sign an approval of a gate (`approvals.rs` finds the
//! approvals a check counts).

use vcc_report::law::exit;
use vcc_runtime::Runtime;
use vcc_trust::approval::{self, ApprovalPredicate, Approve};
use vcc_trust::keys::PrivateKey;
use vcc_trust::policy::Policy;

use crate::args::ApproveArgs;
use crate::checking::evaluate::Ready;
use crate::output::write_atomically;
use crate::trust::approvals::root_exclude;

/// `vcc approve --key KEY --contract C --gate G [--role R] [--score N]`.
pub fn run(runtime: &Runtime, args: &ApproveArgs) -> i32 {
    match approve(runtime, args) {
        Ok(message) => {
            eprintln!("{message}");
            exit::ACCEPTED
        }
        Err(why) => {
            eprintln!("vcc approve: {why}");
            exit::INVALID
        }
    }
}

fn approve(runtime: &Runtime, args: &ApproveArgs) -> Result<String, String> {
    let key = PrivateKey::read(&args.key).map_err(|r| format!("--key: {}", r.message))?;
    let ready = Ready::read(runtime, &args.contract, args.dir.as_deref(), &args.binding).map_err(
        |report| {
            let first = report
                .problems
                .first()
                .map_or(report.reason.clone(), |p| p.message.clone());
            format!(
                "{}: the contract cannot be read: {first}",
                args.contract.display()
            )
        },
    )?;
    let doc = &ready.prepared.doc;
    let Some(gate) = doc.contract.gates.iter().find(|g| g.id == args.gate) else {
        let ids: Vec<&str> = doc.contract.gates.iter().map(|g| g.id.as_str()).collect();
        let hint = vcc_contract::problem::closest(&args.gate, ids.iter().copied())
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        return Err(format!(
            "the contract has no gate `{}` (its gates: {}){hint}",
            args.gate,
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ));
    };
    let mut roles: Vec<&str> = Vec::new();
    for a in &gate.approvals {
        let role = a.role.trim_start_matches("role:");
        if !roles.contains(&role) {
            roles.push(role);
        }
    }
    let role = match (&args.role, roles.as_slice()) {
        (Some(r), _) => {
            let r = r.trim_start_matches("role:").to_string();
            if !roles.contains(&r.as_str()) {
                return Err(format!(
                    "gate `{}` needs no approval of role `{r}` (it needs: {})",
                    gate.id,
                    if roles.is_empty() {
                        "none".to_string()
                    } else {
                        roles.join(", ")
                    }
                ));
            }
            r
        }
        (None, [only]) => only.to_string(),
        (None, []) => return Err(format!("gate `{}` needs no signed approval", gate.id)),
        (None, many) => {
            return Err(format!(
                "gate `{}` needs approvals of several roles ({}): say which with --role",
                gate.id,
                many.join(", ")
            ));
        }
    };
    refuse_what_never_counts(gate, &role, args.score)?;
    let warning = role_warning(&key, &role, ready.prepared.policy.as_ref());
    // The digest a check computes: without the approvals folder — the one
    // the approval is written to. With `--out` elsewhere, the default
    // folder is neither made nor left out: an empty folder made in the root
    // would be bound by the check's digest and make this approval stale.
    let folder = match &args.out {
        Some(out) => match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        },
        None => ready.approvals.clone(),
    };
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let mut options = vcc_runtime::CheckOptions::default();
    options.host_exclude.extend(root_exclude(
        !doc.contract.gates.is_empty(),
        &folder,
        &ready.root,
    ));
    let root_digest = vcc_runtime::root_digest(runtime.loader(), doc, &ready.root, &options)?;
    let envelope = approval::sign(
        &Approve {
            contract_digest: &doc.digest,
            root_digest: &root_digest,
            predicate: ApprovalPredicate {
                contract_id: doc.contract.id.clone(),
                gate: gate.id.clone(),
                role: role.clone(),
                score: args.score,
                approved_at: vcc_report::now_rfc3339(),
                comment: args.comment.clone(),
            },
        },
        &key,
    );
    let out = args.out.clone().unwrap_or_else(|| {
        let id: String = key
            .id()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(12)
            .collect();
        ready
            .approvals
            .join(format!("{}.{role}.{id}.dsse.json", gate.id))
    });
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let text = serde_json::to_string_pretty(&envelope).map_err(|e| e.to_string())?;
    write_atomically(&out, format!("{text}\n").as_bytes())
        .map_err(|e| format!("{}: {e}", out.display()))?;
    if let Some(warning) = warning {
        eprintln!("vcc approve: warning: {warning}");
    }
    Ok(format!(
        "approved gate `{}` of {} as role `{role}`{} for the deliverables under {} (root {root_digest}, contract {}): {}",
        gate.id,
        doc.contract.id,
        args.score
            .map(|s| format!(" with score {s}"))
            .unwrap_or_default(),
        ready.root.display(),
        doc.digest,
        out.display()
    ))
}

/// Refuse a statement that no approval of the gate for `role` could ever
/// count: without a score, or with one below every minimum, where every
/// such approval needs a minimum score; or with a score that is not a
/// number.
fn refuse_what_never_counts(
    gate: &vcc_contract::model::Gate,
    role: &str,
    score: Option<f64>,
) -> Result<(), String> {
    if let Some(s) = score
        && !s.is_finite()
    {
        return Err(format!("--score {s} is not a number a gate can compare"));
    }
    // The lowest minimum of the role's approvals; none when one of them
    // needs no score.
    let lowest = gate
        .approvals
        .iter()
        .filter(|a| vcc_runtime::host_rows::same_role(&a.role, role))
        .map(|a| a.min_score)
        .try_fold(f64::INFINITY, |low, m| m.map(|m| low.min(m)));
    match (score, lowest) {
        (None, Some(min)) => Err(format!(
            "gate `{}` needs a score of at least {min} from role `{role}`: an approval without --score would never count; give --score N",
            gate.id
        )),
        (Some(s), Some(min)) if s < min => Err(format!(
            "gate `{}` needs a score of at least {min} from role `{role}`: an approval scoring {s} would never count",
            gate.id
        )),
        _ => Ok(()),
    }
}

/// Why the approval may not count as written: the trust policy in force
/// does not give the signing key the role (or there is none to ask).
fn role_warning(key: &PrivateKey, role: &str, policy: Option<&Policy>) -> Option<String> {
    let Some(policy) = policy else {
        return Some(format!(
            "no trust policy was given (--trust FILE, $VCC_TRUST): a check counts this approval only where its policy lists key {} under role `{role}`",
            key.id()
        ));
    };
    let public = key.public();
    let ids: Vec<&String> = policy
        .keys
        .iter()
        .filter(|(_, k)| k.raw() == public.raw())
        .map(|(id, _)| id)
        .collect();
    let listed = policy.roles.iter().any(|(r, keys)| {
        vcc_runtime::host_rows::same_role(r, role) && keys.iter().any(|k| ids.contains(&k))
    });
    if listed {
        return None;
    }
    Some(if ids.is_empty() {
        format!(
            "the trust policy {} does not hold key {}: a check with it will not count this approval (add the key and list it under `roles: {{ {role}: [...] }}`)",
            policy.path.display(),
            key.id()
        )
    } else {
        format!(
            "the trust policy {} does not list key {} for role `{role}`: a check with it will not count this approval (list it under `roles: {{ {role}: [...] }}`)",
            policy.path.display(),
            ids.iter()
                .map(|i| i.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}
