//! A spinner on stderr while vcc compiles components, hashes the root and
//! judges criteria — only when stderr is a terminal and the output is for
//! a person (never with `--format json`, never into a pipe or a file).

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use vcc_runtime::{Now, Progress};

use crate::render::bytes;

/// Shows what `progress` says until dropped, then clears its line.
pub struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// A spinner for a person at a terminal; `None` otherwise.
pub fn spinner(progress: &Arc<Progress>, for_a_person: bool) -> Option<Spinner> {
    if !for_a_person || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
        bar.set_style(style);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (flag, progress) = (stop.clone(), progress.clone());
    let thread = std::thread::Builder::new()
        .name("vcc-progress".into())
        .spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                bar.set_message(describe(&progress.now()));
                bar.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        })
        .ok();
    Some(Spinner { stop, thread })
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One line: hashing counts, else the oldest task and how long it has
/// taken, and how many others are running.
pub fn describe(now: &Now) -> String {
    if let Some((found, hashed, size)) = now.hashing {
        return format!(
            "hashing the deliverables: {hashed}/{found} file(s), {}",
            bytes(size)
        );
    }
    match now.tasks.as_slice() {
        [] => String::new(),
        [(what, took), rest @ ..] => {
            let others = if rest.is_empty() {
                String::new()
            } else {
                format!(" (+{} more)", rest.len())
            };
            format!("{what}… {:.1} s{others}", took.as_secs_f64())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_says_what_is_going_on() {
        let now = Now {
            tasks: vec![
                ("compiling v/house.wasm".into(), Duration::from_millis(3250)),
                ("judging AC-2".into(), Duration::from_millis(10)),
            ],
            hashing: None,
        };
        assert_eq!(describe(&now), "compiling v/house.wasm… 3.2 s (+1 more)");
        let hashing = Now {
            tasks: Vec::new(),
            hashing: Some((10, 4, 3 << 20)),
        };
        assert_eq!(
            describe(&hashing),
            "hashing the deliverables: 4/10 file(s), 3.0 MiB"
        );
        assert_eq!(describe(&Now::default()), "");
    }
}
