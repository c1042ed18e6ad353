//! What each command does. `run` returns the process exit code.

use std::io;
use std::path::Path;

use clap::{CommandFactory, Parser};
use serde_json::json;
use vcc_contract::Level;
use vcc_report::law::exit;
use vcc_report::{Report, Verdict};
use vcc_runtime::{CheckOptions, Runtime, WalkLimits};

use crate::args::{
    BundleCommand, CheckArgs, Cli, Command, Format, HookCommand, KeyCommand, LintArgs,
    ValidatorCommand,
};
use crate::evaluate::{evaluate, lint_problems};
use crate::output::{print_stdout, write_atomically};
use crate::render::{self, Style};
use crate::settings::runtime;

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
    let mut attached = Vec::new();
    for spec in &args.attach {
        match crate::attach::parse(spec) {
            Ok(file) => attached.push(file),
            Err(why) => {
                eprintln!("vcc check: {why}");
                return exit::INVALID;
            }
        }
    }
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
        only: args.only.clone(),
        attached,
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
            let mut report = evaluate(
                runtime,
                contract,
                args.dir.as_deref(),
                &args.gate,
                options.clone(),
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
