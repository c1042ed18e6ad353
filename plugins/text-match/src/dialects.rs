//! Readings of formats a reader sees rendered that are not plain Markdown
//! (issue 34, red team D): reStructuredText escapes, Jupyter notebook
//! cells, and CSS spacing that joins letters on the page.

use vcc_plugin_common::Regex;
use vcc_plugin_common::regex;
use vcc_sdk::serde_json::Value;

use crate::page::Mapped;

/// reStructuredText as docutils renders it: a backslash-escaped blank
/// (newline too) is removed (`T\ ODO` shows `TODO`), `\x` is `x`, and
/// inline markup delimiters (`*`, `` ` ``, `|`) are left out, so
/// `T\ *O*\ DO` reads `TODO`.
pub fn rst_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Mapped::default();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some(&(j, next)) = chars.peek() {
                    chars.next();
                    if !next.is_whitespace() {
                        out.push(j, next);
                    }
                }
            }
            '*' | '`' | '|' => {}
            _ => out.push(i, c),
        }
    }
    out.lines()
}

/// A Jupyter notebook's cells: (offset of the cell in the JSON, its
/// source decoded, whether it is a Markdown cell). The offset is that of
/// the cell's `"cell_type"` key (the n-th one), or 0. `None` when the file
/// is not a notebook's JSON (then only its bytes are read).
pub fn notebook_cells(text: &str) -> Option<Vec<(usize, String, bool)>> {
    let doc: Value = vcc_sdk::serde_json::from_str(text).ok()?;
    let cells = doc.get("cells")?.as_array()?;
    let keys: Vec<usize> = text
        .match_indices("\"cell_type\"")
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::new();
    for (n, cell) in cells.iter().enumerate() {
        let at = keys.get(n).copied().unwrap_or(0);
        let markdown = cell.get("cell_type").and_then(Value::as_str) == Some("markdown");
        out.push((at, joined(cell.get("source")), markdown));
        // What a cell printed is shown under it.
        for output in cell
            .get("outputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push((at, joined(output.get("text")), false));
            if let Some(data) = output.get("data").and_then(Value::as_object) {
                for (mime, v) in data {
                    if mime.starts_with("text/") {
                        out.push((at, joined(Some(v)), mime == "text/markdown"));
                    }
                }
            }
        }
    }
    Some(out)
}

/// A notebook string, or list of strings, joined.
fn joined(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// Where CSS draws letters closer than written: a negative
/// `word-spacing`, `letter-spacing`, margin or indent (`TO DO` with
/// `word-spacing:-0.28em` shows `TODO`). What the page shows cannot be
/// told from the text, so a file with it is refused.
pub fn closed_spacing(text: &str) -> Option<usize> {
    static RE: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex(
            r"(?i)(?:word-spacing|letter-spacing|margin(?:-left|-right|-inline(?:-start|-end)?)?|text-indent|left|right|inset-inline(?:-start|-end)?|translate(?:x)?)\s*[:(][^;{}<>]*?-\s*(?:[0-9]*\.)?[0-9]",
            false,
        )
        .ok()
    })
    .as_ref()
    .and_then(|re| re.find(text))
    .map(|m| m.start())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rst_escaped_blanks_are_removed() {
        let l = rst_lines("Done.\n\nT\\ ODO: finish this\n\nT\\ *O*\\ DO\n");
        let t: Vec<&str> = l.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(t, vec!["Done.", "TODO: finish this", "TODO"]);
        assert_eq!(l[1].0, 7);
    }

    #[test]
    fn notebook_cells_are_read_decoded() {
        let nb = r#"{"cells":[{"cell_type":"code","source":["x = 1\n"],"outputs":[{"output_type":"stream","text":["T\u004fDO\n"]}]},{"cell_type":"markdown","source":["T&#79;DO"]}],"nbformat":4}"#;
        let cells = notebook_cells(nb).unwrap_or_default();
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[1].1, "TODO\n");
        assert!(cells[2].2 && cells[2].0 == nb.rfind("\"cell_type\"").unwrap_or(0));
        assert!(notebook_cells("not json").is_none());
    }

    #[test]
    fn negative_spacing_is_found() {
        let doc = "Done. <span style=\"word-spacing:-0.28em\">TO DO</span>";
        assert_eq!(closed_spacing(doc), doc.find("word-spacing"));
        assert!(closed_spacing("<span style=\"letter-spacing: -.3em\">").is_some());
        assert!(closed_spacing("<span style=\"margin-left:-4px\">").is_some());
        assert!(closed_spacing("<span style=\"letter-spacing:0.1em\">").is_none());
        assert!(closed_spacing("a well-known e-mail, 3-4 left-2").is_none());
    }
}
