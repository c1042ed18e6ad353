#[test]
fn test_size() { panic!() }
