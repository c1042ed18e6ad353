//! RFC 4180 records, read the way Python's `csv` and pandas read them where
//! they agree, and refused where they do not (issue 34): a quoted field may
//! span lines, `""` inside quotes is one quote, CRLF and LF end records, a
//! leading UTF-8 BOM is not part of the first header, and empty lines are
//! skipped (pandas' `skip_blank_lines`). Nothing is trimmed: pandas keeps a
//! header ` score` as ` score`, so vcc must not validate it as `score`.
//!
//! Refused, because the readers disagree on them (or read them as
//! something other than the text): a quote inside an unquoted field, text
//! after a closing quote, a quoted field still open at the end of the file,
//! and a carriage return that does not end a line.

/// One record: the line it starts on (1-based) and its fields.
pub type Record = (u32, Vec<String>);

/// The records of a CSV text, or why it is refused (with its line).
pub fn records(text: &str) -> Result<Vec<Record>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line: u32 = 1;
    let mut start = 1;
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    // Whether the current field was quoted, and whether its quote is open.
    let (mut quoted, mut open) = (false, false);
    // Whether anything (a character or a separator) is in the record.
    let mut any = false;
    while let Some(c) = chars.next() {
        if open {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => open = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            ',' => {
                fields.push(std::mem::take(&mut field));
                quoted = false;
                any = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => {
                return Err(format!(
                    "line {line}: a carriage return that does not end the line (readers split records there differently)"
                ));
            }
            '\n' => {
                if any {
                    fields.push(std::mem::take(&mut field));
                    out.push((start, std::mem::take(&mut fields)));
                }
                (quoted, any) = (false, false);
                line += 1;
                start = line;
            }
            '"' if field.is_empty() && !quoted => {
                (quoted, open, any) = (true, true, true);
            }
            '"' => {
                return Err(format!(
                    "line {line}: a quote inside a field that is not quoted from its start (Python's csv and pandas read it differently)"
                ));
            }
            _ if quoted => {
                return Err(format!(
                    "line {line}: text after the closing quote of a field (Python's csv and pandas read it differently)"
                ));
            }
            c => {
                field.push(c);
                any = true;
            }
        }
    }
    if open {
        return Err(format!(
            "line {start}: a quoted field is never closed (the rest of the file would be one field)"
        ));
    }
    if any {
        fields.push(field);
        out.push((start, fields));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::records;

    fn fields(text: &str) -> Vec<Vec<String>> {
        records(text).unwrap().into_iter().map(|r| r.1).collect()
    }

    #[test]
    fn quoting_as_rfc_4180() {
        assert_eq!(
            fields("a,\"b, c\",\"d \"\"e\"\"\"\n"),
            [["a", "b, c", "d \"e\""]]
        );
        // A quoted newline stays in its field; the next record keeps its line.
        let r = records("h1,h2\r\n\"x\ny\",2\r\n\r\n3,4").unwrap();
        assert_eq!(r[1], (2, vec!["x\ny".to_string(), "2".to_string()]));
        assert_eq!(r[2].0, 5);
        assert_eq!(r.len(), 3);
    }

    #[test]
    fn a_bom_is_not_part_of_the_first_header() {
        assert_eq!(fields("\u{feff}score,id\n1,a\n")[0], ["score", "id"]);
    }

    #[test]
    fn nothing_is_trimmed_and_empty_fields_stay() {
        assert_eq!(fields(" a , b,\n"), [[" a ", " b", ""]]);
        assert_eq!(fields(",\n"), [["", ""]]);
        assert_eq!(fields("\"\"\n"), [[""]]);
    }

    #[test]
    fn ambiguous_quoting_is_refused() {
        assert!(records("a,b\"c\n").unwrap_err().contains("quote inside"));
        assert!(
            records("a,\"b\"c\n")
                .unwrap_err()
                .contains("after the closing")
        );
        assert!(records("a,\"b\n").unwrap_err().contains("never closed"));
        assert!(records("a\rb\n").unwrap_err().contains("carriage return"));
    }
}
