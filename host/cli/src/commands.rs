//! What each command does. `run` returns the process exit code.

use std::path::Path;

use clap::{CommandFactory, Parser};
use serde_json::json;
use vcc_contract::Level;
use vcc_report::law::exit;

use crate::args::{BundleCommand, Cli, Command, Format, KeyCommand, LintArgs, ValidatorCommand};
use crate::checking::evaluate::lint_problems;
use crate::output::print_stdout;
use crate::render::{self, Style};
use crate::settings::runtime;

pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // A hook's harness reads only its own protocol.
            if err.use_stderr()
                && let Some(harness) = crate::agents::hook::harness_in_args()
            {
                return crate::agents::hook::command_line_mistake(harness, &err);
            }
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
        Command::Record(args) => crate::trust::record::run(args),
        Command::Lint(args) => lint(&cli, args, &style),
        Command::Explain(args) => crate::agents::explain::run(&cli, args, &style),
        Command::Check(args) => {
            let code = crate::checking::check::run(&cli, args, &style);
            // --exit-zero: the job running a shard (or a report-only check)
            // fails only when the check could not judge.
            if args.exit_zero && code != exit::INVALID {
                exit::ACCEPTED
            } else {
                code
            }
        }
        Command::Merge(args) => crate::checking::merge::run(&cli, args, &style),
        Command::Validator(ValidatorCommand::List { format, params }) => {
            validator_list(&cli, *format, *params)
        }
        Command::Validator(ValidatorCommand::New { lang, name, dir }) => {
            crate::validator::author::new(*lang, name, dir.as_deref())
        }
        Command::Validator(ValidatorCommand::Build { dir }) => {
            let rt = crate::settings::RuntimeSettings::of(&cli).runtime().ok();
            crate::validator::author::build(dir, rt.as_ref())
        }
        Command::Validator(ValidatorCommand::Test {
            target,
            cases,
            record_judges,
            format,
        }) => match runtime(&cli) {
            Ok(rt) => crate::validator::golden::test(
                &rt,
                target,
                cases.as_deref(),
                record_judges.as_deref(),
                *format,
            ),
            Err(code) => code,
        },
        Command::Validator(ValidatorCommand::Wit { out }) => {
            crate::validator::wit::wit(out.as_deref())
        }
        Command::Validator(ValidatorCommand::Componentize { core, out }) => match runtime(&cli) {
            Ok(rt) => crate::validator::componentize::command(&rt, core, out),
            Err(code) => code,
        },
        Command::Validator(ValidatorCommand::Inspect { component, format }) => {
            match runtime(&cli) {
                Ok(rt) => crate::validator::author::inspect(&rt, component, *format),
                Err(code) => code,
            }
        }
        Command::Key(KeyCommand::Generate { name }) => crate::trust::key::generate(name),
        Command::Bundle(command) => bundle(&cli, command),
        Command::Lock(args) => match runtime(&cli) {
            Ok(rt) => crate::trust::binding::lock(&rt, args),
            Err(code) => code,
        },
        Command::Converge(args) => match runtime(&cli) {
            Ok(rt) => crate::agents::converge::run(&rt, args),
            Err(code) => code,
        },
        Command::Hook(hook) => crate::agents::hook::run(&cli, hook.harness, &hook.args),
        Command::Mcp(args) => crate::agents::mcp::serve(&cli, args),
        Command::Cache(command) => crate::cache::run(&cli, command),
        Command::Package(crate::args::PackageCommand::Manifest { dir }) => {
            crate::authoring::package::manifest(dir)
        }
        Command::Ledger(command) => crate::trust::ledger::run(command),
        Command::Attest(crate::args::AttestCommand::Verify {
            file,
            trust,
            dir,
            format,
        }) => crate::trust::attest::verify(file, trust.as_deref(), dir.as_deref(), *format),
        Command::Approve(args) => match runtime(&cli) {
            Ok(rt) => crate::checking::approve::run(&rt, args),
            Err(code) => code,
        },
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "vcc", &mut script);
            print_stdout(&String::from_utf8_lossy(&script));
            exit::ACCEPTED
        }
        Command::Init(args) if args.agents => crate::agents::instructions::run(
            &cli,
            args.dir.as_deref().unwrap_or(std::path::Path::new(".")),
            &args.out,
            &style,
        ),
        Command::Init(args) => crate::authoring::init::run(&cli, args),
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
    use crate::trust::bundles;
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
            // A layout folder named alone: every bundle it holds (air gap).
            Ok(rt) => match crate::trust::store_cmd::whole_layout(source) {
                Some(layout) => crate::trust::store_cmd::pull_layout(&rt, &layout, trust),
                None => bundles::pull(&rt, source, trust),
            },
            Err(code) => code,
        },
        BundleCommand::Refresh { contracts, trust } => {
            crate::trust::refresh::refresh(contracts, trust)
        }
        BundleCommand::List { trust, format } => {
            crate::trust::store_cmd::list(trust.as_deref(), *format)
        }
        BundleCommand::Rm { bundles } => crate::trust::store_cmd::rm(bundles),
        BundleCommand::Gc => crate::trust::store_cmd::gc(),
        BundleCommand::Save { dir, bundles } => crate::trust::store_cmd::save(dir, bundles),
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
    // The adapters file first, alone, with its lines: a binding that is
    // wrong is said where it is written, not when a criterion uses it.
    let mut problems: Vec<vcc_contract::Problem> = args
        .binding
        .adapters
        .as_deref()
        .map(vcc_contract::lint_adapters)
        .unwrap_or_default();
    let (shown, digest) = match (&args.contract, &args.binding.adapters) {
        (Some(contract), _) => {
            let spinner =
                crate::progress::spinner(runtime.loader().progress(), args.format == Format::Human);
            let (digest, more) =
                lint_problems(&runtime, contract, args.dir.as_deref(), &args.binding);
            drop(spinner);
            problems.extend(more);
            (contract.clone(), digest)
        }
        (None, Some(adapters)) => (adapters.clone(), None),
        // clap requires one of the two.
        (None, None) => return exit::INVALID,
    };
    emit_lint(&shown, digest.as_deref(), &problems, args.format, style);
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
