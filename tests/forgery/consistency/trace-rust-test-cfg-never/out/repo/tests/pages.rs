#[cfg(any())]
mod never {
#[test]
fn test_size() {}
#[test]
fn test_last_page() {}
}
