#[test]
fn resumes_from_a_cursor() {}
