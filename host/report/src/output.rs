//! What a validator returned, checked against the host's caps before
//! anything of it is recorded.
//!
//! This mirrors the WIT `outcome` record without wasmtime, so the checks can
//! be read on one screen and fuzzed (`fuzz/fuzz_targets/outcome.rs`). The
//! runtime moves the lifted WIT value into [`Returned`] and calls
//! [`Returned::check`]; a value over any cap is an `error`, never a
//! truncated pass.

use crate::{Finding, Reason, Status};

/// Evidence bytes one criterion may return, in total.
pub const EVIDENCE_CAP: usize = 4 << 20;
pub const MAX_EVIDENCE_ITEMS: usize = 256;
pub const MAX_FINDINGS: usize = 10_000;
/// Any one string: a summary, a message, a path, a name.
pub const MAX_TEXT: usize = 64 << 10;

/// The WIT `outcome`, as lifted from the guest.
#[derive(Debug, Clone, PartialEq)]
pub struct Returned {
    /// Only `Pass`, `Fail` or `Skip` can come from the interface.
    pub status: Status,
    pub summary: String,
    pub findings: Vec<Finding>,
    pub evidence: Vec<Evidence>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub name: String,
    pub media_type: String,
    pub bytes: Vec<u8>,
}

/// Why a returned value was refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    pub reason: Reason,
    pub summary: String,
}

impl Returned {
    /// The value itself if it is within every cap and well formed.
    pub fn check(self) -> Result<Returned, Refused> {
        let too_big = |what: String| Refused {
            reason: Reason::OutputLimit,
            summary: format!("the validator {what}"),
        };
        if self.status == Status::Error {
            return Err(Refused {
                reason: Reason::MalformedOutput,
                summary: "the validator returned a status only the host may set".into(),
            });
        }
        if self.findings.len() > MAX_FINDINGS {
            return Err(too_big(format!(
                "returned {} findings (cap {MAX_FINDINGS})",
                self.findings.len()
            )));
        }
        if self.evidence.len() > MAX_EVIDENCE_ITEMS {
            return Err(too_big(format!(
                "returned {} evidence items (cap {MAX_EVIDENCE_ITEMS})",
                self.evidence.len()
            )));
        }
        // Each item is capped by the sum, so the sum cannot overflow.
        let evidence_bytes: usize = self.evidence.iter().map(|e| e.bytes.len()).sum();
        if evidence_bytes > EVIDENCE_CAP {
            return Err(too_big(format!(
                "returned {evidence_bytes} bytes of evidence (cap {EVIDENCE_CAP})"
            )));
        }
        if let Some(long) = self.texts().map(str::len).find(|&n| n > MAX_TEXT) {
            return Err(too_big(format!(
                "returned a {long}-byte string (cap {MAX_TEXT})"
            )));
        }
        if self.evidence.iter().any(|e| e.name.is_empty()) {
            return Err(Refused {
                reason: Reason::MalformedOutput,
                summary: "the validator returned an evidence item without a name".into(),
            });
        }
        Ok(self)
    }

    fn texts(&self) -> impl Iterator<Item = &str> {
        let findings = self.findings.iter().flat_map(|f| {
            [Some(&f.message), f.path.as_ref(), f.rule.as_ref()]
                .into_iter()
                .flatten()
        });
        let evidence = self.evidence.iter().flat_map(|e| [&e.name, &e.media_type]);
        std::iter::once(&self.summary)
            .chain(findings)
            .chain(evidence)
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn returned() -> Returned {
        Returned {
            status: Status::Pass,
            summary: "ok".into(),
            findings: vec![],
            evidence: vec![],
        }
    }

    fn finding(message: &str) -> Finding {
        Finding {
            message: message.into(),
            path: None,
            line: None,
            column: None,
            rule: None,
        }
    }

    fn evidence(name: &str, size: usize) -> Evidence {
        Evidence {
            name: name.into(),
            media_type: "text/plain".into(),
            bytes: vec![b'x'; size],
        }
    }

    fn refused(r: Returned) -> (Reason, String) {
        let refused = r.check().unwrap_err();
        (refused.reason, refused.summary)
    }

    #[test]
    fn within_the_caps_is_kept_as_is() {
        let r = Returned {
            findings: vec![finding("a"); MAX_FINDINGS],
            evidence: vec![evidence("e", EVIDENCE_CAP / MAX_EVIDENCE_ITEMS); MAX_EVIDENCE_ITEMS],
            summary: "s".repeat(MAX_TEXT),
            ..returned()
        };
        assert_eq!(r.clone().check(), Ok(r));
    }

    #[test]
    fn every_cap_is_an_output_limit_error() {
        let cases = [
            (
                Returned {
                    findings: vec![finding("a"); MAX_FINDINGS + 1],
                    ..returned()
                },
                "the validator returned 10001 findings (cap 10000)",
            ),
            (
                Returned {
                    evidence: vec![evidence("e", 0); MAX_EVIDENCE_ITEMS + 1],
                    ..returned()
                },
                "the validator returned 257 evidence items (cap 256)",
            ),
            (
                Returned {
                    evidence: vec![evidence("a", EVIDENCE_CAP), evidence("b", 1)],
                    ..returned()
                },
                "the validator returned 4194305 bytes of evidence (cap 4194304)",
            ),
            (
                Returned {
                    findings: vec![Finding {
                        rule: Some("r".repeat(MAX_TEXT + 1)),
                        ..finding("a")
                    }],
                    ..returned()
                },
                "the validator returned a 65537-byte string (cap 65536)",
            ),
        ];
        for (r, summary) in cases {
            assert_eq!(refused(r), (Reason::OutputLimit, summary.to_string()));
        }
    }

    #[test]
    fn malformed_values_are_refused() {
        let r = Returned {
            evidence: vec![evidence("", 1)],
            ..returned()
        };
        assert_eq!(refused(r).0, Reason::MalformedOutput);
        let r = Returned {
            status: Status::Error,
            ..returned()
        };
        assert_eq!(refused(r).0, Reason::MalformedOutput);
    }
}
