//! A CSV dataset seen as the JSON the schema describes: each row an object
//! keyed by the header, each cell typed by the schema's property (`integer`,
//! `number`, `boolean`; an `array` cell is split on `;`), an empty cell
//! left out. Rows go where the schema expects an array of objects: the
//! document itself, or its one required array property (`{"items": [...]}`).
//! A dataset offered as JSON and CSV is then judged by the same schema in
//! both forms.

use vcc_sdk::serde_json::{Map, Value, json};

/// The instance, and the CSV line of each row (for findings).
pub fn instance(text: &str, schema: &Value) -> Result<(Value, Vec<u32>), String> {
    let mut records = vcc_plugin_common::csv::records(text);
    if records.is_empty() {
        return Err("the CSV has no header".into());
    }
    let (_, header) = records.remove(0);
    let (wrap, items) = rows_schema(schema).ok_or(
        "the schema expects no array of objects (the document, or one required array property) to put the rows in",
    )?;
    let mut lines = Vec::new();
    let mut rows = Vec::new();
    for (line, cells) in records {
        if cells.len() != header.len() {
            return Err(format!(
                "line {line} has {} field(s), the header {}",
                cells.len(),
                header.len()
            ));
        }
        let mut row = Map::new();
        for (name, cell) in header.iter().zip(cells) {
            if cell.is_empty() {
                continue;
            }
            let kind = items.pointer(&format!("/properties/{name}/type"));
            row.insert(
                name.clone(),
                typed(
                    &cell,
                    kind,
                    items.pointer(&format!("/properties/{name}/items/type")),
                ),
            );
        }
        rows.push(Value::Object(row));
        lines.push(line);
    }
    let rows = Value::Array(rows);
    Ok((
        match wrap {
            Some(key) => json!({ key: rows }),
            None => rows,
        },
        lines,
    ))
}

/// Where rows go: `(None, item schema)` when the document is the array,
/// `(Some(property), item schema)` when one required property is.
fn rows_schema(schema: &Value) -> Option<(Option<String>, &Value)> {
    let is_array = |s: &Value| s.get("type") == Some(&json!("array"));
    if is_array(schema) {
        return Some((None, schema.get("items")?));
    }
    let required = schema.get("required")?.as_array()?;
    let arrays: Vec<&str> = required
        .iter()
        .filter_map(Value::as_str)
        .filter(|k| {
            schema
                .pointer(&format!("/properties/{k}"))
                .is_some_and(is_array)
        })
        .collect();
    match arrays[..] {
        [one] => Some((
            Some(one.to_string()),
            schema.pointer(&format!("/properties/{one}/items"))?,
        )),
        _ => None,
    }
}

/// A cell as the type the schema gives it; kept as text when it does not
/// parse (the schema then says what is wrong).
fn typed(cell: &str, kind: Option<&Value>, items: Option<&Value>) -> Value {
    match kind.and_then(Value::as_str) {
        Some("integer") => cell
            .parse::<i64>()
            .map_or_else(|_| json!(cell), |n| json!(n)),
        Some("number") => cell
            .parse::<f64>()
            .map_or_else(|_| json!(cell), |n| json!(n)),
        Some("boolean") => match cell {
            "true" => json!(true),
            "false" => json!(false),
            _ => json!(cell),
        },
        Some("array") => Value::Array(
            cell.split(';')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(|c| typed(c, items, None))
                .collect(),
        ),
        _ => json!(cell),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_typed_by_the_schema() {
        let schema = json!({"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {"properties": {"qty": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}}}}});
        let (v, lines) = instance("ref,qty,tags,note\nU1,2,a; b,\nU2,x,,hi\n", &schema).unwrap();
        assert_eq!(
            v,
            json!({"items": [{"ref": "U1", "qty": 2, "tags": ["a", "b"]}, {"ref": "U2", "qty": "x", "note": "hi"}]})
        );
        assert_eq!(lines, [2, 3]);
        assert!(instance("a\n1\n", &json!({"type": "object"})).is_err());
    }
}
