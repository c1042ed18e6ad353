mod tests {}
#[test]
fn test_size() {}
#[test]
fn test_last_page() {}
