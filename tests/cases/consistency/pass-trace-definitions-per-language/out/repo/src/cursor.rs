/// An opaque cursor.
pub struct Cursor(String);

#[cfg(test)]
mod tests {
    #[test]
    fn cursor_is_opaque() {}
}
