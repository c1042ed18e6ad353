//! CSV, line by line (RFC 4180 quoting within a line; a quoted field that
//! spans lines is not supported): what trace matrices and CSV datasets
//! need.

/// The fields of one CSV line.
pub fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field).trim().to_string()),
            c => field.push(c),
        }
    }
    out.push(field.trim().to_string());
    out
}

/// The non-empty lines of a CSV text as (1-based line, fields).
pub fn records(text: &str) -> Vec<(u32, Vec<String>)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| ((i + 1) as u32, fields(l.trim_end_matches('\r'))))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn quotes_and_commas() {
        assert_eq!(
            super::fields("a,\"b, c\",\"d \"\"e\"\"\""),
            ["a", "b, c", "d \"e\""]
        );
        assert_eq!(
            super::records("h1,h2\r\n\r\n1,2\n")[1],
            (3, vec!["1".to_string(), "2".to_string()])
        );
    }
}
