//! Trace matrices: rows mapping a requirement id to implementation paths
//! and tests, read from a Markdown pipe table, a CSV file or a JSON array.
//!
//! A table is a trace matrix when its header has a requirement column
//! (`Requirement`, `Req`, `ID`, `AC`) and a test column (`Test`,
//! `Verification`); the implementation column is `Implementation`, `Code`,
//! `Source`, `File`, `Design`, `Component` or `Module`.

use vcc_sdk::serde_json::Value;

use crate::doc::Table;

/// One row: the requirement cell and the paths of its implementation and
/// tests, with the line of the row (0 when the format has none).
pub struct Row {
    pub file: String,
    pub line: u32,
    pub requirement: String,
    pub implementation: Vec<String>,
    pub tests: Vec<String>,
}

/// A matrix found in one file; `has_implementation` is false when its
/// header has no implementation column.
pub struct Matrix {
    pub file: String,
    pub has_implementation: bool,
    pub rows: Vec<Row>,
}

fn column(header: &[String], words: &[&str]) -> Option<usize> {
    header.iter().position(|h| {
        let h = h.to_lowercase();
        words.iter().any(|w| {
            h.split(|c: char| !c.is_alphanumeric())
                .any(|t| t.starts_with(w))
        })
    })
}

const REQUIREMENT: &[&str] = &["requirement", "req", "id", "ac", "criterion"];
const TEST: &[&str] = &["test", "verification", "verified"];
const IMPLEMENTATION: &[&str] = &[
    "implementation",
    "impl",
    "code",
    "source",
    "file",
    "design",
    "component",
    "module",
];

/// The matrix in a header and rows, if the header makes it one.
fn from_rows(file: &str, header: &[String], rows: &[(u32, Vec<String>)]) -> Option<Matrix> {
    let req = column(header, REQUIREMENT)?;
    let test = column(header, TEST).filter(|&t| t != req)?;
    let implementation = column(header, IMPLEMENTATION).filter(|&i| i != req && i != test);
    let cell = |cells: &Vec<String>, i: usize| cells.get(i).cloned().unwrap_or_default();
    Some(Matrix {
        file: file.to_string(),
        has_implementation: implementation.is_some(),
        rows: rows
            .iter()
            .map(|(line, cells)| Row {
                file: file.to_string(),
                line: *line,
                requirement: cell(cells, req),
                implementation: implementation
                    .map(|i| split(&cell(cells, i)))
                    .unwrap_or_default(),
                tests: split(&cell(cells, test)),
            })
            .collect(),
    })
}

pub fn from_table(file: &str, table: &Table) -> Option<Matrix> {
    from_rows(file, &table.header, &table.rows)
}

/// A CSV file (quoted fields allowed) whose header makes it a matrix.
pub fn from_csv(file: &str, text: &str) -> Option<Matrix> {
    let mut rows = vcc_plugin_common::csv::records(text);
    if rows.is_empty() {
        return None;
    }
    let header = rows.remove(0).1;
    from_rows(file, &header, &rows)
}

/// A JSON array of objects (or `{"rows": [...]}`) with a requirement key
/// and a tests key.
pub fn from_json(file: &str, value: &Value) -> Option<Matrix> {
    let list = value
        .as_array()
        .or_else(|| value.get("rows").and_then(Value::as_array))
        .or_else(|| value.get("matrix").and_then(Value::as_array))?;
    let first = list.first()?.as_object()?;
    let keys: Vec<String> = first.keys().cloned().collect();
    let key = |words: &[&str]| column(&keys, words).map(|i| keys[i].clone());
    let req = key(REQUIREMENT)?;
    let test = key(TEST).filter(|t| *t != req)?;
    let implementation = key(IMPLEMENTATION).filter(|i| *i != req && *i != test);
    let strings = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::String(s)) => split(s),
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).flat_map(split).collect(),
            _ => Vec::new(),
        }
    };
    Some(Matrix {
        file: file.to_string(),
        has_implementation: implementation.is_some(),
        rows: list
            .iter()
            .map(|row| Row {
                file: file.to_string(),
                line: 0,
                requirement: row
                    .get(&req)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                implementation: strings(implementation.as_ref().and_then(|k| row.get(k))),
                tests: strings(row.get(&test)),
            })
            .collect(),
    })
}

/// The entries of a cell: split on `,`, `;` and `<br>`; backticks and
/// Markdown links reduced to their target.
pub fn split(cell: &str) -> Vec<String> {
    cell.replace("<br>", ",")
        .replace("<br/>", ",")
        .split([',', ';'])
        .map(|e| {
            let e = e.trim();
            let e = match (e.find("]("), e.ends_with(')')) {
                (Some(i), true) => &e[i + 2..e.len() - 1],
                _ => e,
            };
            e.trim_matches('`').trim().to_string()
        })
        .filter(|e| !e.is_empty() && e != "-" && !e.eq_ignore_ascii_case("n/a"))
        .collect()
}

/// A matrix entry as (path, fragment): `src/a.py::test_x` → (`src/a.py`,
/// `test_x`); `plan.md#T-1` → (`plan.md`, `T-1`); `src/a.py:12` →
/// (`src/a.py`, none).
pub fn reference(entry: &str) -> (String, Option<String>) {
    if let Some((path, name)) = entry.split_once("::") {
        return (path.to_string(), Some(name.to_string()));
    }
    if let Some((path, anchor)) = entry.split_once('#') {
        return (
            path.to_string(),
            Some(anchor.to_string()).filter(|a| !a.is_empty()),
        );
    }
    match entry.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) => {
            (path.to_string(), None)
        }
        _ => (entry.to_string(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_csv_and_references() {
        assert_eq!(
            split("`src/a.py`, [b](src/b.py); n/a<br>c.md"),
            ["src/a.py", "src/b.py", "c.md"]
        );
        assert_eq!(
            reference("t.py::test_x"),
            ("t.py".into(), Some("test_x".into()))
        );
        assert_eq!(
            reference("plan.md#T-1"),
            ("plan.md".into(), Some("T-1".into()))
        );
        assert_eq!(reference("a.py:12"), ("a.py".into(), None));
        let m = from_csv(
            "m.csv",
            "Requirement,Implementation,Tests\nREQ-1,src/a.py,tests/t.py\n",
        )
        .unwrap();
        assert!(m.has_implementation);
        assert_eq!(m.rows[0].line, 2);
        assert!(from_csv("x.csv", "name,link\na,b\n").is_none());
    }
}
