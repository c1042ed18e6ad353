//! A CSV dataset seen as the JSON the schema describes: each row an object
//! keyed by the header, each cell typed by the schema's property (`integer`,
//! `number`, `boolean`; an `array` cell is split on `;`), an empty cell
//! left out. Rows go where the schema expects an array of objects: the
//! document itself, or its one required array property (`{"items": [...]}`).
//! A dataset offered as JSON and CSV is then judged by the same schema in
//! both forms.
//!
//! The header is read as pandas reads it (read.rs: RFC 4180, a BOM
//! stripped, nothing trimmed). A name given twice is refused: pandas keeps
//! the first column (and renames the second `x.1`), a row object could keep
//! only one, so the other would never be validated. A column the row schema
//! requires must be in the header even when no row is. When the row schema
//! says `additionalProperties: false`, a column it does not name is
//! refused even if all its cells are empty (an empty cell is left out of
//! its row, so the schema alone would never see the column).

mod read;

use vcc_sdk::serde_json::{Map, Value, json};

/// The instance, and the CSV line of each row (for findings).
pub fn instance(text: &str, schema: &Value) -> Result<(Value, Vec<u32>), String> {
    let mut records = read::records(text)?;
    if records.is_empty() {
        return Err("the CSV has no header".into());
    }
    let (_, header) = records.remove(0);
    let (wrap, items) = rows_schema(schema).ok_or(
        "the schema expects no array of objects (the document, or one required array property) to put the rows in",
    )?;
    check_header(&header, items)?;
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
            // By key, not by JSON pointer: a header may hold `/` or `~`.
            let property = items.get("properties").and_then(|p| p.get(name.as_str()));
            let kind = property.and_then(|p| p.get("type"));
            let item_kind = property.and_then(|p| p.pointer("/items/type"));
            row.insert(name.clone(), typed(&cell, kind, item_kind));
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

/// A header every reader reads alike: no name twice, every required
/// column, and (under `additionalProperties: false`) no column the row
/// schema does not name.
fn check_header(header: &[String], items: &Value) -> Result<(), String> {
    for (i, name) in header.iter().enumerate() {
        if let Some(j) = header[..i].iter().position(|h| h == name) {
            return Err(format!(
                "the header names `{name}` twice (columns {} and {}): pandas reads the first and renames the second `{name}.1`, a row keeps one; rename or drop one",
                j + 1,
                i + 1
            ));
        }
    }
    // A required column must be in the header even with no row under it:
    // pandas' `df["score"]` on the file fails, an empty row list passes.
    let missing: Vec<String> = items
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| !header.iter().any(|h| h == r))
        .map(|r| format!("`{r}`"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the header has no column {} that the schema requires",
            missing.join(", ")
        ));
    }
    if items.get("additionalProperties") == Some(&json!(false))
        && items.get("patternProperties").is_none()
    {
        let named = |n: &str| items.get("properties").and_then(|p| p.get(n)).is_some();
        let extra: Vec<String> = header
            .iter()
            .enumerate()
            .filter(|(_, n)| !named(n))
            .map(|(i, n)| format!("`{}` (column {})", n.escape_debug(), i + 1))
            .collect();
        if !extra.is_empty() {
            return Err(format!(
                "the schema does not name column(s) {} (additionalProperties: false)",
                extra.join(", ")
            ));
        }
    }
    Ok(())
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

    fn scores() -> Value {
        json!({"type": "array", "items": {"type": "object", "required": ["score"], "additionalProperties": false, "properties": {"id": {"type": "string"}, "score": {"type": "integer", "maximum": 100}}}})
    }

    #[test]
    fn a_bom_does_not_hide_the_first_column() {
        let (v, _) = instance("\u{feff}score,id\n900,a\n", &scores()).unwrap();
        assert_eq!(v, json!([{"score": 900, "id": "a"}]));
    }

    #[test]
    fn a_duplicate_header_is_refused_naming_both_columns() {
        let why = instance("id,score,score\na,1,900\n", &scores()).unwrap_err();
        assert!(why.contains("`score` twice (columns 2 and 3)"), "{why}");
    }

    #[test]
    fn columns_the_schema_does_not_name_are_refused_when_closed() {
        let why = instance("id,score,note\na,1,\n", &scores()).unwrap_err();
        assert!(why.contains("`note` (column 3)"), "{why}");
        let open =
            json!({"type": "array", "items": {"properties": {"score": {"type": "integer"}}}});
        assert!(instance("id,score,note\na,1,\n", &open).is_ok());
        // Not trimmed: ` score` is not `score`.
        assert!(instance("id, score\na,1\n", &scores()).is_err());
    }

    #[test]
    fn a_required_column_is_in_the_header_even_without_rows() {
        let why = instance("id\n", &scores()).unwrap_err();
        assert!(why.contains("no column `score`"), "{why}");
        assert!(instance("id,score\n", &scores()).is_ok());
    }
}
