//! `vcc explain CONTRACT`: the contract as the worker's brief (numbered
//! criteria, what checks each, the evidence it needs, what to do when it
//! fails, the budget), as Markdown, a prompt, or JSON. Nothing runs: the
//! brief comes from the contract as `vcc check` would read it (bases,
//! locks and VCC v1 mappings applied), so it is the same bytes every time.

use std::path::Path;

use vcc_contract::brief::Brief;
use vcc_report::law::exit;

use crate::args::{BriefFormat, ExplainArgs};
use crate::output::print_stdout;
use crate::render::{self, Style};
use crate::settings::runtime;

pub fn run(cli: &crate::args::Cli, args: &ExplainArgs, style: &Style) -> i32 {
    let runtime = match runtime(cli) {
        Ok(r) => r,
        Err(code) => return code,
    };
    match brief(&runtime, &args.contract, args.dir.as_deref(), &args.gate) {
        Ok(brief) => {
            print_stdout(&render_as(&brief, args.format));
            exit::ACCEPTED
        }
        Err(problems) => {
            let mut out = String::new();
            for p in problems.iter().filter(|p| p.is_error()) {
                out.push_str(&render::problem(p, style));
            }
            eprint!("{out}");
            eprintln!(
                "vcc explain: {} cannot be read as a contract: run `vcc lint {}`",
                render::clean(&args.contract.display().to_string()),
                render::clean(&args.contract.display().to_string())
            );
            exit::INVALID
        }
    }
}

pub fn render_as(brief: &Brief, format: BriefFormat) -> String {
    match format {
        BriefFormat::Markdown => brief.markdown(),
        BriefFormat::Prompt => brief.prompt(),
        BriefFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(brief).unwrap_or_default()
        ),
    }
}

/// The brief of the contract at `path`, read as `vcc check` reads it.
pub fn brief(
    runtime: &vcc_runtime::Runtime,
    path: &Path,
    dir: Option<&Path>,
    gate: &crate::args::GateArgs,
) -> Result<Brief, Vec<vcc_contract::Problem>> {
    let mapping = gate.mapping().map_err(|why| {
        vec![vcc_contract::Problem {
            code: vcc_contract::Code::InvalidValue,
            level: vcc_contract::Level::Error,
            message: why,
            file: path.display().to_string(),
            field: None,
            line: None,
            column: None,
            help: None,
        }]
    })?;
    let (sources, doc) = vcc_contract::Sources::read_mapped(path, mapping)?;
    let root = dir.map_or_else(|| doc.default_root(), Path::to_path_buf);
    let prepared = crate::gate::prepare(runtime, doc, &sources, &root, gate)?;
    let mut check = format!("vcc check {}", path.display());
    if let Some(d) = dir {
        check.push_str(&format!(" --dir {}", d.display()));
    }
    Ok(Brief::of(
        &prepared.doc.contract,
        &path.display().to_string(),
        &check,
    ))
}
