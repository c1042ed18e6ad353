//! pytest's configuration, as far as it decides which files, classes and
//! functions a plain `pytest` run collects.
//!
//! pytest reads one configuration file, the first it finds walking up from
//! where it is started: `pytest.toml`, `.pytest.toml` (`[pytest]`),
//! `pytest.ini`, `.pytest.ini` (`[pytest]`), `pyproject.toml`
//! (`[tool.pytest]`, `[tool.pytest.ini_options]`), `tox.ini` (`[pytest]`),
//! `setup.cfg` (`[tool:pytest]`). Where it is started is the worker's
//! choice, so every such file in a folder above the test counts, and the
//! test must be collected under each.
//!
//! Evaluated: `python_files`, `python_classes`, `python_functions`,
//! `testpaths`, `norecursedirs`, and `addopts` made only of options that
//! select nothing (`-v`, `-q`, `-ra`, `--tb=…`…). Settings that change
//! only reporting, logging or warnings are read and let be (`HARMLESS`).
//! Any other setting — a plugin's, `-k`, `-m`, `--ignore`, `--deselect`,
//! `-p`… — may deselect or skip tests: vcc cannot tell, so it refuses.
//! So are settings that may stop the run before the test (`STOPPING`:
//! `minversion`, `required_plugins`, strict marks, a `filterwarnings`
//! entry `error…`) and `-x`, `--exitfirst`, `--maxfail`,
//! `--strict-markers` in `addopts`.

use std::collections::BTreeMap;

/// What one configuration file sets: key → (line, values).
pub type Settings = BTreeMap<String, (u32, Vec<String>)>;

/// The files pytest reads its configuration from, by name.
pub const CONFIG_FILES: &[&str] = &[
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
];

/// Settings that change reporting, logging, warnings or plugin loading
/// checks, never which tests are collected or whether they run.
const HARMLESS: &[&str] = &[
    "markers",
    "log_cli",
    "log_cli_level",
    "log_cli_format",
    "log_cli_date_format",
    "log_level",
    "log_format",
    "log_date_format",
    "log_file",
    "log_file_level",
    "log_file_format",
    "log_file_date_format",
    "log_auto_indent",
    "junit_family",
    "junit_suite_name",
    "junit_logging",
    "junit_log_passing_tests",
    "junit_duration_report",
    "console_output_style",
    "cache_dir",
    "xfail_strict",
    "doctest_optionflags",
    "doctest_encoding",
    "pythonpath",
    "tmp_path_retention_count",
    "tmp_path_retention_policy",
    "faulthandler_timeout",
    "verbosity_assertions",
    "verbosity_test_cases",
    "truncation_limit_lines",
    "truncation_limit_chars",
    "enable_assertion_pass_hook",
    "consider_namespace_packages",
    "asyncio_mode",
    "asyncio_default_fixture_loop_scope",
    "asyncio_default_test_loop_scope",
    "timeout",
];

/// Settings that stop pytest at start-up or at collection when their
/// condition fails (`required_plugins`, `minversion`, strictness about
/// marks and settings, warnings made errors).
const STOPPING: &[&str] = &[
    "minversion",
    "required_plugins",
    "strict",
    "strict_config",
    "filterwarnings",
];

/// `addopts` options that select, skip and ignore nothing, and do not
/// stop the run (`-x`, `--maxfail` end it at another test's failure;
/// `--strict-markers` at an unregistered mark).
const HARMLESS_OPTS: &[&str] = &[
    "-v",
    "-vv",
    "-vvv",
    "-q",
    "-qq",
    "-s",
    "-l",
    "--verbose",
    "--quiet",
    "--showlocals",
    "--no-header",
    "--no-summary",
    "--doctest-modules",
];
/// `addopts` options taken with `=value` that select nothing.
const HARMLESS_OPT_VALUES: &[&str] = &[
    "--tb=",
    "--color=",
    "--durations=",
    "--durations-min=",
    "--capture=",
    "--import-mode=",
    "--junitxml=",
    "--cov=",
    "--cov-report=",
];

/// Marks pytest registers itself.
const BUILTIN_MARKS: &[&str] = &[
    "parametrize",
    "skip",
    "skipif",
    "xfail",
    "usefixtures",
    "filterwarnings",
];

const DEFAULT_FILES: &[&str] = &["test_*.py", "*_test.py"];
const DEFAULT_NORECURSE: &[&str] = &[
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
];

/// The settings of a configuration file (`file` its name), `None` when it
/// is no pytest configuration; `Err` when it cannot be read as pytest
/// reads it.
pub fn settings(file: &str, text: &str) -> Result<Option<Settings>, String> {
    match file {
        "pytest.ini" | ".pytest.ini" => ini(text, "pytest", true),
        "tox.ini" => ini(text, "pytest", false),
        "setup.cfg" => ini(text, "tool:pytest", false),
        "pytest.toml" | ".pytest.toml" => toml(text, &["pytest"], true),
        "pyproject.toml" => toml(text, &["tool.pytest", "tool.pytest.ini_options"], false),
        _ => Ok(None),
    }
}

/// An INI file as `iniconfig` reads it: `[section]`, `key = value` or
/// `key: value`, indented lines continue the value, `#`/`;` comment lines.
fn ini(text: &str, section: &str, always: bool) -> Result<Option<Settings>, String> {
    let mut found = always;
    let mut out = Settings::new();
    let mut inside = false;
    let mut last: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let at = n as u32 + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if raw.starts_with([' ', '\t'])
            && let Some(key) = &last
        {
            if inside && let Some((_, values)) = out.get_mut(key) {
                values.extend(t.split_whitespace().map(str::to_string));
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix('[') {
            // As `iniconfig` reads it: `[ pytest ]` is another section.
            let name = rest.split(']').next().unwrap_or_default();
            inside = name == section;
            found |= inside;
            last = None;
            continue;
        }
        let Some(eq) = t.find(['=', ':']) else {
            if inside {
                return Err(format!("line {at}: `{t}` is no `key = value`"));
            }
            continue;
        };
        let key = t[..eq].trim().to_string();
        if inside {
            let values = t[eq + 1..].split_whitespace().map(str::to_string).collect();
            out.insert(key.clone(), (at, values));
        }
        last = Some(key);
    }
    Ok(found.then_some(out))
}

/// The pytest tables of a TOML file: `key = "string"` (split on white
/// space, as pytest splits an `args` setting), `key = ["a", "b"]`,
/// booleans and numbers. pytest settings written any other way (dotted
/// keys, inline tables, sub-tables, multi-line strings) are refused.
fn toml(text: &str, tables: &[&str], always: bool) -> Result<Option<Settings>, String> {
    let mut found = always;
    let mut out = Settings::new();
    let mut table = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut n = 0;
    while n < lines.len() {
        let at = n as u32 + 1;
        let t = strip_comment(lines[n]).trim().to_string();
        n += 1;
        if t.is_empty() {
            continue;
        }
        if t.starts_with('[') {
            table = t
                .trim_matches(|c| c == '[' || c == ']')
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '"' && *c != '\'')
                .collect();
            if tables.contains(&table.as_str()) {
                found = true;
            } else if table.starts_with("tool.pytest") || table == "pytest" {
                return Err(format!(
                    "line {at}: the table `[{table}]`, which vcc does not read as pytest does"
                ));
            }
            continue;
        }
        let Some((key, value)) = t.split_once('=') else {
            return Err(format!("line {at}: `{t}` is no `key = value`"));
        };
        let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
        let inside = tables.contains(&table.as_str());
        // `tool.pytest.x = …` under `[tool]` or at the top, or `pytest =`
        // under `[tool]`: pytest settings vcc does not read.
        let full = if table.is_empty() {
            key.to_string()
        } else {
            format!("{table}.{key}")
        };
        if !inside {
            if full == "tool" || full.starts_with("tool.pytest") {
                return Err(format!(
                    "line {at}: `{key}` sets pytest options in a form vcc does not read (use a `[tool.pytest.ini_options]` table)"
                ));
            }
            continue;
        }
        if key.contains('.') {
            return Err(format!(
                "line {at}: the dotted key `{key}`, which vcc does not read"
            ));
        }
        // A value may span lines (an array): up to its closing bracket.
        let mut value = value.trim().to_string();
        while open_brackets(&value) > 0 && n < lines.len() {
            value.push(' ');
            value.push_str(strip_comment(lines[n]).trim());
            n += 1;
        }
        let values = toml_value(&value).map_err(|why| format!("line {at}: `{key}`: {why}"))?;
        out.insert(key.to_string(), (at, values));
    }
    Ok(found.then_some(out))
}

/// A line without its `#` comment (a `#` inside a string is kept).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Brackets open outside strings.
fn open_brackets(value: &str) -> i32 {
    let mut quote = None;
    let mut depth = 0;
    for c in value.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '[') => depth += 1,
            (None, ']') => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// A TOML value: a string (split on white space), an array of strings, a
/// boolean or a number.
fn toml_value(value: &str) -> Result<Vec<String>, String> {
    if value.contains("\"\"\"") || value.contains("'''") || value.contains('{') {
        return Err("a multi-line string or inline table, which vcc does not read".into());
    }
    let array = value.starts_with('[');
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '[' | ']' | ',' => {}
            c if c.is_whitespace() => {}
            '"' | '\'' => {
                let mut s = String::new();
                let mut closed = false;
                for d in chars.by_ref() {
                    if d == c {
                        closed = true;
                        break;
                    }
                    if d == '\\' && c == '"' {
                        return Err("an escape in a string, which vcc does not read".into());
                    }
                    s.push(d);
                }
                if !closed {
                    return Err("a string that never closes".into());
                }
                if array {
                    out.push(s);
                } else {
                    out.extend(s.split_whitespace().map(str::to_string));
                }
            }
            _ => {
                let mut s = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d == ',' || d == ']' || d.is_whitespace() {
                        break;
                    }
                    s.push(d);
                    chars.next();
                }
                out.push(s);
            }
        }
    }
    Ok(out)
}

/// Name patterns that must all accept a name: one set per configuration
/// (pytest accepts a name that starts with, or glob-matches, any pattern
/// of the set).
#[derive(Clone, Debug)]
pub struct Names {
    functions: Vec<Vec<String>>,
    classes: Vec<Vec<String>>,
}

impl Default for Names {
    fn default() -> Self {
        Names {
            functions: vec![vec!["test".into()]],
            classes: vec![vec!["Test".into()]],
        }
    }
}

impl Names {
    pub fn function(&self, name: &str) -> bool {
        all_accept(&self.functions, name)
    }

    pub fn class(&self, name: &str) -> bool {
        all_accept(&self.classes, name)
    }
}

fn all_accept(sets: &[Vec<String>], name: &str) -> bool {
    sets.iter()
        .all(|set| set.iter().any(|p| prefix_or_glob(p, name)))
}

/// pytest's `_matches_prefix_or_glob_option`.
fn prefix_or_glob(pattern: &str, name: &str) -> bool {
    name.starts_with(pattern) || (pattern.contains(['*', '?']) && glob(pattern, name))
}

/// `fnmatch` without `[…]` (refused where read): `*` any run, `?` one
/// character, both across `/` as Python's `fnmatch` does.
pub fn glob(pattern: &str, s: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = s.chars().collect();
    // matched[j]: p[..i] matches s[..j].
    let mut matched = vec![false; s.len() + 1];
    matched[0] = true;
    for &pc in &p {
        let mut next = vec![false; s.len() + 1];
        for j in 0..=s.len() {
            next[j] = match pc {
                '*' => matched[j] || (j > 0 && next[j - 1]),
                '?' => j > 0 && matched[j - 1],
                c => j > 0 && matched[j - 1] && s[j - 1] == c,
            };
        }
        matched = next;
    }
    matched[s.len()]
}

/// What the configurations found say a collected test must be.
#[derive(Debug, Default)]
pub struct Config {
    pub names: Names,
    /// Where `python_functions` / `python_classes` were set: said when a
    /// name the defaults collect is not collected.
    pub name_settings: Vec<String>,
    files: Vec<Vec<String>>,
    /// (folder of the configuration, `testpaths` under it).
    testpaths: Vec<(String, Vec<String>)>,
    norecurse: Vec<String>,
    /// Where strict markers were set (`--strict-markers`, `--strict`,
    /// `strict_markers = true`): an unregistered mark is then an error at
    /// collection.
    strict_marks: Option<String>,
    /// The marks `markers` registers, with pytest's own.
    markers: Vec<String>,
}

/// One configuration file found: its folder (relative to the root), its
/// name, and its settings.
pub type Found = (String, String, Settings);

impl Config {
    pub fn new(found: &[Found]) -> Result<Config, String> {
        let mut names = Names {
            functions: Vec::new(),
            classes: Vec::new(),
        };
        let mut files = Vec::new();
        let mut name_settings = Vec::new();
        let mut testpaths = Vec::new();
        let mut norecurse: Vec<String> = DEFAULT_NORECURSE.iter().map(|s| s.to_string()).collect();
        let mut strict_marks = None;
        let mut markers: Vec<String> = BUILTIN_MARKS.iter().map(|m| m.to_string()).collect();
        for (dir, file, s) in found {
            let shown = if dir.is_empty() {
                file.clone()
            } else {
                format!("{dir}/{file}")
            };
            let refuse = |at: &u32, why: String| Err(format!("{shown} line {at}: {why}"));
            for (key, (at, values)) in s {
                let no_brackets = || values.iter().all(|v| !v.contains('['));
                let evaluated = [
                    "python_files",
                    "python_classes",
                    "python_functions",
                    "testpaths",
                    "norecursedirs",
                    "addopts",
                ]
                .contains(&key.as_str());
                // pytest splits these as a shell does and keeps an INI
                // `#`: a quote, an escape or a comment char is read one way
                // by pytest and another by a reader; vcc does not guess.
                if evaluated
                    && let Some(v) = values
                        .iter()
                        .find(|v| v.contains(['#', ';', '"', '\'', '\\']))
                {
                    return refuse(
                        at,
                        format!(
                            "`{key}` holds `{v}`, a quote, escape or comment character vcc does not read as pytest does"
                        ),
                    );
                }
                match key.as_str() {
                    "python_files" | "python_classes" | "python_functions" | "norecursedirs"
                        if !no_brackets() =>
                    {
                        return refuse(
                            at,
                            format!("`{key}` holds a `[…]` pattern, which vcc does not evaluate"),
                        );
                    }
                    "python_files" if values.iter().any(|v| v.contains('/')) => {
                        return refuse(at, "`python_files` holds a pattern with a folder, which vcc does not evaluate".into());
                    }
                    "testpaths"
                        if values.iter().any(|v| {
                            v.contains(['*', '?', '['])
                                || v.starts_with('/')
                                || v.split('/').any(|c| c == "..")
                        }) =>
                    {
                        return refuse(at, "`testpaths` holds a glob or a path outside its folder, which vcc does not evaluate".into());
                    }
                    "python_files" | "python_classes" | "python_functions" | "testpaths"
                    | "norecursedirs" => {}
                    "strict_markers" if values.iter().all(|v| v.eq_ignore_ascii_case("false")) => {}
                    "strict_markers" => {
                        strict_marks = Some(format!("{shown} line {at} sets `strict_markers`"));
                    }
                    "markers" => {
                        // `name: description` or `name(args): description`.
                        markers.extend(values.iter().filter_map(|v| {
                            let n = v.split([':', '(']).next()?.trim();
                            (!n.is_empty()).then(|| n.to_string())
                        }));
                    }
                    "addopts" => {
                        if let Some(o) = values
                            .iter()
                            .find(|o| *o == "--strict-markers" || *o == "--strict")
                        {
                            strict_marks =
                                Some(format!("{shown} line {at}: `addopts` holds `{o}`"));
                        }
                        if let Some(bad) = values.iter().find(|o| {
                            !["--strict-markers", "--strict"].contains(&o.as_str())
                                && !HARMLESS_OPTS.contains(&o.as_str())
                                && !HARMLESS_OPT_VALUES.iter().any(|p| o.starts_with(p))
                                && !is_report_chars(o)
                        }) {
                            return refuse(
                                at,
                                format!(
                                    "`addopts` holds `{bad}`, an option vcc does not evaluate (it may select, deselect, skip or ignore tests)"
                                ),
                            );
                        }
                    }
                    // A warning turned into an error fails collection
                    // (a module's import-time warning) or the test.
                    "filterwarnings"
                        if values.iter().all(|v| !v.trim_start().starts_with("error")) => {}
                    k if STOPPING.contains(&k) => {
                        return refuse(
                            at,
                            format!(
                                "`{k}` may stop pytest before or during the run (a missing plugin, an older pytest, an unregistered mark, a warning made an error): vcc cannot tell the test runs"
                            ),
                        );
                    }
                    k if HARMLESS.contains(&k) => {}
                    k => {
                        return refuse(
                            at,
                            format!(
                                "`{k}` is a pytest setting vcc does not evaluate (it may change what pytest collects or runs)"
                            ),
                        );
                    }
                }
            }
            let get = |key: &str, default: &[&str]| -> Vec<String> {
                s.get(key).map_or_else(
                    || default.iter().map(|d| d.to_string()).collect(),
                    |(_, v)| v.clone(),
                )
            };
            for key in ["python_functions", "python_classes"] {
                if let Some((at, v)) = s.get(key) {
                    name_settings.push(format!("{shown} line {at} sets `{key} = {}`", v.join(" ")));
                }
            }
            names.functions.push(get("python_functions", &["test"]));
            names.classes.push(get("python_classes", &["Test"]));
            files.push(get("python_files", DEFAULT_FILES));
            if let Some((_, v)) = s.get("testpaths")
                && !v.is_empty()
            {
                testpaths.push((dir.clone(), v.clone()));
            }
            if let Some((_, v)) = s.get("norecursedirs") {
                norecurse.extend(v.iter().cloned());
            }
        }
        if found.is_empty() {
            names = Names::default();
            files.push(DEFAULT_FILES.iter().map(|s| s.to_string()).collect());
        }
        Ok(Config {
            names,
            name_settings,
            files,
            testpaths,
            norecurse,
            strict_marks,
            markers,
        })
    }

    /// Under strict markers, the first mark in the masked `code` of a test
    /// module that no `markers` entry registers (pytest errors at
    /// collection: no test of the module runs).
    pub fn unregistered_mark(&self, code: &str) -> Result<(), String> {
        let Some(at) = &self.strict_marks else {
            return Ok(());
        };
        let Ok(re) = vcc_plugin_common::regex(r"\bmark\s*\.\s*([A-Za-z_]\w*)", false) else {
            return Err("internal: a pattern does not compile".into());
        };
        for c in re.captures_iter(code) {
            if let Some(m) = c.get(1)
                && !self.markers.iter().any(|k| k == m.as_str())
            {
                let line = code[..m.start()].matches('\n').count() + 1;
                return Err(format!(
                    "line {line} uses the mark `{}`, which no `markers` entry registers, and {at} (strict markers): pytest stops at collection",
                    m.as_str()
                ));
            }
        }
        Ok(())
    }

    /// Whether a plain `pytest` run collects the file at `rel` (relative
    /// to the root): its name, its folders, `testpaths`.
    pub fn collects_file(&self, rel: &str) -> Result<(), String> {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if let Some(set) = self
            .files
            .iter()
            .find(|set| !set.iter().any(|p| glob(p, name)))
        {
            return Err(format!(
                "pytest does not collect the file `{name}`: its name matches none of `python_files` ({})",
                set.join(" ")
            ));
        }
        for folder in dir.split('/').filter(|f| !f.is_empty()) {
            if let Some(p) = self.norecurse.iter().find(|p| glob(p, folder)) {
                return Err(format!(
                    "pytest does not look into the folder `{folder}` (it matches `norecursedirs` pattern `{p}`)"
                ));
            }
        }
        for (base, paths) in &self.testpaths {
            let under = paths.iter().any(|p| {
                let full: Vec<&str> = base
                    .split('/')
                    .chain(p.split('/'))
                    .filter(|c| !c.is_empty() && *c != ".")
                    .collect();
                let full = full.join("/");
                full.is_empty() || rel == full || rel.starts_with(&format!("{full}/"))
            });
            if !under {
                return Err(format!(
                    "a plain `pytest` run collects only `testpaths` ({}), and the file is under none",
                    paths.join(" ")
                ));
            }
        }
        Ok(())
    }
}

/// `-rfE`-style report characters.
fn is_report_chars(o: &str) -> bool {
    o.strip_prefix("-r")
        .is_some_and(|c| !c.is_empty() && c.chars().all(|c| c.is_ascii_alphabetic()))
}
