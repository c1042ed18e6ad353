//! `vcc key generate`'s private key is PKCS#8 PEM (RFC 8410) that the
//! tools a CI owner already has read: OpenSSL 3 and Python's
//! `cryptography`. Each derives the public key from the private one, and
//! it must be the key vcc printed the id of and wrote to NAME.pub.

use std::process::Command;

use vcc_test_support::Scratch;

use crate::vcc;
use crate::world::tools_dir;

/// sha256 of bytes, as vcc's key ids write it.
fn key_id(spki_der: &[u8]) -> String {
    use sha2::Digest as _;
    format!("sha256:{:x}", sha2::Sha256::digest(spki_der))
}

#[test]
fn a_generated_key_is_read_by_openssl_and_cryptography_as_the_same_key() {
    let dir = Scratch::new();
    let name = dir.path().join("ci");
    let made = vcc(&["key", "generate", name.to_str().unwrap()]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let printed = made.stdout.trim().to_string();
    let private = dir.path().join("ci.key");
    let public = std::fs::read_to_string(dir.path().join("ci.pub")).unwrap();
    let pem = std::fs::read_to_string(&private).unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{pem}");

    // OpenSSL: the key parses as ED25519, and its public half, in SPKI PEM
    // and DER, is NAME.pub and hashes to the printed id.
    let text = Command::new("openssl")
        .args(["pkey", "-noout", "-text", "-in"])
        .arg(&private)
        .output()
        .unwrap();
    assert!(
        text.status.success(),
        "openssl pkey: {}",
        String::from_utf8_lossy(&text.stderr)
    );
    assert!(
        String::from_utf8_lossy(&text.stdout).starts_with("ED25519 Private-Key:"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
    let pub_pem = Command::new("openssl")
        .args(["pkey", "-pubout", "-in"])
        .arg(&private)
        .output()
        .unwrap();
    assert!(pub_pem.status.success());
    assert_eq!(String::from_utf8_lossy(&pub_pem.stdout), public);
    let pub_der = Command::new("openssl")
        .args(["pkey", "-pubout", "-outform", "DER", "-in"])
        .arg(&private)
        .output()
        .unwrap();
    assert!(pub_der.status.success());
    assert_eq!(key_id(&pub_der.stdout), printed);

    // cryptography (tests/install-tools.sh pins it in reports-py).
    let python = tools_dir().join("reports-py/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run tests/install-tools.sh",
        python.display()
    );
    let read = Command::new(python)
        .args([
            "-c",
            "import hashlib, sys\n\
             from cryptography.hazmat.primitives import serialization as s\n\
             from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey\n\
             k = s.load_pem_private_key(open(sys.argv[1], 'rb').read(), password=None)\n\
             assert isinstance(k, Ed25519PrivateKey), type(k)\n\
             der = k.public_key().public_bytes(s.Encoding.DER, s.PublicFormat.SubjectPublicKeyInfo)\n\
             pem = k.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo)\n\
             print('sha256:' + hashlib.sha256(der).hexdigest())\n\
             sys.stdout.write(pem.decode())\n",
        ])
        .arg(&private)
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "cryptography: {}",
        String::from_utf8_lossy(&read.stderr)
    );
    let out = String::from_utf8_lossy(&read.stdout);
    let (id, pem) = out.split_once('\n').unwrap();
    assert_eq!(id, printed);
    assert_eq!(pem, public);
}

/// A key in the form vcc wrote before (PKCS#8 v2, the public key
/// appended, which OpenSSL 3.0 cannot read) still signs.
#[test]
fn a_key_in_the_old_form_still_signs() {
    let dir = Scratch::new();
    // Seed: 32 bytes of 7s.
    let old = dir.write(
        "old.key",
        "-----BEGIN PRIVATE KEY-----\nMFECAQEwBQYDK2VwBCIEIAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH\ngSEA6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=\n-----END PRIVATE KEY-----\n",
    );
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    dir.write("root/a.txt", "a\n");
    let ledger = dir.path().join("log.jsonl");
    dir.write(
        "root/vcc.yaml",
        "vcc: 1\nid: t\ndeliverables:\n  - { id: a, path: a.txt }\nvalidators:\n  exists: { component: std/file-exists }\ncriteria:\n  - { id: A, severity: must, validator: exists, targets: [a] }\n",
    );
    let run = vcc(&[
        "check",
        dir.path().join("root/vcc.yaml").to_str().unwrap(),
        "--ledger",
        ledger.to_str().unwrap(),
        "--ledger-key",
        old.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // Its public key, as `cryptography` derives it from the seed.
    let public = dir.write(
        "old.pub",
        "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA6kpsY+KcUgq+9VB7Ey7F+ZVHdq6+vnuSQh7qaRRG0iw=\n-----END PUBLIC KEY-----\n",
    );
    let verify = vcc(&[
        "ledger",
        "verify",
        ledger.to_str().unwrap(),
        "--key",
        public.to_str().unwrap(),
    ]);
    assert_eq!(verify.code, 0, "{}{}", verify.stdout, verify.stderr);
}
