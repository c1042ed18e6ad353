use super::*;

fn frame(f: &vcc_std::Frame) -> Frame {
    Frame {
        zst: f.zst,
        size: f.size,
        digest: f.digest,
    }
}

fn builtin(name: &str) -> Builtin {
    let b = vcc_std::BUILTINS.iter().find(|b| b.name == name).unwrap();
    Builtin {
        name: b.name,
        wasm: frame(&b.wasm),
        native: frame(&b.native),
        wasm_dictionary: frame(&vcc_std::WASM_DICTIONARY),
        native_dictionary: crate::validators::Raw {
            bytes: vcc_std::NATIVE_DICTIONARY.bytes,
            digest: vcc_std::NATIVE_DICTIONARY.digest,
        },
    }
}

fn native_bytes(b: &Builtin) -> Vec<u8> {
    let mut out = vec![0; b.native.size];
    unpack(&b.native, b.native_dictionary.bytes, &mut out).unwrap();
    out
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    *blake3::hash(bytes).as_bytes()
}

#[test]
fn the_first_use_decompresses_and_keeps_a_private_copy() {
    let dir = tempfile::tempdir().unwrap();
    let fx = builtin("std/markdown-sections");
    let code = load(&fx, Some(dir.path())).unwrap();
    assert_eq!(digest(code.bytes()), fx.native.digest);
    assert_eq!(code.bytes().as_ptr() as usize % PAGE, 0);

    let kept = cached_path(dir.path(), &fx);
    assert_eq!(digest(&fs::read(&kept).unwrap()), fx.native.digest);
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&kept), 0o600);
    assert_eq!(mode(kept.parent().unwrap()), 0o700);
    // Only the file: no temporary left beside it.
    assert_eq!(fs::read_dir(kept.parent().unwrap()).unwrap().count(), 1);
}

#[test]
fn a_cached_copy_the_worker_swapped_is_never_used() {
    // Another validator's code, cut to the size the cache should hold:
    // what a process of the same user could plant to run its own code.
    let dir = tempfile::tempdir().unwrap();
    let (fx, js) = (builtin("std/markdown-sections"), builtin("std/json-schema"));
    let kept = cached_path(dir.path(), &fx);
    fs::create_dir_all(kept.parent().unwrap()).unwrap();
    let other = native_bytes(&js);
    fs::write(&kept, &other[..fx.native.size]).unwrap();

    let code = load(&fx, Some(dir.path())).unwrap();
    assert_eq!(digest(code.bytes()), fx.native.digest);
    // ... and the swapped file is replaced by the real code.
    assert_eq!(digest(&fs::read(&kept).unwrap()), fx.native.digest);
}

#[test]
fn a_link_in_the_cache_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let fx = builtin("std/markdown-sections");
    let real = dir.path().join("elsewhere.cwasm");
    fs::write(&real, native_bytes(&fx)).unwrap();
    let kept = cached_path(dir.path(), &fx);
    fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &kept).unwrap();

    assert!(read_cached(&kept, &fx).is_none());
    load(&fx, Some(dir.path())).unwrap();
    // The link itself was replaced by a file; what it pointed to is as it was.
    assert!(fs::symlink_metadata(&kept).unwrap().is_file());
    assert_eq!(digest(&fs::read(&real).unwrap()), fx.native.digest);
}

#[test]
fn corrupt_embedded_code_is_an_error_not_a_run() {
    let mut fx = builtin("std/markdown-sections");
    fx.native.digest[0] ^= 1;
    let err = load(&fx, None).err().unwrap();
    assert_eq!(
        err,
        "std/markdown-sections: the embedded native code does not decompress to its digest"
    );
}

#[test]
fn a_fifo_in_the_cache_neither_blocks_nor_stays() {
    // Opening a FIFO for reading waits for a writer: a planted one must
    // not hang this run (and every later one) under the code lock.
    let dir = tempfile::tempdir().unwrap();
    let fx = builtin("std/markdown-sections");
    let kept = cached_path(dir.path(), &fx);
    fs::create_dir_all(kept.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(kept.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);

    let code = load(&fx, Some(dir.path())).unwrap();
    assert_eq!(digest(code.bytes()), fx.native.digest);
    assert!(fs::symlink_metadata(&kept).unwrap().is_file());
}

#[test]
fn the_dictionary_validator_runs_from_the_executable() {
    let dir = tempfile::tempdir().unwrap();
    let fx = builtin("std/file-exists");
    let code = native_code(&fx, Some(dir.path())).unwrap();
    assert_eq!(code.as_ptr(), vcc_std::NATIVE_DICTIONARY.bytes.as_ptr());
    assert!(
        !dir.path().join("std").exists(),
        "nothing decompressed or stored"
    );
}
