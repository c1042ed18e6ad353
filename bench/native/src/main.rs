//! `vcc-bench-native ROOT CRITERIA.json JOBS`: run W1's criteria with the
//! standard validators' own code compiled natively, in-process, over the
//! files of ROOT, and print the milliseconds it took (files read + every
//! criterion judged, on JOBS threads as `vcc check --jobs` would).
//!
//! CRITERIA.json: `[{"id", "validator": "json-schema"|"markdown-sections",
//! "params": {...}, "target": "json"|"md"}]`; deliverable `json` is
//! ROOT/json/*.json and `md` is ROOT/md/*.md, as in bench/run.py's contract.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use vcc_sdk::native::Files;
use vcc_sdk::serde_json::{self, Value};
use vcc_sdk::{Status, Validator};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, root, criteria, jobs] = args.as_slice() else {
        eprintln!("usage: vcc-bench-native ROOT CRITERIA.json JOBS");
        std::process::exit(2);
    };
    let criteria: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(criteria).expect("read the criteria file"))
            .expect("criteria are JSON");
    let jobs: usize = jobs.parse().expect("JOBS is a number");

    let started = Instant::now();
    let mut files = Files::default();
    for (id, ext) in [("json", "json"), ("md", "md")] {
        let dir = std::path::Path::new(root).join(id);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .expect("read a deliverable folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(&format!(".{ext}")))
            .collect();
        names.sort();
        for name in names {
            let bytes = std::fs::read(dir.join(&name)).expect("read a deliverable");
            files.add(id, &format!("/deliverables/{id}/{name}"), bytes);
        }
    }

    let next = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| {
                while let Some(c) = criteria.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                    let criterion =
                        files.criterion(&text("id"), &c["params"].to_string(), &[&text("target")]);
                    let outcome = files.run(|| match text("validator").as_str() {
                        "json-schema" => json_schema::JsonSchema::validate(criterion),
                        "markdown-sections" => {
                            markdown_sections::MarkdownSections::validate(criterion)
                        }
                        other => Err(format!("unknown validator {other}")),
                    });
                    if !matches!(outcome, Ok(ref o) if o.status == Status::Pass) {
                        failed.lock().expect("lock").push(text("id"));
                    }
                }
            });
        }
    });
    let elapsed = started.elapsed();
    let failed = failed.into_inner().expect("lock");
    if !failed.is_empty() {
        // The data set is all valid: a failure means the reference is wrong.
        eprintln!("criteria did not pass: {failed:?}");
        std::process::exit(1);
    }
    println!("{:.3}", elapsed.as_secs_f64() * 1000.0);
}
