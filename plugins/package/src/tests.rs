use super::*;
use vcc_sdk::MOUNT;
use vcc_sdk::native::Files;

/// A zip with these entries, deflated (method 8) or stored (method 0).
fn zip(entries: &[(&str, &[u8])], deflate: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let body = if deflate {
            miniz_oxide::deflate::compress_to_vec(data, 6)
        } else {
            data.to_vec()
        };
        let method: u16 = if deflate { 8 } else { 0 };
        let crc = crc32fast::hash(data);
        let offset = out.len() as u32;
        let mut local = Vec::new();
        local.extend(b"PK\x03\x04");
        local.extend(20u16.to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(method.to_le_bytes());
        local.extend([0u8; 4]);
        local.extend(crc.to_le_bytes());
        local.extend((body.len() as u32).to_le_bytes());
        local.extend((data.len() as u32).to_le_bytes());
        local.extend((name.len() as u16).to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(name.as_bytes());
        out.extend(&local);
        out.extend(&body);
        central.extend(b"PK\x01\x02");
        central.extend(20u16.to_le_bytes());
        central.extend(20u16.to_le_bytes());
        central.extend(0u16.to_le_bytes());
        central.extend(method.to_le_bytes());
        central.extend([0u8; 4]);
        central.extend(crc.to_le_bytes());
        central.extend((body.len() as u32).to_le_bytes());
        central.extend((data.len() as u32).to_le_bytes());
        central.extend((name.len() as u16).to_le_bytes());
        central.extend([0u8; 8]);
        central.extend(0u32.to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(name.as_bytes());
    }
    let dir_offset = out.len() as u32;
    out.extend(&central);
    out.extend(b"PK\x05\x06");
    out.extend([0u8; 4]);
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(dir_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

const NOTES: &[u8] = b"# Notes\n\nDone.\n";

fn run(package: Vec<u8>, params: &str) -> Outcome {
    let mut f = Files::default();
    f.add("notes", &format!("{MOUNT}/docs/notes.md"), NOTES.to_vec());
    f.set_digest(
        &format!("{MOUNT}/docs/notes.md"),
        &format!("blake3:{}", blake3::hash(NOTES).to_hex()),
    );
    f.add("pkg", &format!("{MOUNT}/out/p.zip"), package);
    f.run(|| Package::validate(f.criterion("AC-1", params, &["pkg"])))
        .unwrap()
}

fn rules(o: &Outcome) -> Vec<String> {
    o.findings.iter().filter_map(|f| f.rule.clone()).collect()
}

fn manifest(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let files: Vec<Value> = entries
        .iter()
        .map(|(n, d)| json!({"path": n, "sha256": format!("{:x}", Sha256::digest(d))}))
        .collect();
    json!({ "files": files }).to_string().into_bytes()
}

#[test]
fn a_package_with_its_inputs_and_a_manifest_passes() {
    let m = manifest(&[("docs/notes.md", NOTES)]);
    let p = zip(&[("docs/notes.md", NOTES), ("MANIFEST.json", &m)], true);
    let o = run(p, r#"{"inputs": ["notes"], "manifest": true}"#);
    assert!(
        matches!(o.status, vcc_sdk::Status::Pass),
        "{:?}",
        o.findings
    );
}

#[test]
fn other_bytes_missing_inputs_extras_and_no_manifest_are_findings() {
    let p = zip(
        &[
            ("docs/notes.md", b"# Notes\n\nNot done.\n"),
            ("x.txt", b"x"),
        ],
        false,
    );
    let o = run(p, r#"{"inputs": ["notes"], "manifest": true}"#);
    assert_eq!(rules(&o), ["different-bytes", "no-manifest", "extra-entry"]);
    let o = run(
        zip(&[("other.md", NOTES)], false),
        r#"{"inputs": ["notes"], "allow_extra": true}"#,
    );
    assert_eq!(rules(&o), ["missing-input"]);
}

#[test]
fn a_manifest_that_lies_is_a_finding() {
    let m = manifest(&[("docs/notes.md", b"something else")]);
    let p = zip(&[("docs/notes.md", NOTES), ("MANIFEST.json", &m)], false);
    let o = run(p, r#"{"inputs": ["notes"], "manifest": true}"#);
    assert_eq!(rules(&o), ["manifest-mismatch"]);
}

#[test]
fn names_that_escape_are_findings() {
    let p = zip(
        &[("docs/notes.md", NOTES), ("../../etc/cron.d/x", b"x")],
        false,
    );
    let o = run(p, r#"{"inputs": ["notes"], "allow_extra": true}"#);
    assert_eq!(rules(&o), ["unsafe-entry"]);
}

#[test]
fn a_zip_bomb_stops_at_the_limit() {
    let zeros = vec![0u8; 200_000];
    let p = zip(&[("docs/notes.md", NOTES), ("zeros", &zeros)], true);
    assert!(p.len() < 2_000, "the bomb is small: {}", p.len());
    let o = run(
        p,
        r#"{"inputs": ["notes"], "allow_extra": true, "max_bytes": 100000}"#,
    );
    assert_eq!(rules(&o), ["unreadable"]);
    assert!(
        o.findings[0].message.contains("zip bomb"),
        "{}",
        o.findings[0].message
    );
}

#[test]
fn a_tar_is_read_and_a_link_refused() {
    fn header(name: &str, size: usize, kind: u8) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        let size = format!("{size:011o}\0");
        h[124..136].copy_from_slice(size.as_bytes());
        h[156] = kind;
        h[257..262].copy_from_slice(b"ustar");
        h
    }
    let mut t = header("docs/notes.md", NOTES.len(), b'0');
    t.extend(NOTES);
    t.resize(1024, 0);
    t.extend(vec![0u8; 1024]);
    let o = run(t.clone(), r#"{"inputs": ["notes"]}"#);
    assert!(
        matches!(o.status, vcc_sdk::Status::Pass),
        "{:?}",
        o.findings
    );
    let mut linked = header("evil", 0, b'2');
    linked.extend(t);
    let o = run(linked, r#"{"inputs": ["notes"]}"#);
    assert_eq!(rules(&o), ["unreadable"]);
}

#[test]
fn not_a_package_is_a_finding() {
    let o = run(b"just text".to_vec(), r#"{"inputs": ["notes"]}"#);
    assert_eq!(rules(&o), ["unreadable"]);
}
