//! Red team 34: folders onto files, header fields one reader refuses,
//! modes that make an input unreadable, names Windows or macOS fold.

use super::*;

const ONLY: &str = r#"{"inputs": ["notes"]}"#;
const EXTRA: &str = r#"{"inputs": ["notes"], "allow_extra": true}"#;

fn ended(mut t: Vec<u8>) -> Vec<u8> {
    t.extend(vec![0u8; 1024]);
    t
}

fn passes(o: &Outcome) -> bool {
    matches!(o.status, vcc_sdk::Status::Pass)
}

fn has(o: &Outcome, rule: &str) -> bool {
    rules(o).iter().any(|r| r == rule)
}

/// The offset of the first central directory record.
fn central(z: &[u8]) -> usize {
    z.windows(4)
        .position(|w| w == b"PK\x01\x02")
        .expect("a central record")
}

#[test]
fn a_folder_entry_onto_a_file_is_a_duplicate() {
    // GNU tar replaces the file with an empty folder; unzip fails.
    let mut t = tar_files(&[("notes.md", NOTES)]);
    t.extend(tar_header("notes.md", 0, b'5'));
    for params in [ONLY, EXTRA] {
        assert!(has(&run(ended(t.clone()), params), "duplicate-entry"));
    }
    let z = zip(&[("notes.md", NOTES), ("Notes.md/", b"")], false);
    assert!(has(&run(z, ONLY), "duplicate-entry"));
    // A folder entry beside the package, onto the input the package
    // holds at its path under the root.
    let z = zip(&[("out/notes.md", NOTES), ("notes.md/", b"")], false);
    let mut f = Files::default();
    let at = format!("{MOUNT}/out/notes.md");
    f.add("notes", &at, NOTES.to_vec());
    f.set_digest(&at, &format!("blake3:{}", blake3::hash(NOTES).to_hex()));
    f.add("pkg", &format!("{MOUNT}/out/p.zip"), z);
    let o = f
        .run(|| Package::validate(f.criterion("AC-1", ONLY, &["pkg"])))
        .unwrap();
    assert_eq!(rules(&o), ["duplicate-entry"]);
    // A folder first, then the file onto it.
    let z = zip(&[("notes.md/", b""), ("notes.md", NOTES)], false);
    assert!(has(&run(z, EXTRA), "duplicate-entry"));
    // `./`, a folder holding the input, a folder twice: all fine.
    let mut t = tar_header("./", 0, b'5');
    t.extend(tar_header("docs/", 0, b'5'));
    t.extend(tar_header("docs/", 0, b'5'));
    t.extend(tar_files(&[("docs/notes.md", NOTES)]));
    let o = run(ended(t), ONLY);
    assert!(passes(&o), "{:?}", o.findings);
}

#[test]
fn a_gzip_header_crc_is_checked() {
    let tar = ended(tar_files(&[("notes.md", NOTES)]));
    let plain = gzip_member(&tar);
    let mut with_crc = plain[..10].to_vec();
    with_crc[3] |= 2;
    let crc = (crc32fast::hash(&with_crc) & 0xffff) as u16;
    with_crc.extend(crc.to_le_bytes());
    with_crc.extend(&plain[10..]);
    assert!(passes(&run(with_crc.clone(), ONLY)));
    with_crc[10] ^= 1;
    assert_eq!(rules(&run(with_crc, ONLY)), ["unreadable"]);
}

#[test]
fn a_zip_entry_needing_more_than_unzip_can_do_is_unreadable() {
    let z = zip(&[("notes.md", NOTES)], true);
    let c = central(&z);
    for (v, ok) in [(46u8, true), (47, false), (51, false), (63, false)] {
        for at in [4, c + 6] {
            let mut bad = z.clone();
            bad[at] = v;
            let o = run(bad, ONLY);
            assert_eq!(passes(&o), ok, "{v} at {at}: {:?}", o.findings);
        }
    }
    // Needs VMS.
    let mut vms = z.clone();
    vms[c + 7] = 2;
    assert_eq!(rules(&run(vms, ONLY)), ["unreadable"]);
}

#[test]
fn tar_numbers_both_readers_refuse_are_unreadable() {
    let t = ended(tar_files(&[("notes.md", NOTES)]));
    let set = |at: usize, f: &[u8]| {
        let mut t = t.clone();
        t[at..at + f.len()].copy_from_slice(f);
        sum(&mut t);
        t
    };
    for (at, f) in [
        (108, &b"zz\0\0\0\0\0\0"[..]),
        (108, b"+0001750"),
        (108, b"00_01750"),
        (108, b"        "),
        (116, b"\xff\xff\xff\xff\xff\xff\xff\xff"),
        (100, b"0644 x\0\0"),
        (100, b"\x80\0\0\0\0\0\x01\xa4"),
        (136, b"1234567890 9"),
        (329, b"9\0\0\0\0\0\0\0"),
        (337, b"0x1\0\0\0\0\0"),
    ] {
        let o = run(set(at, f), ONLY);
        assert_eq!(rules(&o), ["unreadable"], "{at} {}", f.escape_ascii());
    }
    // What GNU tar and tarfile both write or read.
    for (at, f) in [
        (108, &b"0001750\0"[..]),
        (108, b" 1750 \0\0"),
        (116, b"\x80\0\0\0\0\0\x03\xe8"),
        (136, b"14567012345\0"),
        (329, b"\0\0\0\0\0\0\0\0"),
    ] {
        let o = run(set(at, f), ONLY);
        assert!(passes(&o), "{at} {}: {:?}", f.escape_ascii(), o.findings);
    }
}

#[test]
fn an_input_its_owner_cannot_read_is_a_finding() {
    let mut t = tar_files(&[("notes.md", NOTES)]);
    for (mode, ok) in [
        (b"0000000\0", false),
        (b"0000244\0", false),
        (b"0000400\0", true),
    ] {
        t[100..108].copy_from_slice(mode);
        sum(&mut t);
        let o = run(ended(t.clone()), ONLY);
        assert_eq!(passes(&o), ok, "{:?}", o.findings);
        assert_eq!(has(&o, "unreadable"), !ok);
    }
    // A folder above it that its owner cannot enter.
    let mut t = tar_header("docs/", 0, b'5');
    t[100..108].copy_from_slice(b"0000644\0");
    sum(&mut t);
    t.extend(tar_files(&[("docs/notes.md", NOTES)]));
    assert!(has(&run(ended(t), ONLY), "unreadable"));
    // A zip made on Unix with mode 0 (unzip applies it), and on MS-DOS
    // (no Unix mode: unzip gives the default).
    let z = zip(&[("notes.md", NOTES)], true);
    let c = central(&z);
    let mut unix = z.clone();
    unix[c + 5] = 3;
    assert!(has(&run(unix.clone(), ONLY), "unreadable"));
    unix[c + 40..c + 42].copy_from_slice(&0o100644u16.to_le_bytes());
    assert!(passes(&run(unix, ONLY)));
    assert!(passes(&run(z, ONLY)));
}

#[test]
fn names_windows_or_macos_fold_onto_an_input_are_duplicates() {
    for other in [
        "notes.md.",
        "notes.md ",
        "notes.md. .",
        "NOTES.MD",
        "notes.md::$DATA",
        "notes.md:x",
    ] {
        let z = zip(&[("notes.md", NOTES), (other, b"evil")], true);
        assert!(has(&run(z, EXTRA), "duplicate-entry"), "{other}");
    }
    // NFC and NFD of one name.
    let mut z = zip(&[("not\u{e9}s.md", b"x"), ("note\u{301}s.md", b"y")], false);
    // Flag both names UTF-8, in their local and central records.
    for sig in [&b"PK\x03\x04"[..], b"PK\x01\x02"] {
        let at: Vec<usize> = (0..z.len() - 4).filter(|&i| &z[i..i + 4] == sig).collect();
        let flags = if sig[2] == 3 { 7 } else { 9 };
        for i in at {
            z[i + flags] |= 0x08;
        }
    }
    assert!(has(&run(z, r#"{"allow_extra": true}"#), "duplicate-entry"));
    // A `:` is refused even alone (a drive, a stream), and so is a
    // component Windows empties.
    for name in ["c:notes.md", "notes.md:x", "docs/.../notes.md", "docs/ /x"] {
        let z = zip(&[(name, b"x")], true);
        assert!(
            has(&run(z, r#"{"allow_extra": true}"#), "unsafe-entry"),
            "{name}"
        );
    }
}
