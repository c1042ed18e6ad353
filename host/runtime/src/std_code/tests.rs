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
        native_dictionary: frame(&vcc_std::NATIVE_DICTIONARY),
    }
}

fn native_bytes(b: &Builtin) -> Vec<u8> {
    let mut out = vec![0; b.native.size];
    unpack(&b.native, &b.native_dictionary, &mut out).unwrap();
    out
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    *blake3::hash(bytes).as_bytes()
}

#[test]
fn the_first_use_decompresses_and_keeps_a_private_copy() {
    let dir = tempfile::tempdir().unwrap();
    let fx = builtin("std/file-exists");
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
    let (fx, js) = (builtin("std/file-exists"), builtin("std/json-schema"));
    let kept = cached_path(dir.path(), &fx);
    fs::create_dir_all(kept.parent().unwrap()).unwrap();
    let other = zstd::bulk::decompress(js.native, js.native_size).unwrap();
    fs::write(&kept, &other[..fx.native.size]).unwrap();

    let code = load(&fx, Some(dir.path())).unwrap();
    assert_eq!(digest(code.bytes()), fx.native.digest);
    // ... and the swapped file is replaced by the real code.
    assert_eq!(digest(&fs::read(&kept).unwrap()), fx.native.digest);
}

#[test]
fn a_link_in_the_cache_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let fx = builtin("std/file-exists");
    let real = dir.path().join("elsewhere.cwasm");
    fs::write(
        &real,
        zstd::bulk::decompress(fx.native, fx.native.size).unwrap(),
    )
    .unwrap();
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
    let mut fx = builtin("std/file-exists");
    fx.native.digest[0] ^= 1;
    let err = load(&fx, None).err().unwrap();
    assert_eq!(
        err,
        "std/file-exists: the embedded native code does not decompress to its digest"
    );
}
