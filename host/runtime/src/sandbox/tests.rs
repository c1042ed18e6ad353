use super::*;

#[test]
fn guest_paths_map_to_snapshot_keys() {
    assert_eq!(
        snapshot_key("/deliverables/docs/a.md").unwrap(),
        "docs/a.md"
    );
    assert_eq!(snapshot_key("docs/./a.md").unwrap(), "docs/a.md");
    assert!(snapshot_key("/etc/passwd").is_err());
    assert!(snapshot_key("/deliverablesX/a").is_err());
    assert!(snapshot_key("/deliverables/../etc/passwd").is_err());
    assert!(snapshot_key("a/../../b").is_err());
}

/// Instantiate a component given as text in a store built as runs are.
fn instantiate(text: &str) -> String {
    let sandbox = Sandbox::new().unwrap();
    let component = Component::new(sandbox.engine(), wat::parse_str(text).unwrap()).unwrap();
    let limits = RunLimits {
        timeout: Duration::from_secs(10),
        memory: 64 << 20,
    };
    let (mut store, _pipes) = sandbox.store(sandbox.engine(), limits, None).unwrap();
    match sandbox.linker.instantiate(&mut store, &component) {
        Ok(_) => "instantiated".into(),
        Err(err) => format!("{err:#}"),
    }
}

#[test]
fn instance_table_and_memory_counts_are_capped() {
    let instances = |n: usize| {
        let each = "(core instance (instantiate $m))".repeat(n);
        format!("(component (core module $m) {each})")
    };
    assert_eq!(instantiate(&instances(MAX_INSTANCES)), "instantiated");
    assert!(
        instantiate(&instances(MAX_INSTANCES + 1)).contains("instance count too high"),
        "{}",
        instantiate(&instances(MAX_INSTANCES + 1))
    );
    let tables = |n: usize| {
        let each = "(table 1 funcref)".repeat(n);
        format!("(component (core module $m {each}) (core instance (instantiate $m)))")
    };
    assert_eq!(instantiate(&tables(MAX_TABLES)), "instantiated");
    assert!(instantiate(&tables(MAX_TABLES + 1)).contains("table count too high"));
    let memories = |n: usize| {
        let each = "(memory 1)".repeat(n);
        format!("(component (core module $m {each}) (core instance (instantiate $m)))")
    };
    assert_eq!(instantiate(&memories(MAX_MEMORIES)), "instantiated");
    assert!(instantiate(&memories(MAX_MEMORIES + 1)).contains("memory count too high"));
    // A memory declared larger than the run's cap never comes to be.
    let big = "(component (core module $m (memory 2000)) (core instance (instantiate $m)))";
    assert!(
        instantiate(big).contains("memory limit"),
        "{}",
        instantiate(big)
    );
    let big_table =
        "(component (core module $m (table 2000000 funcref)) (core instance (instantiate $m)))";
    assert!(instantiate(big_table).contains("table limit"));
}
