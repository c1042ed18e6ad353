//! What each command does. `run` returns the process exit code.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::{CommandFactory, Parser};
use serde_json::json;
use vcc_contract::Level;
use vcc_report::law::exit;
use vcc_report::{Report, Verdict};
use vcc_runtime::{Builtin, Cache, CheckOptions, Runtime, WalkLimits};

use crate::args::{
    BundleCommand, CheckArgs, Cli, Command, Format, HookCommand, KeyCommand, LintArgs,
    ValidatorCommand,
};
use crate::render::{self, Style};

pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            if forgot_the_separator(&err) {
                eprintln!(
                    "hint: the command goes after `--`, e.g. `vcc record --out run.json -- cargo test` or `vcc converge contract.yaml -- ./agent.sh`"
                );
            }
            // Usage errors are "could not evaluate"; --help and --version are fine.
            return if err.use_stderr() {
                exit::INVALID
            } else {
                exit::ACCEPTED
            };
        }
    };
    let style = Style::new(cli.color);
    match &cli.command {
        Command::Schema => schema(),
        Command::Record(args) => crate::record::run(args),
        Command::Lint(args) => lint(&cli, args, &style),
        Command::Check(args) => check(&cli, args, &style),
        Command::Validator(ValidatorCommand::List { format, params }) => {
            validator_list(&cli, *format, *params)
        }
        Command::Validator(ValidatorCommand::New { lang, name, dir }) => {
            crate::author::new(*lang, name, dir.as_deref())
        }
        Command::Validator(ValidatorCommand::Build { dir }) => crate::author::build(dir),
        Command::Validator(ValidatorCommand::Test {
            target,
            cases,
            format,
        }) => match runtime(&cli) {
            Ok(rt) => crate::golden::test(&rt, target, cases.as_deref(), *format),
            Err(code) => code,
        },
        Command::Validator(ValidatorCommand::Inspect { component, format }) => {
            match runtime(&cli) {
                Ok(rt) => crate::author::inspect(&rt, component, *format),
                Err(code) => code,
            }
        }
        Command::Key(KeyCommand::Generate { name }) => crate::bundles::key_generate(name),
        Command::Bundle(command) => bundle(&cli, command),
        Command::Lock(args) => match runtime(&cli) {
            Ok(rt) => crate::gate::lock(&rt, args),
            Err(code) => code,
        },
        Command::Converge(args) => match runtime(&cli) {
            Ok(rt) => crate::converge::run(&rt, args),
            Err(code) => code,
        },
        Command::Hook(HookCommand::ClaudeCode(args)) => crate::hook::claude_code(&cli, args),
        Command::Mcp(args) => crate::mcp::serve(&cli, args),
        Command::Cache(command) => crate::cache::run(&cli, command),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "vcc", &mut script);
            print_stdout(&String::from_utf8_lossy(&script));
            exit::ACCEPTED
        }
        Command::Init(args) => crate::init::run(args),
        Command::Man => {
            let mut page = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut page) {
                Ok(()) => {
                    print_stdout(&String::from_utf8_lossy(&page));
                    exit::ACCEPTED
                }
                Err(e) => {
                    eprintln!("vcc man: {e}");
                    exit::INVALID
                }
            }
        }
    }
}

/// `vcc record --out f cargo test`: the command was taken for arguments.
fn forgot_the_separator(err: &clap::Error) -> bool {
    let takes_a_command = std::env::args()
        .nth(1)
        .is_some_and(|a| a == "record" || a == "converge");
    takes_a_command
        && !std::env::args().any(|a| a == "--")
        && matches!(
            err.kind(),
            clap::error::ErrorKind::UnknownArgument
                | clap::error::ErrorKind::MissingRequiredArgument
        )
}

fn bundle(cli: &Cli, command: &BundleCommand) -> i32 {
    use crate::bundles;
    match command {
        BundleCommand::Build { manifest, out } => match runtime(cli) {
            Ok(rt) => bundles::build(&rt, manifest, out),
            Err(code) => code,
        },
        BundleCommand::Inspect {
            target,
            trust,
            format,
        } => bundles::inspect(target, trust, *format),
        BundleCommand::Sign { dir, key, expires } => bundles::sign(dir, key, expires.as_deref()),
        BundleCommand::Verify {
            target,
            trust,
            format,
        } => bundles::verify_command(target, trust, *format),
        BundleCommand::Push {
            dir,
            reference,
            insecure,
        } => bundles::push(dir, reference, *insecure),
        BundleCommand::Pull { source, trust } => match runtime(cli) {
            Ok(rt) => bundles::pull(&rt, source, trust),
            Err(code) => code,
        },
    }
}

pub fn runtime(cli: &Cli) -> Result<Runtime, i32> {
    RuntimeSettings::of(cli).runtime().map_err(|e| {
        eprintln!("vcc: {e}");
        exit::INVALID
    })
}

/// What a runtime is made from (for `vcc mcp`, which makes one per call).
#[derive(Clone)]
pub struct RuntimeSettings {
    cache_dir: Option<PathBuf>,
}

impl RuntimeSettings {
    pub fn of(cli: &Cli) -> RuntimeSettings {
        RuntimeSettings {
            cache_dir: if cli.no_cache {
                None
            } else {
                cli.cache_dir.clone().or_else(Cache::default_dir)
            },
        }
    }

    /// The cache folder, unless `--no-cache`.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.cache_dir.clone()
    }

    pub fn runtime(&self) -> Result<Runtime, String> {
        let builtins = vcc_std::BUILTINS
            .iter()
            .map(|b| Builtin {
                name: b.name,
                bytes: b.bytes,
                digest: b.digest,
                precompiled: b.precompiled,
            })
            .collect();
        // A knob for tests and slow machines: how long one component may take
        // to compile (a duration like `300s`).
        let compile_timeout = match std::env::var("VCC_COMPILE_TIMEOUT") {
            Ok(text) if !text.is_empty() => {
                vcc_contract::DurationSpec::parse(&text)
                    .map_err(|e| format!("VCC_COMPILE_TIMEOUT: {e}"))?
                    .0
            }
            _ => vcc_runtime::DEFAULT_COMPILE_TIMEOUT,
        };
        let (runtime, warning) = Runtime::new(builtins, self.cache_dir.as_deref(), compile_timeout)
            .map_err(|err| format!("cannot start the WebAssembly runtime: {err:#}"))?;
        if let Some(warning) = warning {
            eprintln!("vcc: warning: {warning}");
        }
        Ok(runtime)
    }
}

fn schema() -> i32 {
    let text = serde_json::to_string_pretty(&vcc_contract::json_schema()).unwrap_or_default();
    print_stdout(&format!("{text}\n"));
    exit::ACCEPTED
}

fn lint(cli: &Cli, args: &LintArgs, style: &Style) -> i32 {
    let runtime = match runtime(cli) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let spinner =
        crate::progress::spinner(runtime.loader().progress(), args.format == Format::Human);
    let (digest, problems) =
        lint_problems(&runtime, &args.contract, args.dir.as_deref(), &args.gate);
    drop(spinner);
    emit_lint(
        &args.contract,
        digest.as_deref(),
        &problems,
        args.format,
        style,
    );
    if problems.iter().any(|p| p.is_error()) {
        exit::INVALID
    } else {
        exit::ACCEPTED
    }
}

/// The integrity pass of `vcc lint`: the contract's digest (when it could
/// be read) and its problems.
pub fn lint_problems(
    runtime: &Runtime,
    contract: &Path,
    dir: Option<&Path>,
    gate: &crate::args::GateArgs,
) -> (Option<String>, Vec<vcc_contract::Problem>) {
    let doc = match vcc_contract::load_all(contract) {
        Ok(doc) => doc,
        Err(problems) => return (None, problems),
    };
    let root = dir.map_or_else(|| doc.default_root(), Path::to_path_buf);
    let digest = doc.digest.clone();
    let doc = match crate::gate::prepare(runtime, doc, &root, gate) {
        Ok(prepared) => prepared.doc,
        Err(problems) => return (Some(digest), problems),
    };
    let (problems, _) = vcc_runtime::lint_with_validators(runtime.loader(), &doc, Some(&root));
    (Some(doc.digest.clone()), problems)
}

fn emit_lint(
    path: &Path,
    digest: Option<&str>,
    problems: &[vcc_contract::Problem],
    format: Format,
    style: &Style,
) {
    let count = |level: Level| problems.iter().filter(|p| p.level == level).count();
    let (errors, warnings, notes) = (
        count(Level::Error),
        count(Level::Warning),
        count(Level::Note),
    );
    match format {
        Format::Json => {
            let doc = json!({
                "schema_version": vcc_report::SCHEMA_VERSION,
                "contract": { "path": path.display().to_string(), "digest": digest },
                "ok": errors == 0,
                "errors": errors,
                "warnings": warnings,
                "notes": notes,
                "problems": problems,
            });
            print_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            ));
        }
        Format::Human => {
            let mut out = String::new();
            for p in problems {
                out.push_str(&render::problem(p, style));
            }
            out.push_str(&format!(
                "{}: {errors} error(s), {warnings} warning(s), {notes} note(s)\n",
                render::clean(&path.display().to_string())
            ));
            eprint!("{out}");
        }
    }
}

fn check(cli: &Cli, args: &CheckArgs, style: &Style) -> i32 {
    if args.contracts.len() > 1 && args.report.is_some() {
        eprintln!(
            "vcc check: --report keeps the report of one contract; run `vcc check` once per contract to keep each"
        );
        return exit::INVALID;
    }
    // First of all: a report left by an earlier run must not outlive this
    // one (see `unfinished_first`).
    if let Err(code) = unfinished_first(args, style) {
        return code;
    }
    let runtime = match runtime(cli) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let defaults = CheckOptions::default();
    let walk = WalkLimits {
        max_files: args.max_files.unwrap_or(defaults.walk.max_files),
        max_depth: args.max_depth.unwrap_or(defaults.walk.max_depth),
        max_file_size: args
            .max_file_size
            .map_or(defaults.walk.max_file_size, |s| s.0),
        ..defaults.walk.clone()
    };
    let options = CheckOptions {
        jobs: args.jobs.unwrap_or(defaults.jobs),
        evidence_dir: args.evidence_dir.clone(),
        walk,
        exclude: args.exclude.clone(),
        ..defaults
    };
    if args.watch {
        return crate::watch::run(args, || {
            if let Err(code) = unfinished_first(args, style) {
                return code;
            }
            check_once(&runtime, args, &options, style)
        });
    }
    check_once(&runtime, args, &options, style)
}

/// Until the run ends, the report file says it did not finish, so a
/// crash or a kill at any later point never leaves an old verdict behind.
/// `Err`: it cannot be written (said in the format asked), the exit code.
fn unfinished_first(args: &CheckArgs, style: &Style) -> Result<(), i32> {
    if let (Some(path), [contract]) = (&args.report, args.contracts.as_slice()) {
        let unfinished = Report::unfinished(&contract.display().to_string());
        if let Err(err) = write_atomically(path, report_json(&unfinished).as_bytes()) {
            // No run whose report cannot be kept: say so, in the format asked.
            let mut report = unfinished;
            report.reason = unwritable(path, &err);
            return Err(emit(report, args, style));
        }
    }
    Ok(())
}

/// One check of every contract given; the worst exit code.
fn check_once(runtime: &Runtime, args: &CheckArgs, options: &CheckOptions, style: &Style) -> i32 {
    let spinner =
        crate::progress::spinner(runtime.loader().progress(), args.format == Format::Human);
    let mut reports: Vec<Report> = args
        .contracts
        .iter()
        .map(|contract| {
            let mut report = evaluate_only(
                runtime,
                contract,
                args.dir.as_deref(),
                &args.gate,
                options.clone(),
                &args.only,
            )
            .report;
            if !args.only.is_empty() {
                partial(&mut report, &args.only);
            }
            report
        })
        .collect();
    drop(spinner);
    if reports.len() == 1 {
        return finish_check(reports.remove(0), args, style);
    }
    // Several contracts: each report in turn (a JSON array), the worst
    // exit code.
    let worst = reports
        .iter()
        .map(|r| r.exit_code(args.allow_advisory))
        .max()
        .unwrap_or(exit::INVALID);
    match args.format {
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&reports).unwrap_or_default()
        )),
        Format::Human => {
            for r in &reports {
                eprint!("{}", render::report(r, style));
            }
        }
    }
    worst
}

/// `--only`: keep the named criteria. Before the check, unknown ids make
/// it invalid; after it, a partial run is never accepted.
fn partial(report: &mut Report, only: &[String]) {
    report.partial = only.to_vec();
    let which = only.join(", ");
    match report.verdict {
        Verdict::Accepted => {
            report.verdict = Verdict::Withheld;
            report.reason = format!(
                "a partial run (--only {which}): every MUST it checked passed, but a partial run is never accepted"
            );
        }
        Verdict::Invalid => {}
        _ => report.reason = format!("a partial run (--only {which}): {}", report.reason),
    }
}

/// A check's report, and the budget of the contract it evaluated (with
/// its bases).
pub struct Evaluation {
    pub report: Report,
    pub budget: Option<vcc_contract::Budget>,
}

/// Load a contract, verify what binds it (trust policy, vcc.lock, bases),
/// and check it against the deliverables under `dir` (default: the
/// contract's folder). What `vcc check`, `converge`, `hook` and `mcp`
/// share.
pub fn evaluate(
    runtime: &Runtime,
    contract: &Path,
    dir: Option<&Path>,
    gate: &crate::args::GateArgs,
    options: CheckOptions,
) -> Evaluation {
    evaluate_only(runtime, contract, dir, gate, options, &[])
}

/// [`evaluate`], keeping only the criteria named in `only` (all when empty).
pub fn evaluate_only(
    runtime: &Runtime,
    contract: &Path,
    dir: Option<&Path>,
    gate: &crate::args::GateArgs,
    mut options: CheckOptions,
    only: &[String],
) -> Evaluation {
    let doc = match vcc_contract::load_all(contract) {
        Ok(doc) => doc,
        Err(problems) => {
            let report =
                vcc_runtime::unreadable_contract(contract, problems, runtime.loader().stats());
            return Evaluation {
                report,
                budget: None,
            };
        }
    };
    let root = dir.map_or_else(|| doc.default_root(), Path::to_path_buf);
    let (path, digest) = (doc.path.clone(), doc.digest.clone());
    match crate::gate::prepare(runtime, doc, &root, gate) {
        Ok(mut prepared) => {
            if !only.is_empty() {
                let ids: Vec<String> = prepared
                    .doc
                    .contract
                    .criteria
                    .iter()
                    .map(|c| c.id.clone())
                    .collect();
                let unknown: Vec<&str> = only
                    .iter()
                    .filter(|id| !ids.contains(id))
                    .map(String::as_str)
                    .collect();
                if !unknown.is_empty() {
                    let problem = prepared.doc.problem(
                        vcc_contract::Code::InvalidValue,
                        Level::Error,
                        &vcc_contract::FieldPath::root().key("criteria"),
                        format!(
                            "--only {}: no such criterion (the contract has: {})",
                            unknown.join(", "),
                            ids.join(", ")
                        ),
                    );
                    let mut report =
                        refused_report(&path, &digest, vec![problem], runtime.loader().stats());
                    report.reason = format!(
                        "--only names criteria the contract does not have: {}",
                        unknown.join(", ")
                    );
                    return Evaluation {
                        report,
                        budget: None,
                    };
                }
                prepared
                    .doc
                    .contract
                    .criteria
                    .retain(|c| only.contains(&c.id));
            }
            options.host_digest = runtime.host_digest();
            options.base_bundles = prepared.base_bundles;
            Evaluation {
                report: vcc_runtime::check(runtime.loader(), &prepared.doc, &root, &options),
                budget: prepared.doc.contract.budget.clone(),
            }
        }
        Err(problems) => Evaluation {
            report: refused_report(&path, &digest, problems, runtime.loader().stats()),
            budget: None,
        },
    }
}

/// A check refused before evaluation: its bundles, lock, trust policy or
/// bases could not be trusted.
fn refused_report(
    path: &Path,
    digest: &str,
    problems: Vec<vcc_contract::Problem>,
    cache: vcc_report::CacheStats,
) -> Report {
    if problems.is_empty() {
        return Report::unfinished(&path.display().to_string());
    }
    let mut report = vcc_runtime::unreadable_contract(path, problems, cache);
    report.contract.digest = Some(digest.to_string());
    report.reason = format!(
        "the contract's trust chain was refused ({}); no validator was run",
        report
            .problems
            .iter()
            .map(|p| p.code.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    report
}

/// Write the report file (if asked), then print.
fn finish_check(mut report: Report, args: &CheckArgs, style: &Style) -> i32 {
    if let Some(path) = &args.report
        && let Err(err) = write_atomically(path, report_json(&report).as_bytes())
    {
        // What is printed must not say accepted when the run failed.
        report.verdict = Verdict::Invalid;
        report.reason = unwritable(path, &err);
    }
    emit(report, args, style)
}

fn unwritable(path: &Path, err: &io::Error) -> String {
    format!(
        "the report could not be written to {}: {err}",
        path.display()
    )
}

/// Print a check's report as asked; its exit code.
fn emit(report: Report, args: &CheckArgs, style: &Style) -> i32 {
    if report.verdict == Verdict::Invalid
        && report.reason.starts_with("the report could not be written")
        && matches!(args.format, Format::Json)
    {
        // stdout may be piped into a tool; say it where a person looks.
        eprintln!("vcc check: {}", report.reason);
    }
    let code = report.exit_code(args.allow_advisory);
    match args.format {
        Format::Json => print_stdout(&report_json(&report)),
        Format::Human => eprint!("{}", render::report(&report, style)),
    }
    code
}

pub fn report_json(report: &Report) -> String {
    serde_json::to_string_pretty(report)
        .map_or_else(|e| format!("{{\"error\": \"{e}\"}}\n"), |s| s + "\n")
}

fn validator_list(cli: &Cli, format: Format, params: bool) -> i32 {
    let runtime = match runtime(cli) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut code = exit::ACCEPTED;
    let mut rows = Vec::new();
    let mut lines = String::new();
    for (name, loaded) in runtime.builtins() {
        match loaded {
            Ok(l) => {
                let d = &l.description;
                lines.push_str(&format!(
                    "{name:<22} {:<8} {}\n",
                    render::clean(&d.version),
                    render::clean(&d.summary)
                ));
                if params {
                    lines.push_str(&render::params_table(&d.params_schema, "    "));
                    lines.push('\n');
                }
                rows.push(json!({
                    "name": name,
                    "version": d.version,
                    "summary": d.summary,
                    "digest": l.digest,
                    "wit_version": l.wit_version,
                    "params_schema": d.params_schema,
                }));
            }
            Err(err) => {
                eprintln!("vcc: built-in validator {name} cannot be loaded: {err}");
                code = exit::INVALID;
            }
        }
    }
    match format {
        Format::Human => print_stdout(&lines),
        Format::Json => print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        )),
    }
    code
}

/// Machine output; a closed pipe (`vcc … | head`) is not an error.
pub fn print_stdout(text: &str) {
    let mut out = io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Write a file so that readers see the old content or the new, never part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot create the folder {}: {e}", dir.display()),
        )
    })?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
