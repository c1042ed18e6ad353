fn test_size() {}
fn test_last_page() {}
