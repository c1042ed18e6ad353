//! Reading a contract file: once, hashed, strictly.
//!
//! The bytes are read once (with a size cap) and hashed; everything after
//! works on those bytes, so a file changing under us cannot split the verdict
//! from the text it was about. YAML and JSON go through the same steps:
//!
//! 1. parse into a JSON value, refusing duplicate keys at any depth, YAML
//!    tags, several documents, non-finite numbers (serde's maps would keep
//!    the last duplicate silently);
//! 2. move `x-` fields of the contract's own objects into `extensions`;
//! 3. deserialize the typed model, which refuses unknown fields, and report
//!    the failing field with its line.

use std::fmt;
use std::path::Path;

use saphyr_parser::Event;
use serde::de::{self, Deserialize, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::model::{Contract, Extensions};
use crate::problem::{Code, FieldPath, Level, Problem, Seg};
use crate::spans::Spans;
use crate::vcc1;

pub use crate::document::{Document, Kept};

/// Contracts are small; anything larger is refused before parsing.
pub const MAX_CONTRACT_BYTES: u64 = 4 << 20;

pub(crate) fn first(mut problems: Vec<Problem>) -> Box<Problem> {
    Box::new(if problems.is_empty() {
        Problem {
            code: Code::SyntaxError,
            level: Level::Error,
            message: "the contract could not be parsed".into(),
            file: String::new(),
            field: None,
            line: None,
            column: None,
            help: None,
        }
    } else {
        problems.swap_remove(0)
    })
}

/// Parse contract bytes; `path` names the file in problems and decides the
/// syntax (`.json` is JSON, anything else YAML). The first problem if they
/// cannot be parsed (see [`parse_all`]).
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Document, Box<Problem>> {
    parse_all(path, bytes).map_err(first)
}

/// Parse contract bytes, with every problem found (at least one) if they
/// cannot be parsed: a syntax error stops the parser, but a document that
/// parses is checked field by field, so three misspelt fields are three
/// problems, each with its line.
pub fn parse_all(path: &Path, bytes: &[u8]) -> Result<Document, Vec<Problem>> {
    parse_mapped(path, bytes, &vcc1::Mapping::default())
}

/// [`parse_all`], with what the command line maps in a VCC v1 contract
/// (`--artifact-root`, `--adapters`): it is part of the contract's digest.
pub fn parse_mapped(
    path: &Path,
    bytes: &[u8],
    mapping: &vcc1::Mapping,
) -> Result<Document, Vec<Problem>> {
    let file = path.display().to_string();
    let problem =
        |code, message: String, at: Option<(usize, usize)>, field: Option<String>| Problem {
            code,
            level: Level::Error,
            message,
            file: file.clone(),
            field,
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
            help: None,
        };
    // The digest is of the bytes as read, byte-order mark included.
    let mut digest = format!("blake3:{}", blake3::hash(bytes).to_hex());
    if !mapping.is_empty() {
        let mut h = blake3::Hasher::new();
        h.update(b"vcc-mapped-contract 1\n");
        h.update(digest.as_bytes());
        h.update(b"\n");
        h.update(mapping.canonical().as_bytes());
        digest = format!("blake3:{}", h.finalize().to_hex());
    }
    // Editors on Windows start UTF-8 files with a byte-order mark; it is
    // not part of the YAML or JSON text.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        vec![problem(
            Code::NotUtf8,
            format!(
                "the contract is not UTF-8 (invalid byte at offset {})",
                err.valid_up_to()
            ),
            None,
            None,
        )]
    })?;
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let mut value = if is_json {
        parse_json(text)
    } else {
        parse_yaml(text)
    }
    .map_err(|(code, message, at)| vec![problem(code, message, at, None)])?;

    let spans = Spans::index(text);
    let mut format = "vcc: 1".to_string();
    let mut origin = None;
    let mut raw_notes = Vec::new();
    if value.get("vccVersion").is_some() {
        let translated = vcc1::translate(value, path.parent(), mapping).map_err(|failures| {
            failures
                .into_iter()
                .map(|(code, field, message)| {
                    let mut p = problem(code, message, spans.find(&field), Some(field.render()));
                    p.help = help_for(code, &p.message);
                    p
                })
                .collect::<Vec<_>>()
        })?;
        value = translated.native;
        format = translated.version;
        origin = Some(translated.origin);
        raw_notes = translated.notes;
    } else if !mapping.is_empty() {
        return Err(vec![problem(
            Code::InvalidValue,
            "--artifact-root and --adapters map the artifacts and adapters of a VCC v1 contract; this is a native contract (`vcc: 1`): give paths in its deliverables instead".into(),
            None,
            None,
        )]);
    }
    let extensions = take_all_extensions(&mut value);
    let contract: Result<Contract, _> = serde_path_to_error::deserialize(&value);
    let mut contract = contract.map_err(|err| {
        let first = (to_field_path(err.path()), err.inner().to_string());
        // A contract of another version is that one problem, not many.
        let errors = if classify(&first.1) == Code::UnsupportedVersion {
            vec![first]
        } else {
            let all = all_errors(&value);
            if all.is_empty() { vec![first] } else { all }
        };
        let mut problems: Vec<Problem> = errors
            .into_iter()
            .map(|(native, message)| {
                let field = origin
                    .as_ref()
                    .map_or_else(|| native.clone(), |o| o.map(&native));
                let code = classify(&message);
                let mut p = problem(code, message, spans.find(&field), Some(field.render()));
                if field.0.is_empty() {
                    p.field = None;
                }
                p.help = help_for(code, &p.message);
                p
            })
            .collect();
        problems.sort_by_key(|p| (p.line.unwrap_or(0), p.column.unwrap_or(0)));
        problems
    })?;
    extensions.apply(&mut contract);
    // A bundle validator's name in the bundle defaults to the binding's.
    for (name, v) in contract.validators.iter_mut() {
        if v.bundle.is_some() && v.validator.is_none() {
            v.validator = Some(name.clone());
        }
    }
    let mut doc = Document {
        path: path.to_path_buf(),
        digest,
        format,
        contract,
        spans,
        notes: Vec::new(),
        origin,
        bases: Vec::new(),
        inherited: Vec::new(),
        files: Vec::new(),
        kept: None,
    };
    doc.notes = raw_notes
        .into_iter()
        .map(|n| {
            let at = doc.spans.find(&n.field);
            Problem {
                code: n.code,
                level: n.level,
                message: n.message,
                file: doc.path.display().to_string(),
                field: Some(n.field.render()),
                line: at.map(|a| a.0),
                column: at.map(|a| a.1),
                help: n.help,
            }
        })
        .collect();
    Ok(doc)
}

type ParseError = (Code, String, Option<(usize, usize)>);

fn parse_json(text: &str) -> Result<Value, ParseError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = StrictValue::deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|err| {
            let message = err.to_string();
            (code_of(&message), message, Some((err.line(), err.column())))
        })?;
    Ok(value.0)
}

/// Nesting deeper than this is refused (serde_yaml's own limit too).
const MAX_NESTING: usize = 128;
/// No contract holds this many values; serde_yaml would hold every event
/// of them in memory before its own checks (900 MB for 3.7 million).
const MAX_NODES: usize = 1_000_000;

/// Refuse, before serde_yaml sees the text, what it would take too long to
/// refuse itself. libyaml's scanner is quadratic in flow nesting depth and
/// reads the whole text before serde_yaml's depth limit applies: 100,000
/// nested `[` took 27 s. This event parser stops at the first node past
/// [`MAX_NESTING`], past [`MAX_NODES`], at any tag, and at any syntax error
/// it finds (so only text it accepts reaches serde_yaml).
fn screen_yaml(text: &str) -> Result<(), ParseError> {
    let mut depth = 0usize;
    for (count, event) in saphyr_parser::Parser::new_from_str(text).enumerate() {
        let (event, span) = event.map_err(|err| {
            let at = err.marker();
            (
                Code::SyntaxError,
                format!(
                    "{} at line {} column {}",
                    err.info(),
                    at.line(),
                    at.col() + 1
                ),
                Some((at.line(), at.col() + 1)),
            )
        })?;
        let at = Some((span.start.line(), span.start.col() + 1));
        if count > MAX_NODES {
            return Err((
                Code::ContractTooLarge,
                format!(
                    "the contract holds more than {MAX_NODES} values; contracts describe deliverables, they do not contain them"
                ),
                at,
            ));
        }
        let tagged = match &event {
            Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err((
                        Code::SyntaxError,
                        format!("the contract nests deeper than {MAX_NESTING} levels"),
                        at,
                    ));
                }
                tag.is_some()
            }
            Event::SequenceEnd | Event::MappingEnd => {
                depth = depth.saturating_sub(1);
                false
            }
            Event::Scalar(_, _, _, tag) => tag.is_some(),
            _ => false,
        };
        if tagged {
            return Err((
                Code::YamlTag,
                format!("{YAML_TAG} (`!tag`); write plain values"),
                at,
            ));
        }
    }
    Ok(())
}

/// A YAML file a contract names, parsed as strictly as a contract.
pub(crate) fn parse_yaml_value(text: &str) -> Result<Value, ParseError> {
    screen_yaml(text)?;
    serde_yaml::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|err| {
            let message = err.to_string();
            let at = err.location().map(|l| (l.line(), l.column()));
            (code_of(&message), message, at)
        })
}

fn parse_yaml(text: &str) -> Result<Value, ParseError> {
    screen_yaml(text)?;
    match serde_yaml::from_str::<StrictValue>(text) {
        Ok(StrictValue(Value::Null)) => {
            Err((Code::SyntaxError, "the contract is empty".into(), None))
        }
        Ok(value) => Ok(value.0),
        Err(err) => {
            let mut message = err.to_string();
            if message.contains("repetition limit exceeded") {
                message = format!(
                    "YAML aliases expand to too much data ({message}); write the values out"
                );
            }
            let code = code_of(&message);
            let at = match code {
                Code::MultipleDocuments => Spans::second_document(text),
                _ => err.location().map(|l| (l.line(), l.column())),
            };
            Err((code, message, at))
        }
    }
}

/// Problems one item may have at most before the rest of it is skipped.
const MAX_ITEM_ERRORS: usize = 20;

/// Every error in a document that parsed but is not a valid contract:
/// each deliverable, validator and criterion on its own, then the rest.
/// Within one object, an unknown field is reported and removed, and the
/// object checked again; any other error ends that object's check (what
/// follows would be guessing).
fn all_errors(value: &Value) -> Vec<(FieldPath, String)> {
    let mut errors = Vec::new();
    let mut rest = value.clone();
    if let Some(top) = rest.as_object_mut() {
        if let Some(Value::Array(items)) = top.get_mut("deliverables") {
            for (i, item) in items.drain(..).enumerate() {
                item_errors::<crate::model::Deliverable>(
                    item,
                    &FieldPath::root().key("deliverables").index(i),
                    &mut errors,
                );
            }
        }
        if let Some(Value::Array(items)) = top.get_mut("criteria") {
            for (i, item) in items.drain(..).enumerate() {
                item_errors::<crate::model::Criterion>(
                    item,
                    &FieldPath::root().key("criteria").index(i),
                    &mut errors,
                );
            }
        }
        if let Some(Value::Object(items)) = top.get_mut("validators") {
            for (name, item) in std::mem::take(items) {
                item_errors::<crate::model::ValidatorRef>(
                    item,
                    &FieldPath::root().key("validators").key(&name),
                    &mut errors,
                );
            }
        }
    }
    item_errors::<Contract>(rest, &FieldPath::root(), &mut errors);
    errors
}

fn item_errors<T: serde::de::DeserializeOwned>(
    mut item: Value,
    at: &FieldPath,
    errors: &mut Vec<(FieldPath, String)>,
) {
    // Names a removed misspelling was probably meant to be: their "missing
    // field" is the same mistake, said twice.
    let mut meant: Vec<(Vec<Seg>, String)> = Vec::new();
    for _ in 0..MAX_ITEM_ERRORS {
        let Err(err) = serde_path_to_error::deserialize::<_, T>(&item) else {
            return;
        };
        let inner = to_field_path(err.path());
        let message = err.inner().to_string();
        if let Some(name) = message
            .strip_prefix("missing field `")
            .and_then(|m| m.split('`').next())
            && meant.iter().any(|(o, n)| *o == inner.0 && n == name)
        {
            return;
        }
        let mut field = at.clone();
        field.0.extend(inner.0.iter().cloned());
        errors.push((field, message.clone()));
        if !message.starts_with("unknown field") || !remove(&mut item, &inner.0) {
            return;
        }
        if let Some(guess) = did_you_mean(&message) {
            let object = inner.0[..inner.0.len().saturating_sub(1)].to_vec();
            meant.push((object, guess.to_string()));
        }
    }
}

/// Remove the entry at `path` (its last segment a key); false if absent.
fn remove(value: &mut Value, path: &[Seg]) -> bool {
    let Some((Seg::Key(last), parents)) = path.split_last() else {
        return false;
    };
    let mut at = value;
    for seg in parents {
        let next = match seg {
            Seg::Key(k) => at.get_mut(k.as_str()),
            Seg::Index(i) => at.get_mut(*i),
        };
        let Some(next) = next else {
            return false;
        };
        at = next;
    }
    at.as_object_mut().and_then(|o| o.remove(last)).is_some()
}

/// The code of a syntax-level error, from serde's message.
fn code_of(message: &str) -> Code {
    if message.contains(DUPLICATE_KEY) {
        Code::DuplicateKey
    } else if message.contains(YAML_TAG) {
        Code::YamlTag
    } else if message.contains("more than one document") {
        Code::MultipleDocuments
    } else {
        Code::SyntaxError
    }
}

/// The code of a model-level error, from serde's message.
fn classify(message: &str) -> Code {
    if message.starts_with("unknown field") {
        Code::UnknownField
    } else if message.starts_with("missing field") {
        Code::MissingField
    } else if message.starts_with("unsupported contract format version") {
        Code::UnsupportedVersion
    } else {
        Code::InvalidValue
    }
}

fn help_for(code: Code, message: &str) -> Option<String> {
    let guess = did_you_mean(message)
        .map(|g| format!("did you mean `{g}`? "))
        .unwrap_or_default();
    match code {
        Code::UnknownField => Some(format!(
            "{guess}fix the spelling, or prefix the field with `x-` to keep it as an extension"
        )),
        Code::InvalidValue if !guess.is_empty() => Some(guess.trim_end().to_string()),
        Code::UnsupportedVersion => Some(
            "write `vcc: 1` at the top of a native contract, or `vccVersion: \"sdlaf.vcc/v1\"` for a VCC v1 one".into(),
        ),
        _ => None,
    }
}

/// The closest allowed name, from a serde message that names what it got
/// and what it expected (`unknown field `sevrity`, expected one of `id`,
/// `severity`, …`): a close misspelling or another case of one.
fn did_you_mean(message: &str) -> Option<&str> {
    let got = message.split('`').nth(1)?.to_lowercase();
    let (_, expected) = message.split_once("expected ")?;
    let (distance, best) = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|name| {
            (
                crate::problem::edit_distance(&got, &name.to_lowercase()),
                name,
            )
        })
        .min()?;
    (distance <= (got.chars().count() / 3).max(1)).then_some(best)
}

fn to_field_path(path: &serde_path_to_error::Path) -> FieldPath {
    FieldPath(
        path.iter()
            .filter_map(|seg| match seg {
                serde_path_to_error::Segment::Seq { index } => Some(Seg::Index(*index)),
                serde_path_to_error::Segment::Map { key } => Some(Seg::Key(key.clone())),
                serde_path_to_error::Segment::Enum { variant } => Some(Seg::Key(variant.clone())),
                serde_path_to_error::Segment::Unknown => None,
            })
            .collect(),
    )
}

const DUPLICATE_KEY: &str = "duplicate key";
const YAML_TAG: &str = "YAML tags are not allowed";

/// A JSON value that refuses duplicate keys, tags and non-finite numbers.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: de::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON-compatible value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("the number {v} is not allowed (not finite)")))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let StrictValue(value) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!("{DUPLICATE_KEY} `{key}`")));
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, _data: A) -> Result<Value, A::Error> {
        Err(de::Error::custom(format!(
            "{YAML_TAG} (`!tag`); write plain values"
        )))
    }
}

/// Map keys must be strings (YAML allows anything).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, de: D) -> Result<String, D::Error> {
        match StrictValue::deserialize(de)?.0 {
            Value::String(s) => Ok(s),
            Value::Number(n) => Ok(n.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            other => Err(de::Error::custom(format!(
                "map keys must be strings, found {other}"
            ))),
        }
    }
}

/// `x-` fields taken out of the document, by the object they belonged to.
#[derive(Default)]
struct TakenExtensions {
    root: Extensions,
    deliverables: Vec<(usize, Extensions)>,
    validators: Vec<(String, Extensions)>,
    criteria: Vec<(usize, Extensions)>,
    on_fail: Vec<(usize, Extensions)>,
    criterion_limits: Vec<(usize, Extensions)>,
    limits: Extensions,
    budget: Extensions,
    extends: Extensions,
    gates: Vec<(usize, Extensions, Vec<Extensions>)>,
    provenance: Extensions,
}

fn take(value: &mut Value) -> Extensions {
    let Some(obj) = value.as_object_mut() else {
        return Extensions::new();
    };
    let keys: Vec<String> = obj
        .keys()
        .filter(|k| k.starts_with("x-"))
        .cloned()
        .collect();
    keys.into_iter()
        .filter_map(|k| obj.remove(&k).map(|v| (k, v)))
        .collect()
}

/// Extensions live only on the contract's own objects; `params` is the
/// validator's and is passed through untouched.
fn take_all_extensions(doc: &mut Value) -> TakenExtensions {
    let mut out = TakenExtensions {
        root: take(doc),
        ..Default::default()
    };
    if let Some(list) = doc.get_mut("deliverables").and_then(Value::as_array_mut) {
        for (i, d) in list.iter_mut().enumerate() {
            out.deliverables.push((i, take(d)));
        }
    }
    if let Some(map) = doc.get_mut("validators").and_then(Value::as_object_mut) {
        for (name, v) in map.iter_mut() {
            out.validators.push((name.clone(), take(v)));
        }
    }
    if let Some(list) = doc.get_mut("criteria").and_then(Value::as_array_mut) {
        for (i, c) in list.iter_mut().enumerate() {
            out.criteria.push((i, take(c)));
            if let Some(on_fail) = c.get_mut("on_fail") {
                out.on_fail.push((i, take(on_fail)));
            }
            if let Some(limits) = c.get_mut("limits") {
                out.criterion_limits.push((i, take(limits)));
            }
        }
    }
    if let Some(limits) = doc.get_mut("limits") {
        out.limits = take(limits);
    }
    if let Some(budget) = doc.get_mut("budget") {
        out.budget = take(budget);
    }
    if let Some(extends) = doc.get_mut("extends") {
        out.extends = take(extends);
    }
    if let Some(list) = doc.get_mut("gates").and_then(Value::as_array_mut) {
        for (i, g) in list.iter_mut().enumerate() {
            let own = take(g);
            let approvals = g
                .get_mut("approvals")
                .and_then(Value::as_array_mut)
                .map(|a| a.iter_mut().map(take).collect())
                .unwrap_or_default();
            out.gates.push((i, own, approvals));
        }
    }
    if let Some(p) = doc.get_mut("provenance") {
        out.provenance = take(p);
    }
    out
}

impl TakenExtensions {
    fn apply(self, c: &mut Contract) {
        c.extensions = self.root;
        for (i, ext) in self.deliverables {
            if let Some(d) = c.deliverables.get_mut(i) {
                d.extensions = ext;
            }
        }
        for (name, ext) in self.validators {
            if let Some(v) = c.validators.get_mut(&name) {
                v.extensions = ext;
            }
        }
        for (i, ext) in self.criteria {
            if let Some(crit) = c.criteria.get_mut(i) {
                crit.extensions = ext;
            }
        }
        for (i, ext) in self.on_fail {
            if let Some(on_fail) = c.criteria.get_mut(i).and_then(|c| c.on_fail.as_mut()) {
                on_fail.extensions = ext;
            }
        }
        for (i, ext) in self.criterion_limits {
            if let Some(limits) = c.criteria.get_mut(i).and_then(|c| c.limits.as_mut()) {
                limits.extensions = ext;
            }
        }
        if let Some(limits) = c.limits.as_mut() {
            limits.extensions = self.limits;
        }
        if let Some(budget) = c.budget.as_mut() {
            budget.extensions = self.budget;
        }
        if let Some(extends) = c.extends.as_mut() {
            extends.extensions = self.extends;
        }
        for (i, own, approvals) in self.gates {
            if let Some(g) = c.gates.get_mut(i) {
                g.extensions = own;
                for (a, ext) in g.approvals.iter_mut().zip(approvals) {
                    a.extensions = ext;
                }
            }
        }
        if let Some(p) = c.provenance.as_mut() {
            p.extensions = self.provenance;
        }
    }
}

#[cfg(test)]
mod tests;
