//! `vcc bundle list|rm|gc|save` and `vcc bundle pull DIR`: the local
//! bundle store, operated, and carried across an air gap as an OCI image
//! layout.

use std::path::Path;
use std::time::SystemTime;

use serde_json::{Value, json};
use vcc_report::law::exit;
use vcc_runtime::Runtime;
use vcc_trust::policy::Policy;
use vcc_trust::select::{Pick, Target};
use vcc_trust::store::Store;
use vcc_trust::verify::verify;
use vcc_trust::{Code, Refusal};

use crate::args::{Format, TrustArgs};
use crate::output::print_stdout;
use crate::trust::bundles::{open_store, policy, precompile, refused};

pub fn list(trust: Option<&Path>, format: Format) -> i32 {
    let result = (|| {
        let store = open_store()?;
        // A policy is optional here (the list is useful without one), but
        // one that is there and cannot be read is an error, never ignored.
        let policy = Policy::locate(trust)
            .map(|p| Policy::read(&p))
            .transpose()?;
        let rows = store
            .entries()?
            .into_iter()
            .map(|e| row(&store, &e, policy.as_ref()))
            .collect::<Vec<_>>();
        Ok::<_, Refusal>((store, rows, policy.is_some()))
    })();
    let (store, rows, with_policy) = match result {
        Ok(r) => r,
        Err(r) => return refused("bundle list", &r),
    };
    match format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "store": store.dir().display().to_string(),
                "bundles": rows,
            }))
            .unwrap_or_default()
        )),
        Format::Human => print_stdout(&table(&rows, with_policy)),
    }
    exit::ACCEPTED
}

/// One stored bundle: what the index says, who signed (the policy's key
/// names where it has them), and the policy's verdict now.
fn row(store: &Store, e: &vcc_trust::store_admin::Entry, policy: Option<&Policy>) -> Value {
    let mut row = json!({
        "name": e.name,
        "version": e.version,
        "manifest": e.manifest,
        "source": e.source,
    });
    let bundle = match store.bundle(&e.manifest) {
        Ok(b) => b,
        Err(r) => {
            // Unreadable (a blob changed or went missing): never usable.
            row["signers"] = json!([]);
            row["status"] = json!({"state": "broken", "code": r.code, "message": r.message});
            return row;
        }
    };
    let signers: Vec<Value> = bundle
        .signatures
        .iter()
        .flat_map(|(_, env)| env.signatures.iter())
        .map(|s| json!({"keyid": s.keyid, "policy_key": policy.and_then(|p| p.key_name(&s.keyid))}))
        .collect();
    row["signers"] = json!(signers);
    row["status"] = match policy.map(|p| verify(&bundle, p, SystemTime::now())) {
        None => json!({"state": "unchecked"}),
        Some(Ok(v)) => json!({"state": "trusted", "signers": v.signers}),
        Some(Err(r)) => json!({"state": "refused", "code": r.code, "message": r.message}),
    };
    row
}

fn table(rows: &[Value], with_policy: bool) -> String {
    if rows.is_empty() {
        return "the store holds no bundle (`vcc bundle pull` adds one)\n".into();
    }
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let lines: Vec<[String; 6]> = rows
        .iter()
        .map(|r| {
            let signers: Vec<String> = r["signers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|k| {
                    k["policy_key"]
                        .as_str()
                        .map_or_else(|| short(&s(&k["keyid"])), |n| n.to_string())
                })
                .collect();
            let st = &r["status"];
            let status = match st["state"].as_str().unwrap_or("") {
                "trusted" | "unchecked" => s(&st["state"]),
                other => format!("{other} {}", s(&st["code"])),
            };
            [
                s(&r["name"]),
                s(&r["version"]),
                short(&s(&r["manifest"])),
                if signers.is_empty() {
                    "-".into()
                } else {
                    signers.join(",")
                },
                status,
                r["source"].as_str().unwrap_or("-").to_string(),
            ]
        })
        .collect();
    let head = ["NAME", "VERSION", "MANIFEST", "SIGNERS", "STATUS", "SOURCE"].map(String::from);
    let mut widths = [0; 6];
    for line in std::iter::once(&head).chain(&lines) {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in std::iter::once(&head).chain(&lines) {
        let cells: Vec<String> = line
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    if !with_policy {
        out.push_str("(no trust policy: give --trust FILE to see which are trusted)\n");
    }
    out
}

/// `sha256:` and the first 12 hex digits.
fn short(digest: &str) -> String {
    digest.chars().take(19).collect()
}

pub fn rm(selectors: &[String]) -> i32 {
    let store = match open_store() {
        Ok(s) => s,
        Err(r) => return refused("bundle rm", &r),
    };
    for selector in selectors {
        let removed = store
            .select(selector)
            .and_then(|e| store.remove(&e.manifest).map(|n| (e, n)));
        match removed {
            Ok((e, n)) => {
                eprintln!(
                    "removed {} {} ({}) and {n} signature(s) from {}; `vcc bundle gc` frees its blobs",
                    e.name,
                    e.version,
                    e.manifest,
                    store.dir().display()
                );
                print_stdout(&format!("{}\n", e.manifest));
            }
            Err(r) => return refused("bundle rm", &r),
        }
    }
    exit::ACCEPTED
}

pub fn gc() -> i32 {
    let freed = match open_store().and_then(|s| s.gc().map(|f| (s, f))) {
        Ok(f) => f,
        Err(r) => return refused("bundle gc", &r),
    };
    let (store, freed) = freed;
    let mut out = String::new();
    for (digest, size) in &freed.blobs {
        out.push_str(&format!("freed blob {digest} ({size} bytes)\n"));
    }
    for (folder, size) in &freed.staging {
        out.push_str(&format!(
            "freed staging folder {folder} ({size} bytes) of a pull that no longer runs\n"
        ));
    }
    out.push_str(&format!(
        "freed {} blob(s) and {} staging folder(s), {} bytes, from {}\n",
        freed.blobs.len(),
        freed.staging.len(),
        freed.bytes(),
        store.dir().display()
    ));
    print_stdout(&out);
    exit::ACCEPTED
}

pub fn save(dir: &Path, selectors: &[String]) -> i32 {
    let result = (|| {
        let store = open_store()?;
        let manifests: Vec<String> = if selectors.is_empty() {
            store.entries()?.into_iter().map(|e| e.manifest).collect()
        } else {
            selectors
                .iter()
                .map(|s| store.select(s).map(|e| e.manifest))
                .collect::<Result<_, _>>()?
        };
        if manifests.is_empty() {
            return Err(Refusal::new(
                Code::NotInStore,
                format!(
                    "the store {} holds no bundle to save",
                    store.dir().display()
                ),
            ));
        }
        store.save(&manifests, dir)
    })();
    match result {
        Ok(bundles) => {
            for b in &bundles {
                eprintln!(
                    "saved {} {} ({}) with {} signature(s)",
                    b.config.name,
                    b.config.version,
                    b.descriptor.digest,
                    b.signatures.len()
                );
                print_stdout(&format!("{}\n", b.descriptor.digest));
            }
            eprintln!(
                "wrote {} bundle(s) into the OCI image layout {}: `vcc bundle pull {}` imports them on another machine",
                bundles.len(),
                dir.display(),
                dir.display()
            );
            exit::ACCEPTED
        }
        Err(r) => refused("bundle save", &r),
    }
}

/// `source`, if it is a layout folder named alone (no `:TAG`, `@DIGEST`).
pub fn whole_layout(source: &str) -> Option<Target> {
    crate::trust::bundles::local_layout(source).filter(|t| t.pick == Pick::Only)
}

/// Import every bundle a layout holds. All are verified first and none is
/// stored unless every one is trusted: a refused bundle is never skipped
/// in silence (name the ones to take with `DIR:TAG`).
pub fn pull_layout(runtime: &Runtime, target: &Target, trust: &TrustArgs) -> i32 {
    let result = (|| {
        let policy = policy(trust)?;
        crate::trust::bundles::policy_outside_repository(&policy)?;
        let store = open_store()?;
        let bundles = target.bundles()?;
        let mut verified = Vec::new();
        for b in &bundles {
            let v = verify(b, &policy, SystemTime::now()).map_err(|r| {
                Refusal::new(
                    r.code,
                    format!(
                        "{} {} ({}): {}; nothing was imported (pull the trusted ones by name: `vcc bundle pull {}:VERSION`)",
                        b.config.name,
                        b.config.version,
                        b.descriptor.digest,
                        r.message,
                        target.dir.display()
                    ),
                )
            })?;
            verified.push(v);
        }
        let mut stored = Vec::new();
        for b in &bundles {
            store.import(b, None)?;
            stored.push(store.bundle(&b.descriptor.digest)?);
        }
        Ok::<_, Refusal>((store, stored, verified))
    })();
    let (store, stored, verified) = match result {
        Ok(r) => r,
        Err(r) => return refused("bundle pull", &r),
    };
    for (bundle, v) in stored.iter().zip(&verified) {
        eprintln!(
            "pulled {} {} ({}), signed by {}, into {}",
            v.name,
            v.version,
            v.manifest,
            v.signers.join(", "),
            store.dir().display()
        );
        precompile(runtime, bundle);
        print_stdout(&format!("{}\n", v.manifest));
    }
    exit::ACCEPTED
}
