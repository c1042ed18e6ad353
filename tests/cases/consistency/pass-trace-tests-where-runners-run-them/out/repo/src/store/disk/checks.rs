#[test]
fn pages_survive_a_restart() {}
