//! Validators in C, Zig and any toolchain: `vcc validator wit`,
//! `componentize`, `lang: c | zig | custom`, and the conformance suite in C
//! and Zig (over the one-header C SDK, sdk/c/vcc_sdk.h).
//!
//! C and Zig builds need Zig (PyPI's `ziglang`): `bash sdk/install-tools.sh`
//! installs it into the tools folder, where vcc looks for `python-zig`.

use std::path::{Path, PathBuf};

use vcc_test_support::Scratch;

use crate::authoring::{author, build, sdk_round_trip};
use crate::{copy_dir, repo};

#[test]
fn c_sdk() {
    let component = sdk_round_trip("c");
    // A C validator carries no interpreter.
    assert!(std::fs::metadata(&component).unwrap().len() < 256 << 10);
}

#[test]
fn zig_sdk() {
    sdk_round_trip("zig");
}

/// The C conformance validator built in a scratch copy: its core module
/// (what a toolchain outside vcc would hand over) and its component.
fn prebuilt_core(scratch: &Scratch) -> (PathBuf, PathBuf) {
    let dir = scratch.path().join("c-conformance");
    copy_dir(&repo().join("sdk/c/examples/conformance"), &dir);
    let _ = std::fs::remove_dir_all(dir.join("build"));
    let _ = std::fs::remove_dir_all(dir.join(".vcc"));
    let component = build(&dir);
    let core = scratch.path().join("prebuilt-core.wasm");
    std::fs::copy(dir.join(".vcc/core.wasm"), &core).unwrap();
    (core, component)
}

/// `vcc validator componentize CORE -o OUT`.
fn componentize(core: &str, out: &str) -> crate::Run {
    author(&["validator", "componentize", core, "-o", out], &[])
}

/// `vcc validator test TARGET --cases CASES`.
fn test_with_cases(target: &str, cases: &str) -> crate::Run {
    author(&["validator", "test", target, "--cases", cases], &[])
}

fn custom_project(scratch: &Scratch, name: &str, build_sh: &str, output: &str) -> PathBuf {
    let dir = scratch.path().join(name);
    scratch.write(
        &format!("{name}/vcc-validator.yaml"),
        format!("name: {name}\nlang: custom\nbuild: sh build.sh\noutput: {output}\n"),
    );
    scratch.write(&format!("{name}/build.sh"), build_sh);
    dir
}

fn conformance_cases_pass(target: &Path) {
    let cases = repo().join("sdk/conformance/cases");
    let run = test_with_cases(target.to_str().unwrap(), cases.to_str().unwrap());
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("14 of 14 case(s) match"),
        "{}",
        run.stdout
    );
}

#[test]
fn custom_builds_take_a_core_module_or_a_component_from_any_command() {
    let scratch = Scratch::new();
    let (core, component) = prebuilt_core(&scratch);

    // A toolchain-free build: the command copies a core module built earlier.
    let dir = custom_project(
        &scratch,
        "from-core",
        &format!(
            "mkdir -p out\ncp {:?} out/core.wasm\n",
            core.display().to_string()
        ),
        "out/core.wasm",
    );
    let built = build(&dir);
    assert_eq!(built, dir.join("build/from-core.wasm"));
    conformance_cases_pass(&dir);
    // The build step is the same as for every language: the SDK and the WIT
    // are written for the command, which finds them through the environment.
    assert!(dir.join(".vcc/sdk/c/vcc_sdk.h").is_file());
    assert!(dir.join(".vcc/wit/validator.wit").is_file());

    // A command that leaves a finished component: used as it is.
    let dir = custom_project(
        &scratch,
        "from-component",
        &format!("cp {:?} whole.wasm\n", component.display().to_string()),
        "whole.wasm",
    );
    let built = build(&dir);
    assert_eq!(
        vcc_test_support::file_digest(&built),
        vcc_test_support::file_digest(&component)
    );

    // A command that succeeds without writing its output, and one that
    // fails: each an error naming what happened, and no component.
    let dir = custom_project(&scratch, "writes-nothing", "true\n", "out/core.wasm");
    let run = author(&["validator", "build", dir.to_str().unwrap()], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("succeeded but wrote no") && run.stderr.contains("out/core.wasm"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("build/writes-nothing.wasm").exists());
    let dir = custom_project(&scratch, "fails", "exit 3\n", "out/core.wasm");
    let run = author(&["validator", "build", dir.to_str().unwrap()], &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("the build command `sh build.sh` failed"),
        "{}",
        run.stderr
    );

    // `custom` without its two fields is refused with both named.
    scratch.write("bare/vcc-validator.yaml", "name: bare\nlang: custom\n");
    let run = author(
        &[
            "validator",
            "build",
            scratch.path().join("bare").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("needs `build:`") && run.stderr.contains("`output:`"),
        "{}",
        run.stderr
    );
}

#[test]
fn componentize_makes_a_component_vcc_runs_or_says_why_not() {
    let scratch = Scratch::new();
    let (core, _) = prebuilt_core(&scratch);
    let out = scratch.path().join("conformance.wasm");
    let run = componentize(core.to_str().unwrap(), out.to_str().unwrap());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("(reactor module): embedded the world vcc:validator@0.1.4"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("conformance 0.1.0"), "{}", run.stderr);
    conformance_cases_pass(&out);

    // Already a component: nothing to do.
    let run = componentize(
        out.to_str().unwrap(),
        scratch.path().join("again.wasm").to_str().unwrap(),
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("already a component"), "{}", run.stderr);

    // A program linked without the reactor model exports nothing to call.
    let empty = scratch.write("empty.wasm", wat::parse_str("(module)").unwrap());
    let run = componentize(
        empty.to_str().unwrap(),
        scratch.path().join("x.wasm").to_str().unwrap(),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("#describe`") && run.stderr.contains("-mexec-model=reactor"),
        "{}",
        run.stderr
    );

    // Every export in place, with the right signatures, but describe()
    // traps: the encoder is satisfied, the host is not, and nothing is
    // written for a contract to pin.
    let trapping = scratch.write(
        "trapping.wasm",
        wat::parse_str(
            r#"(module
                (memory (export "memory") 1)
                (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
                (func (export "vcc:validator/validator@0.1.4#describe") (result i32) unreachable)
                (func (export "vcc:validator/validator@0.1.4#validate")
                    (param i32 i32 i32 i32 i32 i32) (result i32) unreachable)
                (func (export "vcc:validator/params@0.1.4#check-params")
                    (param i32 i32) (result i32) unreachable))"#,
        )
        .unwrap(),
    );
    let refused = scratch.path().join("trapping-component.wasm");
    let run = componentize(trapping.to_str().unwrap(), refused.to_str().unwrap());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("would not run in vcc (not written)"),
        "{}",
        run.stderr
    );
    assert!(!refused.exists());

    // A signature that does not match the WIT is the encoder's refusal.
    let wrong = scratch.write(
        "wrong.wasm",
        wat::parse_str(
            r#"(module
                (memory (export "memory") 1)
                (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) unreachable)
                (func (export "vcc:validator/validator@0.1.4#describe") (param i32) unreachable)
                (func (export "vcc:validator/validator@0.1.4#validate")
                    (param i32 i32 i32 i32 i32 i32) (result i32) unreachable)
                (func (export "vcc:validator/params@0.1.4#check-params")
                    (param i32 i32) (result i32) unreachable))"#,
        )
        .unwrap(),
    );
    let run = componentize(
        wrong.to_str().unwrap(),
        scratch.path().join("w.wasm").to_str().unwrap(),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("does not fit the `plugin` world") && run.stderr.contains("describe"),
        "{}",
        run.stderr
    );
}

#[test]
fn wit_gives_every_version_vcc_loads() {
    let run = author(&["validator", "wit"], &[]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        std::fs::read_to_string(repo().join("wit/validator.wit")).unwrap()
    );
    let scratch = Scratch::new();
    let out = scratch.path().join("wit");
    let run = author(&["validator", "wit", "--out", out.to_str().unwrap()], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for version in ["0.1.0", "0.1.1", "0.1.2", "0.1.3", "0.1.4"] {
        let text = std::fs::read_to_string(out.join(version).join("validator.wit")).unwrap();
        assert!(
            text.contains(&format!("package vcc:validator@{version};")),
            "{version}"
        );
    }
    assert!(
        run.stdout
            .contains("0.1.4/validator.wit  vcc:validator@0.1.4 (the newest")
    );
}

#[test]
fn a_c_build_without_a_compiler_names_what_to_install() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("c");
    let run = author(
        &[
            "validator",
            "new",
            "--lang",
            "c",
            "c-check",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let nothing = [
        ("VCC_TOOLS_DIR", "/nonexistent"),
        ("VCC_ZIG", ""),
        ("WASI_SDK_PATH", "/nonexistent"),
        ("PATH", "/nonexistent"),
    ];
    let run = author(&["validator", "build", dir.to_str().unwrap()], &nothing);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no C compiler for WebAssembly found")
            && run.stderr.contains("pip install ziglang")
            && run.stderr.contains("WASI_SDK_PATH"),
        "{}",
        run.stderr
    );
    let dir = scratch.path().join("zig");
    assert_eq!(
        author(
            &[
                "validator",
                "new",
                "--lang",
                "zig",
                "z-check",
                dir.to_str().unwrap()
            ],
            &[]
        )
        .code,
        0
    );
    let run = author(&["validator", "build", dir.to_str().unwrap()], &nothing);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Zig is not installed") && run.stderr.contains("pip install ziglang"),
        "{}",
        run.stderr
    );
}

/// The C template reads text with `vcc_read_text`: a deliverable that hides
/// a TODO after a NUL byte (where C's string functions stop) or is not
/// UTF-8 is an error that says how to read bytes, never a pass.
#[test]
fn hostile_text_the_c_sdk_cannot_read_as_a_string_is_an_error() {
    let scratch = Scratch::new();
    let dir = scratch.path().join("c");
    let run = author(
        &[
            "validator",
            "new",
            "--lang",
            "c",
            "no-todo",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    build(&dir);
    scratch.write(
        "cases/nul/case.yaml",
        "expect: { status: error, reason: validator_error, summary: \"notes.md holds a NUL byte: read it as bytes with vcc_read\" }\n",
    );
    scratch.write("cases/nul/files/notes.md", b"done\0\nTODO: the rest\n");
    scratch.write(
        "cases/latin1/case.yaml",
        "expect: { status: error, reason: validator_error, summary: \"notes.md is not UTF-8 text\" }\n",
    );
    scratch.write("cases/latin1/files/notes.md", b"caf\xe9\nTODO\n");
    // A million short lines: read line by line in linear time (a strchr
    // per line once scanned the rest of the text each time, and timed out).
    scratch.write(
        "cases/million-lines/case.yaml",
        "expect: { status: pass, summary: no TODO }\n",
    );
    scratch.write(
        "cases/million-lines/files/notes.md",
        "ok\n".repeat(1_000_000),
    );
    let cases = scratch.path().join("cases");
    let run = test_with_cases(dir.to_str().unwrap(), cases.to_str().unwrap());
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("3 of 3 case(s) match"),
        "{}",
        run.stdout
    );
}

/// The C SDK's JSON reader (params, judge answers) reads a document as
/// Python's json module does: the differential in
/// tests/e2e/differential/c_sdk (the reader compiled natively with `cc`,
/// Python's json as the reference).
#[test]
fn the_c_sdks_json_reader_agrees_with_pythons_json() {
    let here = repo().join("tests/e2e/differential/c_sdk");
    let scratch = Scratch::new();
    let harness = scratch.path().join("harness");
    let built = std::process::Command::new("cc")
        .args(["-w", "-O1", "-I"])
        .arg(repo().join("sdk/c"))
        .arg(here.join("harness.c"))
        .arg(repo().join("sdk/c/vcc_sdk.c"))
        .arg("-o")
        .arg(&harness)
        .output()
        .expect("run cc");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let compared = std::process::Command::new("python3")
        .arg(here.join("reference.py"))
        .arg(&harness)
        .output()
        .expect("run python3");
    let said = String::from_utf8_lossy(&compared.stdout);
    assert!(compared.status.success(), "{said}");
    assert!(said.contains("43 of 43 documents"), "{said}");
}

/// The book's csv-clean (its code block, verbatim) against Python's csv
/// module on files written to make a CSV reader see fewer short rows than
/// pandas does: a quote inside an unquoted field, lone `\r` line ends, a
/// quote reopened after a closing one, a space before a quote (each once
/// ACCEPTED by the book's first version), and the ordinary cases.
#[test]
fn hostile_csv_the_books_validator_reads_as_pythons_csv() {
    let page = std::fs::read_to_string(repo().join("docs/src/guide/other-languages.md")).unwrap();
    let start = page
        .find("cat > csv-clean/validator.c <<'EOF'\n")
        .expect("the page writes csv-clean/validator.c");
    let code = &page[start..];
    let code = &code[code.find('\n').unwrap() + 1..code.find("\nEOF\n").unwrap() + 1];
    let scratch = Scratch::new();
    let dir = scratch.path().join("csv-clean");
    let run = author(
        &[
            "validator",
            "new",
            "--lang",
            "c",
            "csv-clean",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::write(dir.join("validator.c"), code).unwrap();
    std::fs::remove_dir_all(dir.join("cases")).unwrap();
    let samples: &[(&str, &[u8])] = &[
        (
            "clean",
            b"name,city\nAda,\"London, UK\"\n\"Bob \"\"B\"\"\",Paris\n",
        ),
        ("multiline-quoted", b"a,b\n\"x\ny\",2\r\n3,4"),
        ("short-last-row", b"name,city\nAda,London\nBob"),
        (
            "hidden-rows",
            b"name,city\nAda,London\nBob\"\nCarol\nDan\nEve\",Paris\n",
        ),
        ("cr-only", b"a,b\r1\r2,3\r"),
        ("lone-cr", b"a,b\n1,2\n3\r4,5\n"),
        ("quote-cr", b"a,b\n\"x\"\r2,3\n"),
        ("requote", b"a,b\n\"x\"y\"z\n1\",2\n"),
        ("after-quote", b"a,b\n\"x\"y,2\n"),
        ("space-quote", b"a, \"b,c\"\n1,2\n"),
        ("blank-lines", b"a,b\n\n1,2\n\r\n3,4\n"),
        ("unclosed", b"a,b\n\"1,2\n"),
        ("header-only", b"a,b\n"),
        ("empty", b""),
        ("crlf", b"a,b\r\n1,2\r\n"),
        ("bom-quoted", b"\xef\xbb\xbf\"a,b\",c\n1,2\n"),
    ];
    let reference = repo().join("tests/e2e/differential/c_sdk/csv_reference.py");
    for (name, bytes) in samples {
        let file = scratch.write(&format!("csv-clean/cases/{name}/files/data.csv"), bytes);
        let said = std::process::Command::new("python3")
            .arg(&reference)
            .arg(&file)
            .output()
            .expect("run python3");
        let want = String::from_utf8_lossy(&said.stdout).trim().to_string();
        assert!(want == "pass" || want == "fail", "{name}: {want}");
        scratch.write(
            &format!("csv-clean/cases/{name}/case.yaml"),
            format!("expect: {{ status: {want} }}\n"),
        );
    }
    build(&dir);
    let run = author(&["validator", "test", dir.to_str().unwrap()], &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains(&format!("{n} of {n} case(s) match", n = samples.len())),
        "{}",
        run.stdout
    );
}
