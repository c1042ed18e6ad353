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
    for piece in pieces(s) {
        out.push(piece.to_string());
        let words = words(piece);
        let k = command_word(&words);
        let Some(first) = words.get(k) else {
            continue;
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
            continue;
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
