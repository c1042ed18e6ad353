//! `vcc cache stats|prune|clear`: the component cache, seen and trimmed.

use std::io::Read;
use std::path::PathBuf;

use vcc_report::law::exit;
use vcc_runtime::{Cache, CacheStats, Pruned};

use crate::args::{CacheCommand, Cli, Format};
use crate::output::print_stdout;
use crate::render::bytes;
use crate::settings::RuntimeSettings;

pub fn run(cli: &Cli, command: &CacheCommand) -> i32 {
    if let CacheCommand::Compile { components } = command {
        return compile(cli, components);
    }
    let Some(dir) = RuntimeSettings::of(cli).cache_dir() else {
        eprintln!(
            "vcc: no component cache (--no-cache, or no $VCC_CACHE_DIR, $XDG_CACHE_HOME or $HOME)"
        );
        return exit::INVALID;
    };
    let cache = match Cache::open(&dir) {
        Ok(cache) => cache,
        Err(err) => {
            eprintln!("vcc: {err}");
            return exit::INVALID;
        }
    };
    let done = match command {
        CacheCommand::Stats { format } => cache.stats().map(|s| stats(&s, *format)),
        CacheCommand::Prune {
            older_than,
            max_size,
        } => {
            let max = max_size.map_or_else(|| cache.stats().map(|s| s.max_size), |m| Ok(m.0));
            max.and_then(|max| cache.prune(*older_than, Some(max)))
                .map(|p| pruned("pruned", &p))
        }
        CacheCommand::Clear => cache.clear().map(|p| pruned("cleared", &p)),
        CacheCommand::Compile { .. } => Ok(()),
    };
    match done {
        Ok(()) => exit::ACCEPTED,
        Err(err) => {
            eprintln!("vcc: the component cache {}: {err}", dir.display());
            exit::INVALID
        }
    }
}

/// `vcc cache compile`: each component compiled with Cranelift (never
/// Winch), its code kept in the cache.
fn compile(cli: &Cli, components: &[PathBuf]) -> i32 {
    let settings = RuntimeSettings::of(cli);
    if settings.cache_dir().is_none() {
        eprintln!("vcc: cache compile needs a component cache (not --no-cache)");
        return exit::INVALID;
    }
    let runtime = match settings.plain_runtime() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("vcc: {err}");
            return exit::INVALID;
        }
    };
    let mut failed = false;
    for path in components {
        let (name, read) = if path.as_os_str() == "-" {
            ("(stdin)".to_string(), read_capped(std::io::stdin()))
        } else {
            let file = std::fs::File::open(path);
            (path.display().to_string(), file.and_then(read_capped))
        };
        let cap = vcc_runtime::MAX_COMPONENT_BYTES;
        let compiled = match read {
            Err(e) => Err(format!("cannot read it: {e}")),
            Ok(bytes) if bytes.is_empty() => Err("it is empty".to_string()),
            Ok(bytes) if bytes.len() as u64 > cap => {
                Err(format!("it is over the {} MiB component cap", cap >> 20))
            }
            Ok(bytes) => runtime.loader().precompile(&bytes),
        };
        match compiled {
            Ok(digest) => println!("compiled {name} ({digest})"),
            Err(err) => {
                eprintln!("vcc: {name}: {err}");
                failed = true;
            }
        }
    }
    if failed {
        exit::INVALID
    } else {
        exit::ACCEPTED
    }
}

/// At most one byte past the component cap: enough to say it is over.
fn read_capped(reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(vcc_runtime::MAX_COMPONENT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn stats(s: &CacheStats, format: Format) {
    if format == Format::Json {
        print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(s).unwrap_or_default()
        ));
        return;
    }
    let ago = |secs: Option<u64>| {
        secs.map_or("-".to_string(), |s| {
            format!(
                "{} ago",
                humantime::format_duration(std::time::Duration::from_secs(s))
            )
        })
    };
    print_stdout(&format!(
        "cache       {}\ncomponents  {} ({} of {} max)\nmemos       {} ({})\nleast used  {}\nlast used   {}\n",
        s.dir,
        s.entries,
        bytes(s.entry_bytes),
        bytes(s.max_size),
        s.memos,
        bytes(s.memo_bytes),
        ago(s.oldest_use_secs),
        ago(s.newest_use_secs),
    ));
}

fn pruned(what: &str, p: &Pruned) {
    let mut line = format!(
        "{what}: removed {} component(s) ({}) and {} memo(s); {} component(s) ({}) remain",
        p.removed,
        bytes(p.removed_bytes),
        p.memos_removed,
        p.kept,
        bytes(p.kept_bytes)
    );
    if p.in_use > 0 {
        line.push_str(&format!(", {} of them kept because in use", p.in_use));
    }
    print_stdout(&format!("{line}\n"));
}
