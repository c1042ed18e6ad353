//! A barrier between a test and a validator that is running: the
//! `waits-for-change` fixture with `barrier: TEXT` asks its judge `TEXT`,
//! and this judge on loopback answers only when the test says so. Between
//! [`Barrier::wait_until_asked`] and [`Barrier::release`] the validator is
//! running, by construction, whatever the machine's speed: the test acts
//! there instead of hoping a loop of reads lasts long enough.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::judge_server::{JudgeServer, Reply};

/// Longest a held answer waits for `release` (a failing test must not
/// leave vcc waiting forever).
const HOLD: Duration = Duration::from_secs(300);

pub struct Barrier {
    server: JudgeServer,
    released: Arc<AtomicBool>,
    /// The judges configuration to pass with `--judges`.
    pub judges_file: PathBuf,
    /// What the validator asks (the fixture's `barrier` param): new for
    /// every barrier, so no judge cache ever holds its answer.
    pub text: String,
}

/// The contract lines a barrier criterion needs: a top-level `judges:`
/// entry named `barrier`. Grant it with `judges: [barrier]` on the
/// criterion.
pub const CONTRACT_JUDGES: &str = "judges:\n  barrier: { provider: openai-compatible, model: barrier, params: { temperature: 0 } }\n";

impl Barrier {
    /// Start the judge and write its configuration into `dir` (keep `dir`
    /// outside the deliverable root).
    pub fn start(dir: &Path) -> Barrier {
        let released = Arc::new(AtomicBool::new(false));
        let hold = released.clone();
        let server = JudgeServer::start(move |_, _| {
            let deadline = Instant::now() + HOLD;
            while !hold.load(Ordering::SeqCst) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            Reply::Answer(serde_json::json!({ "released": true }))
        });
        let judges_file = dir.join("barrier-judges.yaml");
        std::fs::write(
            &judges_file,
            format!(
                "judges: 1\nendpoints:\n  - {{ id: barrier, provider: openai-compatible, url: '{}' }}\n",
                server.url
            ),
        )
        .expect("write the barrier's judges file");
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Barrier {
            server,
            released,
            judges_file,
            text: format!("barrier {} {}", std::process::id(), since.as_nanos()),
        }
    }

    /// `--judges FILE`, for vcc's command line.
    pub fn args(&self) -> [String; 2] {
        ["--judges".into(), self.judges_file.display().to_string()]
    }

    /// Wait until the validator has asked (it is then blocked until
    /// [`Barrier::release`]); false if it never asked within `patience`.
    pub fn wait_until_asked(&self, patience: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < patience {
            if !self.server.received().is_empty() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// Wait until the validator asks, `act`, and let it go on; false (and
    /// nothing done) if it never asked within `patience`.
    pub fn act_while_waiting(&self, patience: Duration, act: impl FnOnce()) -> bool {
        let asked = self.wait_until_asked(patience);
        if asked {
            act();
        }
        self.release();
        asked
    }

    /// Let the validator go on.
    pub fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
    }
}

impl Drop for Barrier {
    fn drop(&mut self) {
        self.release();
    }
}
