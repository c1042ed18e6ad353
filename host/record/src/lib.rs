//! The command-record format of `vcc record`, shared by the command that
//! writes records and `std/exit-record`, which judges them.
//!
//! A record's `record_digest` is the blake3 of its canonical form: the
//! record without `record_digest`, as compact JSON with the keys of every
//! object sorted. Any edit to a field a check relies on (exit code,
//! command, inputs, captures) changes the digest. This is integrity, not
//! authenticity: whoever can write the record can also recompute the
//! digest. It catches hand edits and hand-written records, not a forger
//! who reads this file; that takes a signature.

use serde_json::Value;

/// The record format `vcc record` writes (`vcc_record`). Version 1 had no
/// `record_digest`, inputs or outputs.
pub const VERSION: u64 = 2;

/// The field that holds the digest.
pub const DIGEST_FIELD: &str = "record_digest";

/// A signed record's DSSE envelope lies beside it: `RECORD` + this.
pub const ENVELOPE_SUFFIX: &str = ".dsse.json";

/// The DSSE payload type of a signed record: its payload is the record
/// file's exact bytes.
pub const PAYLOAD_TYPE: &str = "application/vnd.vcc.record+json";

/// The canonical text of a record: `record_digest` left out, keys sorted
/// at every depth, no whitespace.
pub fn canonical(record: &Value) -> String {
    let mut out = String::new();
    write(record, true, &mut out);
    out
}

/// `blake3:<hex>` of [`canonical`].
pub fn digest(record: &Value) -> String {
    format!(
        "blake3:{}",
        blake3::hash(canonical(record).as_bytes()).to_hex()
    )
}

fn write(value: &Value, top: bool, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map
                .keys()
                .filter(|k| !(top && k.as_str() == DIGEST_FIELD))
                .collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write(&map[key], false, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, false, out);
            }
            out.push(']');
        }
        // Strings, numbers, booleans and null as serde_json writes them.
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_and_the_digest_field_is_left_out() {
        let a = json!({"b": 1, "a": {"y": [2, "x"], "x": null}, "record_digest": "blake3:00"});
        assert_eq!(canonical(&a), r#"{"a":{"x":null,"y":[2,"x"]},"b":1}"#);
        let b = json!({"a": {"x": null, "y": [2, "x"]}, "b": 1});
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(
            digest(&a),
            digest(&json!({"a": {"x": null, "y": [2, "x"]}, "b": 2}))
        );
    }

    /// The same vector is checked in plugins/exit-record: both sides of
    /// the format agree on it.
    #[test]
    fn a_fixed_record_has_a_fixed_digest() {
        let record = json!({"vcc_record": 2, "command": ["sh", "-c", "exit 0"], "exit_code": 0, "note": "é\n"});
        assert_eq!(
            canonical(&record),
            r#"{"command":["sh","-c","exit 0"],"exit_code":0,"note":"é\n","vcc_record":2}"#
        );
    }
}
