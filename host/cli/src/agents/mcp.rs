//! `vcc mcp`: a Model Context Protocol server over stdio (the `rmcp`
//! crate), so an agent can ask how its work stands. Tools: `check` (the
//! verdict, the failing criteria and the feedback), `lint` (the integrity
//! pass) and `explain` (the contract as a brief, then the feedback as
//! Markdown). A tool call reports; it
//! never admits anything: acceptance is for `vcc check`, `vcc converge`
//! and the hook, run by whoever gates the agent.

use std::path::PathBuf;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use vcc_report::converge::Feedback;
use vcc_report::law::exit;
use vcc_runtime::CheckOptions;

use crate::args::{BindingArgs, Cli, McpArgs};
use crate::checking::evaluate::{evaluate, lint_problems};
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

/// What `check` answers, as `structuredContent` (and the same JSON as
/// text), described by the tool's `outputSchema`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct CheckOutput {
    /// `accepted`, `rejected`, `withheld` or `invalid`.
    verdict: String,
    reason: String,
    /// The MUST criteria that did not pass.
    failing: Vec<String>,
    /// Every criterion's row: id, severity, status.
    criteria: Vec<CriterionRow>,
    /// blake3 of the contract as judged.
    contract_digest: Option<String>,
    /// blake3 over the deliverables' files as judged.
    root_digest: Option<String>,
    /// The feedback (as `$VCC_FEEDBACK` has it): what failed and what to do.
    feedback: Value,
    /// Where the verdict was logged (`--ledger`), if it was.
    ledger: Option<Value>,
    note: String,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct CriterionRow {
    id: String,
    /// `must`, `should` or `may`.
    severity: String,
    /// `pass`, `fail`, `skip` or `error`.
    status: String,
}

/// What `lint` answers, as `structuredContent`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
struct LintOutput {
    ok: bool,
    errors: usize,
    contract: LintContract,
    /// Each with its stable `code`, `level`, `message`, file, field and line.
    problems: Vec<Value>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct LintContract {
    path: String,
    digest: Option<String>,
}

fn word<T: Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[derive(Clone)]
struct Server {
    tool_router: ToolRouter<Self>,
    settings: RuntimeSettings,
    binding: BindingArgs,
    ledger: crate::args::LedgerArgs,
}

const NOT_AN_ADMISSION: &str = "This is a report, not an admission: only `vcc check`, `vcc converge` or the vcc hook, run by whoever gates the work, decide acceptance.";

#[tool_router]
impl Server {
    /// Check the deliverables against a contract.
    #[tool(
        description = "Check deliverables against a vcc contract: the verdict, every criterion's status, the MUST criteria that did not pass, the digests judged, and the feedback (findings with file:line). Reports only; it admits nothing.",
        annotations(
            read_only_hint = true,
            idempotent_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn check(&self, Parameters(t): Parameters<Target>) -> Result<Json<CheckOutput>, String> {
        let (settings, binding, ledger) = (
            self.settings.clone(),
            self.binding.clone(),
            self.ledger.clone(),
        );
        blocking(move || {
            let mut report = checked(&settings, &binding, &t)?;
            if let Some(recorder) = ledger.recorder()? {
                recorder.check(vcc_ledger::Kind::Mcp, &mut report);
            }
            let failing = vcc_report::converge::blocking(&report)
                .map(|c| c.id.clone())
                .collect();
            Ok(Json(CheckOutput {
                verdict: word(report.verdict),
                reason: report.reason.clone(),
                failing,
                criteria: report
                    .criteria
                    .iter()
                    .map(|c| CriterionRow {
                        id: c.id.clone(),
                        severity: word(c.severity),
                        status: word(c.status),
                    })
                    .collect(),
                contract_digest: report.contract.digest.clone(),
                root_digest: report.deliverables.as_ref().map(|d| d.root_digest.clone()),
                feedback: serde_json::to_value(Feedback::of(&report, None, 0)).unwrap_or_default(),
                ledger: report
                    .ledger
                    .as_ref()
                    .and_then(|l| serde_json::to_value(l).ok()),
                note: match report.verdict {
                    vcc_report::Verdict::Advisory => {
                        format!("{}. {NOT_AN_ADMISSION}", vcc_report::law::ADVISORY)
                    }
                    _ => NOT_AN_ADMISSION.into(),
                },
            }))
        })
        .await
    }

    /// The integrity pass.
    #[tool(
        description = "Lint a vcc contract (the integrity pass): problems with their code, field and line.",
        annotations(
            read_only_hint = true,
            idempotent_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn lint(&self, Parameters(t): Parameters<Target>) -> Result<Json<LintOutput>, String> {
        let (settings, binding) = (self.settings.clone(), self.binding.clone());
        blocking(move || {
            let rt = settings.runtime()?;
            let (digest, problems) = lint_problems(
                &rt,
                &PathBuf::from(&t.contract),
                t.dir.as_deref().map(std::path::Path::new),
                &binding,
            );
            let errors = problems.iter().filter(|p| p.is_error()).count();
            Ok(Json(LintOutput {
                ok: errors == 0,
                errors,
                contract: LintContract {
                    path: t.contract.clone(),
                    digest,
                },
                problems: problems
                    .iter()
                    .filter_map(|p| serde_json::to_value(p).ok())
                    .collect(),
            }))
        })
        .await
    }

    /// The brief, and the feedback as Markdown.
    #[tool(
        description = "Explain the work: the contract as a brief (numbered criteria, what checks each, the evidence needed, what to do when one fails), then what is missing now (the feedback of a check, as Markdown), ready for a prompt.",
        annotations(
            read_only_hint = true,
            idempotent_hint = true,
            destructive_hint = false,
            open_world_hint = false
        )
    )]
    async fn explain(&self, Parameters(t): Parameters<Target>) -> Result<String, String> {
        let (settings, binding) = (self.settings.clone(), self.binding.clone());
        blocking(move || {
            let rt = settings.runtime()?;
            let path = PathBuf::from(&t.contract);
            let dir = t.dir.as_deref().map(std::path::Path::new);
            let brief =
                crate::agents::explain::brief(&rt, &path, dir, &binding).map_err(|problems| {
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
            let report = checked(&settings, &binding, &t)?;
            let mut md = brief.markdown();
            md.push_str("---\n\n");
            md.push_str(
                &Feedback::of(&report, None, 0)
                    .markdown_where("the `check` tool's result for this contract"),
            );
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
    binding: &BindingArgs,
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
        binding,
        options,
    )
    .report)
}

/// Checks run WebAssembly validators on threads of their own; keep them
/// off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(format!("internal: the tool call failed: {e}")))
}

pub fn serve(cli: &Cli, args: &McpArgs) -> i32 {
    let server = Server {
        tool_router: Server::tool_router(),
        settings: RuntimeSettings::of(cli),
        binding: args.binding.clone(),
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
