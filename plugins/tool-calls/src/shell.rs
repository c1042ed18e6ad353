//! The simple commands a shell string runs, each starting with its command
//! word as bash reads it, for `max` (so `max: 0` forbids a command wherever
//! it hides in the string).
//!
//! The string is split on `;`, `&`, `|`, newlines, parentheses and
//! backticks (`cd /w && git push`, `$(git push)`, `f() { git push; }`);
//! splitting inside quotes only finds more, the strict side. In each piece
//! what bash reads before the command word is dropped (red team 34: `{ git
//! push; }`, `if true; then git push; fi`, `while …; do git push; done`,
//! `! git push` ran git push): reserved words and grouping (`{`, `}`, `!`,
//! `if`/`then`/`elif`/`else`/`fi`, `while`/`until`/`do`/`done`, `esac`,
//! `time`, `coproc`, `function NAME`), assignments (`GIT_DIR=x`),
//! redirections (`>/dev/null`, `2> log`) and the wrappers that run the
//! command they are given (`command`, `builtin`, `exec`, `env`, `nohup`,
//! `sudo`, `doas`, `nice`, `timeout`, `stdbuf`, `setsid`, `xargs`, with
//! their options). A piece is matched as written, from its command word
//! as written, and from its command word with quotes removed (`"git" push`,
//! `g''it push`) and a path dropped (`/usr/bin/git push`). A string given
//! to `sh -c`/`bash -c` (any shell, any option cluster with `c`) or to
//! `eval` is read again the same way. What is not split (here-documents,
//! `case` patterns) is at worst matched as more pieces, never fewer.

mod braces;

/// Reserved words and grouping that may stand before a command word.
const RESERVED: [&str; 14] = [
    "{", "}", "!", "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "esac",
    "coproc",
];

/// Commands that run the command named by their first operand, each with
/// its options that take a separate argument, and how many operands come
/// before the command (`timeout 10 git push`).
const WRAPPERS: [(&str, &[&str], usize); 13] = [
    ("time", &[], 0),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("exec", &["-a"], 0),
    ("env", &["-u", "-C", "--unset", "--chdir"], 0),
    ("nohup", &[], 0),
    (
        "sudo",
        &[
            "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R",
        ],
        0,
    ),
    ("doas", &["-u", "-C"], 0),
    ("nice", &["-n"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("setsid", &[], 0),
    (
        "xargs",
        &["-I", "-E", "-L", "-n", "-P", "-s", "-d", "-a"],
        0,
    ),
];

/// Shells whose `-c` operand is a script.
const SHELLS: [&str; 6] = ["sh", "bash", "zsh", "dash", "ksh", "ash"];

/// How deep `sh -c "…"` and `eval` are read again (a bound on work).
const DEPTH: usize = 4;

/// The candidates `max` matches for a shell string: every piece as written
/// and from its command word (as written, unquoted, without its path).
pub fn commands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    collect(s, DEPTH, &mut out);
    out.dedup();
    out
}

fn collect(s: &str, depth: usize, out: &mut Vec<String>) {
    // bash removes a backslash-newline before it splits anything (`git
    // \<newline>push`), and the default IFS splits `git${IFS}push`: both
    // are read as written and so joined (only more candidates).
    let joined = s.replace("\\\n", "");
    let spaced = joined.replace("${IFS}", " ").replace("$IFS", " ");
    let texts: Vec<&str> = if spaced == s {
        vec![s]
    } else {
        vec![s, &spaced]
    };
    for text in texts {
        for piece in pieces(text) {
            piece_commands(piece, depth, out);
            // Brace expansion makes words of `{git,push}`: the piece as
            // expanded is read too.
            let expanded = braces::expand_words(piece);
            if expanded != piece {
                for p in pieces(&expanded) {
                    piece_commands(p, depth, out);
                }
            }
        }
    }
}

/// The candidates of one piece (see `commands`).
fn piece_commands(piece: &str, depth: usize, out: &mut Vec<String>) {
    {
        out.push(piece.to_string());
        let words = words(piece);
        let k = command_word(&words);
        let Some(first) = words.get(k) else {
            return;
        };
        out.push(piece[first.start..].trim().to_string());
        let unquoted: Vec<&str> = words[k..].iter().map(|w| w.value.as_str()).collect();
        out.push(unquoted.join(" "));
        let name = first.value.rsplit('/').next().unwrap_or_default();
        if name != first.value {
            let mut rest = vec![name];
            rest.extend(&unquoted[1..]);
            out.push(rest.join(" "));
        }
        if depth == 0 {
            return;
        }
        // A script given to a shell or to `eval` is read again.
        if name == "eval" {
            collect(&unquoted[1..].join(" "), depth - 1, out);
        } else if SHELLS.contains(&name) {
            let script = words[k + 1..]
                .iter()
                .position(|w| {
                    w.value.starts_with('-') && !w.value.starts_with("--") && w.value.contains('c')
                })
                .and_then(|i| words.get(k + 2 + i));
            if let Some(script) = script {
                collect(&script.value, depth - 1, out);
            }
        }
    }
}

/// The pieces a string is split into, trimmed, non-empty: as split on
/// every separator, and again without splitting the `&` of a redirection
/// (`2>&1 git push`, `&>/dev/null git push`).
fn pieces(s: &str) -> Vec<&str> {
    let plain = s.split(['&', '|', ';', '\n', '(', ')', '`']);
    let bytes = s.as_bytes();
    let mut kept = Vec::new();
    let mut from = 0;
    for (i, c) in s.char_indices() {
        let redirect = c == '&'
            && (i > 0 && matches!(bytes[i - 1], b'>' | b'<') || bytes.get(i + 1) == Some(&b'>'));
        if matches!(c, '&' | '|' | ';' | '\n' | '(' | ')' | '`') && !redirect {
            kept.push(&s[from..i]);
            from = i + 1;
        }
    }
    kept.push(&s[from..]);
    // A set, not `Vec::contains`: a long string of many pieces must not
    // cost their square.
    let mut seen = std::collections::BTreeSet::new();
    plain
        .chain(kept)
        .map(str::trim)
        .filter(|p| !p.is_empty() && seen.insert(*p))
        .collect()
}

/// One shell word: where it starts in its piece, as written and unquoted.
struct Word {
    start: usize,
    raw: String,
    value: String,
}

/// The words of a piece, split on unquoted blanks; quotes and backslashes
/// removed in `value` as bash removes them (an unclosed quote runs to the
/// end).
fn words(s: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut value = String::new();
        let mut end = s.len();
        while let Some(&(i, c)) = chars.peek() {
            if c.is_whitespace() {
                end = i;
                break;
            }
            chars.next();
            match c {
                // `$'…'` (ANSI-C quoting: escapes decoded) and `$"…"`
                // (locale quoting: a double-quoted string) are quotes.
                '$' if chars.peek().is_some_and(|(_, n)| *n == '\'') => {
                    chars.next();
                    ansi_c(&mut chars, &mut value);
                }
                '$' if chars.peek().is_some_and(|(_, n)| *n == '"') => {}
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '\'' => {
                    for (_, c) in chars.by_ref() {
                        if c == '\'' {
                            break;
                        }
                        value.push(c);
                    }
                }
                '"' => {
                    while let Some((_, c)) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' if chars
                                .peek()
                                .is_some_and(|(_, n)| matches!(n, '$' | '`' | '"' | '\\')) =>
                            {
                                value.extend(chars.next().map(|(_, c)| c));
                            }
                            _ => value.push(c),
                        }
                    }
                }
                _ => value.push(c),
            }
        }
        out.push(Word {
            start,
            raw: s[start..end].to_string(),
            value,
        });
    }
    out
}

/// The rest of an ANSI-C quoted string (after `$'`) up to its closing
/// quote, its escapes decoded as bash decodes them.
fn ansi_c(chars: &mut std::iter::Peekable<std::str::CharIndices>, value: &mut String) {
    while let Some((_, c)) = chars.next() {
        match c {
            '\'' => return,
            '\\' => {
                let Some((_, e)) = chars.next() else { return };
                let radix_digits = |chars: &mut std::iter::Peekable<std::str::CharIndices>,
                                    radix: u32,
                                    max: usize,
                                    first: Option<char>| {
                    let mut n = first.and_then(|c| c.to_digit(radix)).unwrap_or(0);
                    let mut taken = usize::from(first.is_some());
                    while taken < max
                        && let Some(d) = chars.peek().and_then(|(_, c)| c.to_digit(radix))
                    {
                        n = n * radix + d;
                        taken += 1;
                        chars.next();
                    }
                    char::from_u32(n)
                };
                let decoded = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    'a' => Some('\u{7}'),
                    'b' => Some('\u{8}'),
                    'e' | 'E' => Some('\u{1b}'),
                    'f' => Some('\u{c}'),
                    'v' => Some('\u{b}'),
                    'x' => radix_digits(chars, 16, 2, None),
                    'u' => radix_digits(chars, 16, 4, None),
                    'U' => radix_digits(chars, 16, 8, None),
                    '0'..='7' => radix_digits(chars, 8, 3, Some(e)),
                    other => Some(other),
                };
                value.extend(decoded);
            }
            c => value.push(c),
        }
    }
}

/// Whether a string runs a command bash only knows when it runs: an
/// expansion (`$cmd`, `${x}`, `$(…)`, a backtick) in a command word, or in
/// the word after it (`git $sub`, where a subcommand stands) unless the
/// command only reads or prints its arguments (`cd "$dir"`, `echo $x`).
/// For `max` such a command is a possible match, so it counts.
pub fn cannot_tell(s: &str) -> bool {
    // The string itself, and every command it runs as `commands` finds
    // them: in `$(…)`, backticks, subshells, functions, `bash -c`, `eval`.
    unknown_command(s) || commands(s).iter().any(|c| unknown_command(c))
}

/// Whether one string's statements run an unknown command (`cannot_tell`).
fn unknown_command(s: &str) -> bool {
    let s = s.replace("\\\n", "");
    statements(&s).iter().enumerate().any(|(n, st)| {
        // A bound on work: a very long string is read up to a point.
        if n > 10_000 {
            return false;
        }
        let words: Vec<Word> = whole_words(st)
            .into_iter()
            .map(|raw| {
                let mut w = words(raw);
                let value = w.first_mut().map(|w| std::mem::take(&mut w.value));
                Word {
                    start: 0,
                    raw: raw.to_string(),
                    value: value.unwrap_or_default(),
                }
            })
            .collect();
        let k = command_word(&words);
        let Some(first) = words.get(k) else {
            return false;
        };
        if expands(&first.raw) {
            return true;
        }
        let name = first.value.rsplit('/').next().unwrap_or_default();
        words
            .get(k + 1)
            .is_some_and(|w| expands(&w.raw) && !READERS.contains(&name))
    })
}

/// Commands whose arguments, whatever they expand to, run no command.
const READERS: [&str; 30] = [
    "cd", "echo", "printf", "export", "local", "declare", "typeset", "readonly", "unset", "test",
    "[", "[[", "cat", "ls", "mkdir", "touch", "rm", "cp", "mv", "read", "shift", "exit", "return",
    "pwd", "wc", "head", "tail", "grep", "sleep", "case",
];

/// Whether a word holds an expansion bash resolves at run time (not the
/// `$'…'`/`$"…"` quotes).
fn expands(raw: &str) -> bool {
    raw.contains('`')
        || raw
            .match_indices('$')
            .any(|(i, _)| !matches!(raw.as_bytes().get(i + 1), Some(b'\'' | b'"')))
}

/// The statements of a string: split at unquoted `;`, `&`, `|` and
/// newlines outside `$(…)`, `${…}` and backticks.
fn statements(s: &str) -> Vec<&str> {
    split_outside(s, |c| matches!(c, ';' | '&' | '|' | '\n'))
}

/// The words of a statement, split at unquoted blanks outside `$(…)`,
/// `${…}` and backticks (so `X=$(cat "$f")` is one word).
fn whole_words(s: &str) -> Vec<&str> {
    split_outside(s, char::is_whitespace)
}

fn split_outside(s: &str, at: impl Fn(char) -> bool) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut tick) = (0usize, None::<char>, false);
    let mut from = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if quote != Some('\'') => {
                chars.next();
            }
            '\'' | '"' if quote == Some(c) => quote = None,
            '\'' | '"' if quote.is_none() => quote = Some(c),
            _ if quote == Some('\'') => {}
            '$' if chars.peek().is_some_and(|(_, n)| matches!(n, '(' | '{')) => {
                chars.next();
                depth += 1;
            }
            '(' if depth > 0 => depth += 1,
            ')' | '}' if depth > 0 => depth -= 1,
            '`' => tick = !tick,
            c if quote.is_none() && depth == 0 && !tick && at(c) => {
                out.push(&s[from..i]);
                from = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[from..]);
    out.into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Whether a word is an assignment (`NAME=value`, `NAME+=v`, `A[i]=v`).
fn assignment(raw: &str) -> bool {
    let Some(eq) = raw.find('=') else {
        return false;
    };
    let name = raw[..eq].strip_suffix('+').unwrap_or(&raw[..eq]);
    let name = match name.find('[') {
        Some(b) if name.ends_with(']') => &name[..b],
        _ => name,
    };
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a word is a redirection, and whether its target is the next
/// word (`>`, `2>>`, `<`) rather than in it (`>/dev/null`).
fn redirection(raw: &str) -> Option<bool> {
    let op = raw.trim_start_matches(|c: char| c.is_ascii_digit());
    let op = op
        .strip_prefix('{')
        .and_then(|o| o.split_once('}'))
        .map_or(op, |(_, o)| o);
    let rest = op.trim_start_matches(['<', '>', '&', '|']);
    (rest.len() < op.len()).then_some(rest.is_empty())
}

/// The index of a piece's command word: past reserved words, assignments,
/// redirections and wrappers with their options.
fn command_word(words: &[Word]) -> usize {
    let mut k = 0;
    while let Some(w) = words.get(k) {
        let raw = w.raw.as_str();
        if RESERVED.contains(&raw) {
            k += 1;
        } else if raw == "function" {
            // `function NAME {`: its body follows.
            k += 2;
        } else if assignment(raw) {
            k += 1;
        } else if let Some(separate) = redirection(raw) {
            k += if separate { 2 } else { 1 };
        } else if let Some((_, with_arg, operands)) = WRAPPERS
            .iter()
            .find(|(name, _, _)| w.value.rsplit('/').next() == Some(*name))
        {
            k += 1;
            while let Some(o) = words.get(k).map(|o| o.value.as_str()) {
                if o == "--" {
                    k += 1;
                    break;
                }
                if !o.starts_with('-') || o == "-" {
                    break;
                }
                k += if with_arg.contains(&o) { 2 } else { 1 };
            }
            k += operands;
        } else {
            break;
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `^git push` matches a candidate of `s`.
    fn runs_git_push(s: &str) -> bool {
        commands(s).iter().any(|c| c.starts_with("git push"))
    }

    #[test]
    fn grouping_and_reserved_words_before_the_command_word() {
        for s in [
            "git push",
            "cd /w && git push",
            "cd /w; { git push --force; }",
            "if true; then git push --force; fi",
            "if false; then :; elif true; then git push; fi",
            "if false; then :; else git push; fi",
            "while false; do :; done; for i in 1; do git push --force; done",
            "until git push; do :; done",
            "! git push --force",
            "time -p git push",
            "f() { git push; }; f",
            "function f { git push; }; f",
            "(git push)",
            "echo $(git push)",
            "echo `git push`",
            "case x in x) git push;; esac",
            "coproc git push",
        ] {
            assert!(runs_git_push(s), "{s}");
        }
    }

    #[test]
    fn assignments_redirections_and_wrappers() {
        for s in [
            "GIT_DIR=x git push",
            "A=\"a b\" B+=c git push",
            ">/dev/null git push",
            "2> log git push",
            "2>&1 git push",
            "&>/dev/null git push",
            "command git push",
            "exec -a x git push",
            "env -i -u HOME A=1 git push",
            "nohup git push &",
            "sudo -u root -E git push",
            "nice -n 5 git push",
            "timeout -s KILL 10 git push",
            "stdbuf -oL git push",
            "xargs -I {} git push",
            "sudo -- env A=1 nohup git push",
        ] {
            assert!(runs_git_push(s), "{s}");
        }
    }

    #[test]
    fn quoted_and_path_qualified_command_words() {
        for s in [
            "\"git\" push",
            "g''it push",
            "\\git push",
            "/usr/bin/git push",
            "'git' 'push'",
        ] {
            assert!(runs_git_push(s), "{s}");
        }
    }

    #[test]
    fn scripts_given_to_a_shell_or_eval_are_read_again() {
        for s in [
            "bash -c 'git push'",
            "sh -ec \"git push --force\"",
            "/bin/bash -lc 'if true; then git push; fi'",
            "eval 'git push'",
            "eval \"sudo git push\"",
        ] {
            assert!(runs_git_push(s), "{s}");
        }
    }

    #[test]
    fn a_long_string_of_many_pieces_is_read_in_linear_time() {
        let mut s: String = (0..100_000).map(|i| format!("a{i}; ")).collect();
        s += "eval 'bash -c \"git push\"'";
        let started = std::time::Instant::now();
        assert!(runs_git_push(&s));
        assert!(started.elapsed().as_secs() < 10);
    }

    #[test]
    fn what_only_names_the_command_is_not_it() {
        for s in [
            "echo git push",
            "grep 'git push' log",
            "cat README # git push",
            "ls -la",
            "for git in push; do :; done",
        ] {
            assert!(!runs_git_push(s), "{s}: {:?}", commands(s));
        }
    }
}

#[cfg(test)]
mod round4 {
    use super::*;

    fn runs_git_push(s: &str) -> bool {
        cannot_tell(s) || commands(s).iter().any(|c| c.starts_with("git push"))
    }

    #[test]
    fn words_are_read_as_bash_reads_them() {
        for s in [
            "git $'push' --force",
            "git $'\\x70ush'",
            "git $'\\160ush'",
            "git $\"push\" --force",
            "git \\\npush --force",
            "{git,push} --force",
            "git pu{s,x}h",
        ] {
            assert!(
                commands(s).iter().any(|c| c.starts_with("git push")),
                "{s}: {:?}",
                commands(s)
            );
        }
    }

    #[test]
    fn expansions_where_the_command_stands_cannot_be_told() {
        for s in [
            "git${IFS}push --force",
            "p=push; git $p",
            "git $(echo push)",
            "git `echo push`",
            "$GIT push",
            "\"$cmd\" --force",
            "cd /w && ${G} push",
            "f() { git $(echo push); }; f",
            "echo `p=push; git $p`",
            "bash -c 'git $(echo push)'",
        ] {
            assert!(runs_git_push(s), "{s}");
        }
        assert!(
            commands("git${IFS}push")
                .iter()
                .any(|c| c.starts_with("git push"))
        );
        for s in [
            "cd \"$HOME\" && cargo test",
            "echo $PATH",
            "X=$(cat \"$f\") ls",
            "cargo test --features x",
            "for f in $(ls); do echo $f; done",
            "[ -n \"$X\" ]",
        ] {
            assert!(!cannot_tell(s), "{s}");
        }
    }
}
