//! `vcc init --agents`: where agents read instructions. A section of
//! AGENTS.md (the file coding agents read before they work) and a skill in
//! the agentskills.io `SKILL.md` shape, both telling any harness how to
//! check its work with vcc before claiming it is done, with the contract's
//! criteria as `vcc explain --format prompt` writes them. Written again on
//! every run: the section between its markers is replaced, the rest of
//! AGENTS.md is left as it was.

use std::path::Path;

use crate::args::{BindingArgs, Cli};
use crate::output::write_atomically;
use crate::settings::runtime;

const BEGIN: &str =
    "<!-- vcc:begin (written by `vcc init --agents`: edits between these markers are replaced) -->";
const END: &str = "<!-- vcc:end -->";
/// Where the skill goes, under the folder.
pub const SKILL: &str = ".agents/skills/vcc-check/SKILL.md";

pub fn run(cli: &Cli, dir: &Path, contract: &Path, style: &crate::render::Style) -> i32 {
    let rt = match runtime(cli) {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let path = dir.join(contract);
    if !path.is_file() {
        eprintln!(
            "vcc init --agents: {} does not exist: write the contract first (`vcc init`), or name it with --out",
            path.display()
        );
        return 2;
    }
    let brief = match crate::agents::explain::brief(&rt, &path, None, &BindingArgs::default()) {
        Ok(b) => b,
        Err(problems) => {
            for p in problems.iter().filter(|p| p.is_error()) {
                eprint!("{}", crate::render::problem(p, style));
            }
            eprintln!(
                "vcc init --agents: {} fails lint, so nothing was written: fix the error(s) above (`vcc lint {}` shows them all)",
                path.display(),
                path.display()
            );
            return 2;
        }
    };
    // Commands as the agent runs them, from the folder.
    let shown = contract.display().to_string();
    let mut criteria = brief.prompt();
    criteria = criteria.replace(&path.display().to_string(), &shown);
    let how = format!(
        "This project's definition of done is the contract `{shown}` (id `{id}`), checked by vcc. Before you say a task is done:\n\n\
         1. Run `vcc check {shown}`. Exit 0: accepted. Exit 1: a MUST criterion did not pass: read what failed, fix the work, and run it again. Exit 2: the contract or the setup is broken: tell the user; do not work around it.\n\
         2. Never edit the contract, a trust policy, a judge configuration or a recorded session to make a check pass, and never write a record, a score or a signature by hand: vcc judges the contract as first read, and only evidence bound by digests and signatures counts.\n\
         3. `vcc explain {shown}` lists every criterion again.\n",
        id = brief.contract
    );
    let section = format!(
        "{BEGIN}\n## Checking your work with vcc\n\n{how}\n### The criteria\n\n```text\n{criteria}```\n{END}\n"
    );
    let agents = dir.join("AGENTS.md");
    let old = std::fs::read_to_string(&agents).unwrap_or_default();
    let text = match (old.find(BEGIN), old.find(END)) {
        (Some(b), Some(e)) if e > b => {
            let tail = &old[e + END.len()..];
            format!(
                "{}{section}{}",
                &old[..b],
                tail.strip_prefix('\n').unwrap_or(tail)
            )
        }
        _ if old.is_empty() => format!("# AGENTS.md\n\n{section}"),
        _ => format!(
            "{}\n{section}",
            old.trim_end_matches('\n').to_string() + "\n"
        ),
    };
    let skill = format!(
        "---\nname: vcc-check\ndescription: Check the work against this project's Verifiable Completion Contract ({shown}) with vcc before saying a task is done; use when finishing, handing over or claiming completion.\n---\n\n# Check the work with vcc\n\n{how}\n## The criteria\n\n```text\n{criteria}```\n"
    );
    for (file, bytes) in [(agents, text), (dir.join(SKILL), skill)] {
        if let Some(parent) = file.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
        {
            eprintln!("vcc init --agents: {}: {e}", parent.display());
            return 2;
        }
        if let Err(e) = write_atomically(&file, bytes.as_bytes()) {
            eprintln!("vcc init --agents: {}: {e}", file.display());
            return 2;
        }
    }
    eprintln!(
        "wrote the vcc section of {} and {} from {}",
        dir.join("AGENTS.md").display(),
        dir.join(SKILL).display(),
        path.display()
    );
    0
}
