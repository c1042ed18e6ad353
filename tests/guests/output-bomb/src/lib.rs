//! Produces too much of something, chosen by `params.kind`, and would then
//! claim a pass: stderr flood, huge evidence, a million evidence items,
//! a hundred thousand findings, a 10 MiB summary, or a summary that is not
//! valid UTF-8 (a malformed return value). None of it may become a pass.
use std::io::Write;

use vcc_sdk::serde::Deserialize;
use vcc_sdk::{Criterion, Description, Evidence, Finding, Outcome, Validator};

struct OutputBomb;

#[derive(Deserialize)]
#[serde(crate = "vcc_sdk::serde")]
struct Params {
    kind: String,
}

impl Validator for OutputBomb {
    fn describe() -> Description {
        Description::new("output-bomb", "0.1.0", "returns too much")
            .params_schema(vcc_sdk::serde_json::json!({"type": "object", "required": ["kind"]}))
    }
    fn validate(criterion: Criterion) -> Result<Outcome, String> {
        let params: Params = criterion.params()?;
        let outcome = Outcome::pass("everything is fine");
        Ok(match params.kind.as_str() {
            "stderr" => {
                let line = [b'e'; 1023];
                let mut err = std::io::stderr();
                for _ in 0..100_000 {
                    if err
                        .write_all(&line)
                        .and_then(|()| err.write_all(b"\n"))
                        .is_err()
                    {
                        break;
                    }
                }
                outcome
            }
            "huge-evidence" => {
                outcome.evidence("big.bin", "application/octet-stream", vec![7u8; 20 << 20])
            }
            "many-evidence" => {
                let mut o = outcome;
                o.evidence = (0..1_000_000)
                    .map(|i| Evidence {
                        name: format!("e{i}"),
                        media_type: "text/plain".into(),
                        bytes: Vec::new(),
                    })
                    .collect();
                o
            }
            "many-findings" => {
                outcome.findings((0..100_000).map(|i| Finding::new(format!("finding {i}"))))
            }
            "long-summary" => Outcome::pass("x".repeat(10 << 20)),
            "invalid-utf8" => {
                // A string whose bytes are not UTF-8: lowering copies them as
                // they are, and the host must refuse to lift them.
                // SAFETY: deliberately malformed for the test; never read here.
                let bad = unsafe { String::from_utf8_unchecked(vec![b'o', b'k', 0xff, 0xfe]) };
                Outcome::pass(bad)
            }
            other => return Err(format!("unknown kind {other}")),
        })
    }
}

vcc_sdk::export_validator!(OutputBomb);
