//! Output that stays under the host's caps however large the input.
//!
//! The host refuses an outcome with more than 10,000 findings, 4 MiB of
//! evidence or a 64 KiB string (an `output_limit` error). A standard
//! validator must never hit those on honest input — 100,000 files to
//! search, 5,000 reports to read — so what it returns is bounded here:
//! findings past a cap are counted, lists in summaries are cut, and an
//! evidence list past its budget keeps its first items, its full count and
//! the blake3 digest of the full list.

use vcc_sdk::Finding;
use vcc_sdk::serde_json::{self, Value, json};

/// Findings one criterion returns, at most (the host allows 10,000).
pub const MAX_FINDINGS: usize = 1_000;
/// Bytes of one evidence item, at most (the host allows 4 MiB in all).
pub const EVIDENCE_BUDGET: usize = 1 << 20;

/// Findings with a cap: past it they are counted, not kept, and the last
/// finding says how many more there were.
pub struct Findings {
    kept: Vec<Finding>,
    more: usize,
    limit: usize,
}

impl Default for Findings {
    fn default() -> Self {
        Findings::new(MAX_FINDINGS)
    }
}

impl Findings {
    pub fn new(limit: usize) -> Findings {
        Findings {
            kept: Vec::new(),
            more: 0,
            limit,
        }
    }

    pub fn push(&mut self, finding: Finding) {
        if self.kept.len() < self.limit {
            self.kept.push(finding);
        } else {
            self.more += 1;
        }
    }

    /// Every finding pushed, kept or not.
    pub fn len(&self) -> usize {
        self.kept.len() + self.more
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kept findings, and one saying how many were left out.
    pub fn into_vec(mut self) -> Vec<Finding> {
        if self.more > 0 {
            self.kept.push(
                Finding::new(format!(
                    "… and {} more finding(s) not listed (the evidence has the counts)",
                    self.more
                ))
                .rule("more"),
            );
        }
        self.kept
    }
}

/// `a, b, c` — or `a, b, c and 4,997 more` past `max` items.
pub fn list(items: &[String], max: usize) -> String {
    let shown: Vec<&str> = items.iter().take(max).map(String::as_str).collect();
    let mut text = shown.join(", ");
    if items.len() > max {
        text.push_str(&format!(" and {} more", items.len() - max));
    }
    text
}

/// A JSON evidence document for a list of items: all of them while the
/// list fits in [`EVIDENCE_BUDGET`], else the first items that fit. Either
/// way it says how many there were and gives the blake3 digest of the full
/// list (each item as compact JSON followed by a newline), so a summary
/// still binds everything that was judged. `extra` fields (an object) go
/// first.
pub fn evidence(extra: Value, items: &[Value]) -> Vec<u8> {
    let mut hasher = blake3::Hasher::new();
    let mut listed = Vec::new();
    let mut used = 0usize;
    let mut full = true;
    for item in items {
        let line = serde_json::to_string(item).unwrap_or_default();
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
        // Pretty printing roughly doubles an item; keep room for it.
        if full && used + 2 * line.len() + 64 <= EVIDENCE_BUDGET {
            used += 2 * line.len() + 64;
            listed.push(item.clone());
        } else {
            full = false;
        }
    }
    let mut doc = match extra {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    doc.insert("total".into(), json!(items.len()));
    doc.insert("listed".into(), json!(listed.len()));
    doc.insert(
        "digest".into(),
        json!(format!("blake3:{}", hasher.finalize().to_hex())),
    );
    doc.insert("items".into(), Value::Array(listed));
    serde_json::to_vec_pretty(&Value::Object(doc)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_past_the_cap_are_counted() {
        let mut f = Findings::new(2);
        for i in 0..5 {
            f.push(Finding::new(format!("{i}")));
        }
        assert_eq!(f.len(), 5);
        let v = f.into_vec();
        assert_eq!(v.len(), 3);
        assert!(v[2].message.contains("3 more"), "{}", v[2].message);
    }

    #[test]
    fn lists_are_cut() {
        let items: Vec<String> = (0..12).map(|i| i.to_string()).collect();
        assert_eq!(list(&items[..3], 10), "0, 1, 2");
        assert_eq!(list(&items, 3), "0, 1, 2 and 9 more");
    }

    #[test]
    fn evidence_stays_under_budget_and_binds_the_full_list() {
        let items: Vec<Value> = (0..100_000)
            .map(|i| json!({"file": format!("docs/file-{i}.md"), "count": i}))
            .collect();
        let bytes = evidence(json!({"kind": "test"}), &items);
        assert!(bytes.len() <= EVIDENCE_BUDGET + 1024, "{}", bytes.len());
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(doc["total"], 100_000);
        assert!(doc["listed"].as_u64().unwrap() < 100_000);
        assert_eq!(doc["kind"], "test");
        let mut h = blake3::Hasher::new();
        for i in &items {
            h.update(serde_json::to_string(i).unwrap().as_bytes());
            h.update(b"\n");
        }
        assert_eq!(doc["digest"], format!("blake3:{}", h.finalize().to_hex()));
        let small = evidence(json!({}), &items[..3]);
        let doc: Value = serde_json::from_slice(&small).unwrap();
        assert_eq!(doc["listed"], 3);
    }
}
