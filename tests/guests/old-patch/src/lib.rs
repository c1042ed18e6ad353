//! A validator built against the released vcc:validator@0.1.0 (the frozen
//! copy in wit/frozen/0.1.0), the way an old SDK would have built it. A host
//! on a newer 0.1.x patch must load it, link its imports and run it.
wit_bindgen::generate!({
    path: "../../../wit/frozen/0.1.0",
    world: "plugin",
});

use exports::vcc::validator::validator::Guest;
use vcc::validator::deliverables;
use vcc::validator::types::{Criterion, Description, Finding, Outcome, Status};

struct OldPatch;

impl Guest for OldPatch {
    fn describe() -> Description {
        Description {
            name: "old-patch".into(),
            version: "0.1.0".into(),
            summary: "built against vcc:validator@0.1.0".into(),
            params_schema: r#"{"type":"object"}"#.into(),
        }
    }

    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        // Uses the 0.1.0 imports, linked against the newer host.
        let mut findings = Vec::new();
        for target in &criterion.targets {
            for file in deliverables::list_files(&target.id)? {
                let bytes = deliverables::read_file(&file.path)?;
                findings.push(Finding {
                    message: format!("{} bytes", bytes.len()),
                    path: Some(file.path),
                    line: None,
                    column: None,
                    rule: None,
                });
            }
        }
        Ok(Outcome {
            status: Status::Pass,
            summary: format!("read {} file(s) through the 0.1.0 imports", findings.len()),
            findings,
            evidence: Vec::new(),
        })
    }
}

export!(OldPatch);
