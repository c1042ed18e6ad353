//! `vcc mcp`: a Model Context Protocol server over stdio (the `rmcp`
//! crate), so an agent can ask how its work stands. Tools: `check` (the
//! verdict, the failing criteria and the feedback), `lint` (the integrity
//! pass) and `explain` (the contract as a brief, then the feedback as
//! Markdown). A tool call reports; it
//! never admits anything: acceptance is for `vcc check`, `vcc converge`
//! and the hook, run by whoever gates the agent.

use std::path::PathBuf;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::json;
use vcc_report::converge::Feedback;
use vcc_report::law::exit;
use vcc_runtime::CheckOptions;

use crate::args::{Cli, GateArgs, McpArgs};
use crate::evaluate::{evaluate, lint_problems};
use crate::settings::RuntimeSettings;

/// What every tool is asked about.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Target {
    /// The contract file (YAML, or JSON with a .json extension), relative
    /// to the server's working folder or absolute.
    contract: String,
    /// The deliverable root [default: the contract's `root:`, else its folder].
    #[serde(default)]
    dir: Option<String>,
    /// Files from outside the root to judge as if they were under it:
    /// `{ "GUEST_PATH": "FILE" }`, e.g. `{ ".vcc/transcript.jsonl":
    /// "/tmp/session.jsonl" }` (the agent's transcript).
    #[serde(default)]
    attach: std::collections::BTreeMap<String, String>,
}

#[derive(Clone)]
struct Server {
    tool_router: ToolRouter<Self>,
    settings: RuntimeSettings,
    gate: GateArgs,
    ledger: crate::ledger::LedgerArgs,
}

const NOT_AN_ADMISSION: &str = "This is a report, not an admission: only `vcc check`, `vcc converge` or the vcc hook, run by whoever gates the work, decide acceptance.";

#[tool_router]
impl Server {
    /// Check the deliverables against a contract.
    #[tool(
        description = "Check deliverables against a vcc contract: the verdict, the MUST criteria that did not pass, and the feedback (findings with file:line). Reports only; it admits nothing."
    )]
    async fn check(&self, Parameters(t): Parameters<Target>) -> Result<String, String> {
        let (settings, gate, ledger) = (
            self.settings.clone(),
            self.gate.clone(),
            self.ledger.clone(),
        );
        blocking(move || {
            let mut report = checked(&settings, &gate, &t)?;
            if let Some(recorder) = ledger.recorder()? {
                recorder.check(vcc_ledger::Kind::Mcp, &mut report);
            }
            let failing: Vec<&str> = vcc_report::converge::blocking(&report)
                .map(|c| c.id.as_str())
                .collect();
            let out = json!({
                "verdict": report.verdict,
                "reason": report.reason,
                "failing": failing,
                "feedback": Feedback::of(&report, None, 0),
                "ledger": report.ledger,
                "note": NOT_AN_ADMISSION,
            });
            Ok(serde_json::to_string_pretty(&out).unwrap_or_default())
        })
        .await
    }

    /// The integrity pass.
    #[tool(
        description = "Lint a vcc contract (the integrity pass): problems with their code, field and line."
    )]
    async fn lint(&self, Parameters(t): Parameters<Target>) -> Result<String, String> {
        let (settings, gate) = (self.settings.clone(), self.gate.clone());
        blocking(move || {
            let rt = settings.runtime()?;
            let (digest, problems) = lint_problems(
                &rt,
                &PathBuf::from(&t.contract),
                t.dir.as_deref().map(std::path::Path::new),
                &gate,
            );
            let errors = problems.iter().filter(|p| p.is_error()).count();
            let out = json!({
                "ok": errors == 0,
                "errors": errors,
                "contract": { "path": t.contract, "digest": digest },
                "problems": problems,
            });
            Ok(serde_json::to_string_pretty(&out).unwrap_or_default())
        })
        .await
    }

    /// The brief, and the feedback as Markdown.
    #[tool(
        description = "Explain the work: the contract as a brief (numbered criteria, what checks each, the evidence needed, what to do when one fails), then what is missing now (the feedback of a check, as Markdown), ready for a prompt."
    )]
    async fn explain(&self, Parameters(t): Parameters<Target>) -> Result<String, String> {
        let (settings, gate) = (self.settings.clone(), self.gate.clone());
        blocking(move || {
            let rt = settings.runtime()?;
            let path = PathBuf::from(&t.contract);
            let dir = t.dir.as_deref().map(std::path::Path::new);
            let brief = crate::explain::brief(&rt, &path, dir, &gate).map_err(|problems| {
                let why: Vec<String> = problems
                    .iter()
                    .filter(|p| p.is_error())
                    .map(|p| format!("{}: {}", p.code.as_str(), p.message))
                    .collect();
                format!(
                    "{} cannot be read as a contract: {}",
                    t.contract,
                    why.join("; ")
                )
            })?;
            let report = checked(&settings, &gate, &t)?;
            let mut md = brief.markdown();
            md.push_str("---\n\n");
            md.push_str(&Feedback::of(&report, None, 0).markdown());
            md.push_str(&format!("\n_{NOT_AN_ADMISSION}_\n"));
            Ok(md)
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("vcc", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "vcc checks deliverables against a Verifiable Completion Contract. {NOT_AN_ADMISSION}"
            ))
    }
}

/// The report of a check of `t` (what `check` and `explain` answer from).
fn checked(
    settings: &RuntimeSettings,
    gate: &GateArgs,
    t: &Target,
) -> Result<vcc_report::Report, String> {
    let rt = settings.runtime()?;
    let mut options = CheckOptions::default();
    for (guest, file) in &t.attach {
        options
            .attached
            .push(crate::attach::parse(&format!("{guest}={file}"))?);
    }
    Ok(evaluate(
        &rt,
        &PathBuf::from(&t.contract),
        t.dir.as_deref().map(std::path::Path::new),
        gate,
        options,
    )
    .report)
}

/// Checks run WebAssembly validators on threads of their own; keep them
/// off the async workers.
async fn blocking(
    f: impl FnOnce() -> Result<String, String> + Send + 'static,
) -> Result<String, String> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(format!("internal: the tool call failed: {e}")))
}

pub fn serve(cli: &Cli, args: &McpArgs) -> i32 {
    let server = Server {
        tool_router: Server::tool_router(),
        settings: RuntimeSettings::of(cli),
        gate: args.gate.clone(),
        ledger: args.ledger.clone(),
    };
    let tokio = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("vcc mcp: cannot start: {e}");
            return exit::INVALID;
        }
    };
    let served = tokio.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| e.to_string())?;
        service.waiting().await.map_err(|e| e.to_string())?;
        Ok::<(), String>(())
    });
    match served {
        Ok(()) => exit::ACCEPTED,
        Err(e) => {
            eprintln!("vcc mcp: {e}");
            exit::INVALID
        }
    }
}
