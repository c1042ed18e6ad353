use super::*;
use crate::validators::Frame;

fn frame(f: &vcc_std::Frame) -> Frame {
    Frame {
        zst: f.zst,
        size: f.size,
        digest: f.digest,
    }
}

fn builtins() -> Vec<Builtin> {
    vcc_std::BUILTINS
        .iter()
        .map(|b| Builtin {
            name: b.name,
            wasm: frame(&b.wasm),
            native: frame(&b.native),
            wasm_dictionary: frame(&vcc_std::WASM_DICTIONARY),
            native_dictionary: crate::validators::Raw {
                bytes: vcc_std::NATIVE_DICTIONARY.bytes,
                digest: vcc_std::NATIVE_DICTIONARY.digest,
            },
        })
        .collect()
}

fn binding(component: &str) -> ValidatorRef {
    ValidatorRef {
        component: component.into(),
        ..ValidatorRef::default()
    }
}

#[test]
fn a_planted_cache_entry_never_runs_as_a_builtin() {
    // A process of the same user can read cache.key and seal an entry
    // of its own: here std/json-schema's native code, under the key
    // std/file-exists would have had.
    let dir = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::new().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let all = builtins();
    let named = |n: &str| *all.iter().find(|b| b.name == n).unwrap();
    let (target, planted) = (named("std/file-exists"), named("std/json-schema"));
    let key = Cache::key(
        &blake3::Hash::from(target.wasm.digest),
        sandbox.engine().precompile_compatibility_hash(),
    );
    let native = sandbox
        .engine()
        .precompile_component(&planted.bytes().unwrap())
        .unwrap();
    cache.put(&key, &native).unwrap();
    let loader = Loader::new(sandbox, Some(cache), all, DEFAULT_COMPILE_TIMEOUT);

    let loaded = loader
        .load(&binding("std/file-exists"), Path::new("."))
        .unwrap();
    assert_eq!(loaded.description.name, "std/file-exists");
    let stats = loader.stats();
    assert_eq!((stats.embedded, stats.hits, stats.misses), (1, 0, 0));

    // The planted entry is a valid one: the same bytes loaded as a
    // user component come from it, and run as std/json-schema.
    let copy = dir.path().join("file-exists.wasm");
    std::fs::write(&copy, target.bytes().unwrap()).unwrap();
    let other = Loader::new(
        Sandbox::new().unwrap(),
        Some(Cache::open(dir.path()).unwrap()),
        Vec::new(),
        DEFAULT_COMPILE_TIMEOUT,
    );
    let hijacked = other
        .load(&binding(copy.to_str().unwrap()), Path::new("."))
        .unwrap();
    assert_eq!(hijacked.description.name, "std/json-schema");
}

#[test]
fn every_builtin_loads_from_its_embedded_code() {
    let loader = Loader::new(
        Sandbox::new().unwrap(),
        None,
        builtins(),
        DEFAULT_COMPILE_TIMEOUT,
    );
    for b in builtins() {
        let loaded = loader.load(&binding(b.name), Path::new(".")).unwrap();
        assert_eq!(loaded.description.name, b.name);
    }
    let stats = loader.stats();
    assert_eq!(stats.embedded as usize, builtins().len());
    assert_eq!(stats.misses, 0, "nothing compiled on this machine");
}

#[test]
fn embedded_code_runs_where_it_is_mapped_and_outlives_other_engines() {
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        for b in builtins() {
            let code = crate::std_code::native_code(&b, None).unwrap();
            assert!(crate::code_memory::in_place(code), "{}", b.name);
        }
    }
    // Several engines in one process load the same built-in (one maps
    // it, the others copy it); dropping some leaves the others' code
    // runnable.
    let new = || {
        Loader::new(
            Sandbox::new().unwrap(),
            None,
            builtins(),
            DEFAULT_COMPILE_TIMEOUT,
        )
    };
    let (first, second) = (new(), new());
    let fx = binding("std/file-exists");
    first.load(&fx, Path::new(".")).unwrap();
    let kept = second.load(&fx, Path::new(".")).unwrap();
    drop(first);
    drop(new().load(&fx, Path::new(".")).unwrap());
    let again = second.describe(&kept.pre).unwrap();
    assert_eq!(again.name, "std/file-exists");
    assert_eq!(second.stats().embedded, 1);
}

#[test]
fn an_embedded_component_decompresses_to_its_digest() {
    let mut b = builtins()[0];
    assert_eq!(blake3::hash(&b.bytes().unwrap()).as_bytes(), &b.wasm.digest);
    b.wasm.digest[0] ^= 1;
    let err = b.bytes().unwrap_err();
    assert_eq!(
        err,
        format!(
            "{}: the embedded component does not decompress to its digest",
            b.name
        )
    );
}

#[test]
fn component_headers_are_told_apart() {
    assert!(is_component(b"\0asm\x0d\x00\x01\x00rest"));
    assert!(!is_component(b"\0asm\x01\x00\x00\x00rest"));
    assert!(!is_component(b"PK\x03\x04"));
}
