//! Where each field of a contract document is written (line and column).
//!
//! serde_yaml and serde_json give positions only for syntax errors. To point
//! problems found later (an unknown target, a cycle) at a line, the text is
//! scanned once more with an event parser that reports spans. The index is a
//! convenience: if the scan fails, problems still name the field.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser};

use crate::problem::{FieldPath, Seg};

#[derive(Debug, Default, Clone)]
pub struct Spans(HashMap<Vec<Seg>, (usize, usize)>);

/// Documents past this depth are refused by the real parser anyway.
const MAX_DEPTH: usize = 256;
/// Problems point at contract fields, a few levels deep; deeper nodes (in
/// params or extensions) are found through their nearest indexed parent.
/// Indexing every node of a deep document cost O(nodes × depth): 20 s for
/// 4 MB nested 126 levels.
const MAX_INDEXED: usize = 16;

enum Frame {
    Map { key: Option<String>, pushed: bool },
    Seq { next: usize, pushed: bool },
}

impl Spans {
    /// Index a YAML (or JSON) text. Never fails; gives up quietly.
    pub fn index(text: &str) -> Spans {
        let mut spans = HashMap::new();
        let mut frames: Vec<Frame> = Vec::new();
        let mut path: Vec<Seg> = Vec::new();
        for event in Parser::new_from_str(text) {
            let Ok((event, span)) = event else { break };
            let at = (span.start.line(), span.start.col() + 1);
            let opens = matches!(event, Event::MappingStart(..) | Event::SequenceStart(..));
            let is_node = opens || matches!(event, Event::Scalar(..) | Event::Alias(..));
            if matches!(event, Event::MappingEnd | Event::SequenceEnd) {
                let pushed = match frames.pop() {
                    Some(Frame::Map { pushed, .. } | Frame::Seq { pushed, .. }) => pushed,
                    None => false,
                };
                if pushed {
                    path.pop();
                }
                continue;
            }
            if !is_node {
                continue;
            }
            // Where does this node sit in its parent?
            let mut pushed = false;
            match frames.last_mut() {
                Some(Frame::Map { key, .. }) if key.is_none() => {
                    // A key: remember it and where it is written.
                    if let Event::Scalar(text, ..) = &event {
                        let name = text.to_string();
                        if path.len() < MAX_INDEXED {
                            let mut at_key = path.clone();
                            at_key.push(Seg::Key(name.clone()));
                            spans.entry(at_key).or_insert(at);
                        }
                        *key = Some(name);
                    } else {
                        // Complex keys never occur in contracts; stop indexing.
                        break;
                    }
                    continue;
                }
                Some(Frame::Map { key, .. }) => {
                    path.push(Seg::Key(key.take().unwrap_or_default()));
                    pushed = true;
                }
                Some(Frame::Seq { next, .. }) => {
                    path.push(Seg::Index(*next));
                    *next += 1;
                    if path.len() <= MAX_INDEXED {
                        spans.entry(path.clone()).or_insert(at);
                    }
                    pushed = true;
                }
                None => {}
            }
            if opens {
                if frames.len() >= MAX_DEPTH {
                    break;
                }
                frames.push(match event {
                    Event::MappingStart(..) => Frame::Map { key: None, pushed },
                    _ => Frame::Seq { next: 0, pushed },
                });
            } else if pushed {
                path.pop();
            }
        }
        Spans(spans)
    }

    /// Where a second YAML document starts, if there is one.
    pub fn second_document(text: &str) -> Option<(usize, usize)> {
        Parser::new_from_str(text)
            .map_while(Result::ok)
            .filter(|(event, _)| matches!(event, Event::DocumentStart(_)))
            .nth(1)
            .map(|(_, span)| (span.start.line(), span.start.col() + 1))
    }

    /// The position of `field`, or of its nearest indexed parent.
    pub fn find(&self, field: &FieldPath) -> Option<(usize, usize)> {
        let segs = &field.0;
        (1..=segs.len())
            .rev()
            .find_map(|n| self.0.get(&segs[..n]).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_items_in_block_yaml() {
        let text = "vcc: 1\ncriteria:\n  - id: AC-1\n    targets: [a, b]\n  - id: AC-2\n";
        let spans = Spans::index(text);
        let root = FieldPath::root();
        assert_eq!(spans.find(&root.key("vcc")), Some((1, 1)));
        assert_eq!(
            spans.find(&root.key("criteria").index(1).key("id")),
            Some((5, 5))
        );
        assert_eq!(
            spans.find(&root.key("criteria").index(0).key("targets").index(1)),
            Some((4, 18))
        );
        // A field that is not written falls back to its parent.
        assert_eq!(
            spans.find(&root.key("criteria").index(1).key("severity")),
            Some((5, 5))
        );
    }

    #[test]
    fn finds_keys_in_json() {
        let text = "{\n  \"vcc\": 1,\n  \"deliverables\": [\n    {\"id\": \"x\", \"path\": \"a\"}\n  ]\n}\n";
        let spans = Spans::index(text);
        let field = FieldPath::root().key("deliverables").index(0).key("path");
        assert_eq!(spans.find(&field), Some((4, 17)));
    }

    #[test]
    fn gives_up_quietly_on_garbage() {
        let spans = Spans::index("a: [unclosed\n  - :");
        assert!(spans.find(&FieldPath::root().key("zzz")).is_none());
    }
}
