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
fn every_digest_a_manifest_item_gives_must_match() {
    let sha = format!("{:x}", Sha256::digest(NOTES));
    let m = json!({"files": [{"path": "docs/notes.md", "sha256": sha, "blake3": "0".repeat(64)}]})
        .to_string()
        .into_bytes();
    let p = zip(&[("docs/notes.md", NOTES), ("MANIFEST.json", &m)], false);
    let o = run(p, r#"{"inputs": ["notes"], "manifest": true}"#);
    assert_eq!(rules(&o), ["manifest-mismatch"]);
}

#[test]
fn a_manifest_in_another_shape_says_the_shape_it_expected() {
    let m = br#"{"entries": {"docs/notes.md": "abc"}}"#;
    let p = zip(&[("docs/notes.md", NOTES), ("MANIFEST.json", m)], false);
    let o = run(p, r#"{"inputs": ["notes"], "manifest": true}"#);
    assert_eq!(rules(&o), ["manifest-mismatch"]);
    let said = &o.findings[0].message;
    assert!(said.contains(r#"expected {"files": [{"path""#), "{said}");
    assert!(said.contains("an object with `entries`"), "{said}");
    assert!(said.contains("vcc package manifest DIR"), "{said}");
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

/// A ustar header with its checksum.
fn tar_header(name: &str, size: usize, kind: u8) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    h[..name.len()].copy_from_slice(name.as_bytes());
    let mode: &[u8] = if kind == b'5' {
        b"0000755\0"
    } else {
        b"0000644\0"
    };
    h[100..108].copy_from_slice(mode);
    let size = format!("{size:011o}\0");
    h[124..136].copy_from_slice(size.as_bytes());
    h[156] = kind;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    sum(&mut h);
    h
}

/// Write a header's checksum (after a field was changed).
fn sum(h: &mut [u8]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h[..512].iter().map(|&b| u32::from(b)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// A tar of these files, without its end blocks.
fn tar_files(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut t = Vec::new();
    for (name, data) in entries {
        t.extend(tar_header(name, data.len(), b'0'));
        t.extend(*data);
        t.resize(t.len().div_ceil(512) * 512, 0);
    }
    t
}

/// One gzip member of `data`.
fn gzip_member(data: &[u8]) -> Vec<u8> {
    let mut g = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    g.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    g.extend(crc32fast::hash(data).to_le_bytes());
    g.extend((data.len() as u32).to_le_bytes());
    g
}

#[test]
fn a_tar_is_read_and_a_link_refused() {
    let mut t = tar_files(&[("docs/notes.md", NOTES)]);
    t.extend(vec![0u8; 1024]);
    let o = run(t.clone(), r#"{"inputs": ["notes"]}"#);
    assert!(
        matches!(o.status, vcc_sdk::Status::Pass),
        "{:?}",
        o.findings
    );
    let mut linked = tar_header("evil", 0, b'2');
    linked.extend(t);
    let o = run(linked, r#"{"inputs": ["notes"]}"#);
    assert_eq!(rules(&o), ["unreadable"]);
}

#[test]
fn every_gzip_member_is_read_and_checked() {
    let pass = r#"{"inputs": ["notes"]}"#;
    let mut tar = tar_files(&[("notes.md", NOTES)]);
    tar.extend(vec![0u8; 1024]);
    let one = gzip_member(&tar);
    assert!(matches!(
        run(one.clone(), pass).status,
        vcc_sdk::Status::Pass
    ));
    // The issue's example: a second member, which tar xzf unpacks, holds
    // an extra file (tar reads on: the first member's tar has no end).
    let mut two = gzip_member(&tar_files(&[("notes.md", NOTES)]));
    let mut rest = tar_files(&[("extra.sh", b"rm -rf ~\n")]);
    rest.extend(vec![0u8; 1024]);
    two.extend(gzip_member(&rest));
    assert_eq!(rules(&run(two, pass)), ["extra-entry"]);
    // Junk (even zeros) after the last member.
    for junk in [&b"junk"[..], &[0u8; 8][..]] {
        let mut j = one.clone();
        j.extend(junk);
        assert_eq!(rules(&run(j, pass)), ["unreadable"]);
    }
    // A wrong CRC-32, a wrong ISIZE.
    for at in [one.len() - 8, one.len() - 4] {
        let mut bad = one.clone();
        bad[at] ^= 1;
        assert_eq!(rules(&run(bad, pass)), ["unreadable"]);
    }
}

#[test]
fn data_after_the_tar_end_blocks_or_a_bad_checksum_is_unreadable() {
    let pass = r#"{"inputs": ["notes"]}"#;
    let mut tar = tar_files(&[("notes.md", NOTES)]);
    tar.extend(vec![0u8; 1024]);
    let mut after = tar.clone();
    after.extend(tar_files(&[("extra.sh", b"x")]));
    assert_eq!(rules(&run(after, pass)), ["unreadable"]);
    let mut bad = tar.clone();
    bad[0] = b'N';
    assert_eq!(rules(&run(bad, pass)), ["unreadable"]);
}

#[test]
fn names_are_normalised_before_inputs_and_duplicates() {
    let extra = r#"{"inputs": ["notes"], "allow_extra": true}"#;
    // The issue's example: `./notes.md` after `notes.md` overwrites the
    // input when unpacked, allow_extra or not.
    let z = zip(&[("notes.md", NOTES), ("./notes.md", b"evil")], true);
    assert!(rules(&run(z, extra)).contains(&"duplicate-entry".to_string()));
    for (a, b) in [
        ("docs//notes.md", "docs/notes.md"),
        ("Notes.md", "notes.md"),
        ("notes.md", "notes.md/x"),
    ] {
        let z = zip(&[(a, NOTES), (b, NOTES)], true);
        assert!(
            rules(&run(z, extra)).contains(&"duplicate-entry".to_string()),
            "{a} {b}"
        );
    }
    // The input's path under the root and under the package's folder
    // (`out/`): wherever it is unpacked, both must be the input.
    let z = zip(&[("out/notes.md", NOTES), ("notes.md", b"evil")], true);
    let mut f = Files::default();
    let at = format!("{MOUNT}/out/notes.md");
    f.add("notes", &at, NOTES.to_vec());
    f.set_digest(&at, &format!("blake3:{}", blake3::hash(NOTES).to_hex()));
    f.add("pkg", &format!("{MOUNT}/out/p.zip"), z);
    let o = f
        .run(|| Package::validate(f.criterion("AC-1", extra, &["pkg"])))
        .unwrap();
    assert_eq!(rules(&o), ["duplicate-entry"]);
    // `./notes.md` alone is the input.
    let z = zip(&[("./notes.md", NOTES)], true);
    assert!(matches!(
        run(z, r#"{"inputs": ["notes"]}"#).status,
        vcc_sdk::Status::Pass
    ));
}

#[test]
fn a_zip_whose_records_disagree_is_unreadable() {
    let pass = r#"{"inputs": ["notes"], "allow_extra": true}"#;
    let good = zip(&[("notes.md", NOTES), ("extra.md", b"more")], false);
    assert!(matches!(
        run(good.clone(), pass).status,
        vcc_sdk::Status::Pass
    ));
    let eocd = good.len() - 22;
    // The issue's example: the end record counts fewer entries.
    let mut fewer = good.clone();
    fewer[eocd + 8] = 1;
    fewer[eocd + 10] = 1;
    assert_eq!(rules(&run(fewer, pass)), ["unreadable"]);
    // The local header names another file.
    let mut renamed = good.clone();
    renamed[30] = b'N';
    assert_eq!(rules(&run(renamed, pass)), ["unreadable"]);
    // A local entry the central directory does not list.
    let hidden = zip(&[("notes.md", NOTES)], false);
    let other = zip(&[("evil.sh", b"x")], false);
    let local_len = other.len() - 22 - (46 + 7);
    let mut smuggled = other[..local_len].to_vec();
    let shift = smuggled.len() as u32;
    let dir_at = hidden.len() - 22 - (46 + 8);
    smuggled.extend(&hidden[..dir_at]);
    let mut central = hidden[dir_at..hidden.len() - 22].to_vec();
    central[42..46].copy_from_slice(&shift.to_le_bytes());
    let dir_offset = smuggled.len() as u32;
    smuggled.extend(&central);
    let mut end = hidden[hidden.len() - 22..].to_vec();
    end[16..20].copy_from_slice(&dir_offset.to_le_bytes());
    smuggled.extend(end);
    assert_eq!(rules(&run(smuggled, pass)), ["unreadable"]);
    // A comment that does not end the file.
    let mut trailing = good.clone();
    trailing.extend(b"junk");
    assert_eq!(rules(&run(trailing, pass)), ["unreadable"]);
}

#[test]
fn not_a_package_is_a_finding() {
    let o = run(b"just text".to_vec(), r#"{"inputs": ["notes"]}"#);
    assert_eq!(rules(&o), ["unreadable"]);
}

mod issue34;
