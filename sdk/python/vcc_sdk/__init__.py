"""Write a vcc validator component in Python (with componentize-py).

A validator is a class with one method::

    import vcc_sdk

    class NoTodo(vcc_sdk.Validator):
        name = "no-todo"
        summary = "target files contain no TODO"

        def validate(self, criterion):
            found = [vcc_sdk.Finding("TODO left in", path=p, line=n)
                     for p in criterion.paths
                     for n, text in enumerate(vcc_sdk.read_text(p).splitlines(), 1)
                     if "TODO" in text]
            if found:
                return vcc_sdk.failed(f"{len(found)} TODO(s)", found)
            return vcc_sdk.passed("no TODO")

    Validator = vcc_sdk.export(NoTodo)

`vcc validator build` runs componentize-py with this package and bindings
generated from the `vcc:validator` WIT at build time (the `wit_world`
module); nothing here is generated or copied by hand.

Return `failed(...)` when the deliverables do not meet the criterion. Raise
(any exception) only when the validator itself cannot work: the host records
status `error`, never a pass.
"""

import json
import sys

from componentize_py_types import Err, Ok
from wit_world import exports
from wit_world.imports import deliverables, judge, types

__all__ = [
    "MOUNT",
    "WIT_VERSION",
    "Criterion",
    "Validator",
    "Finding",
    "Evidence",
    "passed",
    "failed",
    "skipped",
    "files",
    "deliverable_ids",
    "read",
    "read_text",
    "stat",
    "relative",
    "InvalidParams",
    "invalid_params",
    "export",
    "signatures",
    "judges",
    "JudgeRequest",
    "JudgeError",
    "complete",
]

#: Where the host mounts the deliverable root (read-only) for `open()`.
MOUNT = "/deliverables"
#: The `vcc:validator` version this SDK targets.
WIT_VERSION = "0.1.4"
#: How a validator error says the params are wrong, not the deliverables:
#: the host then reports reason `invalid_params`.
INVALID_PARAMS = "invalid params:"


class Criterion:
    """The criterion a validator is asked to judge, with params parsed."""

    def __init__(self, raw):
        self.id = raw.id
        #: The criterion's params as Python values (`{}` when absent).
        self.params = json.loads(raw.params or "{}")
        #: Deliverable id -> guest paths of its files, in contract order.
        self.targets = {t.id: list(t.paths) for t in raw.targets}

    @property
    def paths(self):
        """Every target file's guest path, in target order."""
        return [p for paths in self.targets.values() for p in paths]

    def param(self, name, default=None):
        return self.params.get(name, default)


class Validator:
    """Subclass, set the class attributes, implement `validate`."""

    name = "validator"
    version = "0.1.0"
    summary = ""
    #: A JSON Schema (as a dict) the host checks `params` against.
    params = {"type": "object", "additionalProperties": False}

    def validate(self, criterion):
        raise NotImplementedError("implement validate(self, criterion)")

    def check_params(self, params):
        """What the schema cannot say about `params` (parsed JSON): return a
        list of `Finding(message, path="/json/pointer")`, empty when fine.
        `vcc lint` reports each one as INVALID_PARAMS."""
        return []


class InvalidParams(Exception):
    """Raise from `validate` when the params are wrong (reason `invalid_params`)."""


def invalid_params(message):
    return InvalidParams(message)


def Finding(message, path=None, line=None, column=None, rule=None):
    """A finding; `path` may be a guest path or relative to the root."""
    return types.Finding(
        message=str(message),
        path=relative(path) if path is not None else None,
        line=line,
        column=column,
        rule=rule,
    )


def Evidence(name, media_type, data):
    """Bytes kept with the report (`str` is encoded as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return types.Evidence(name=name, media_type=media_type, bytes=bytes(data))


def _outcome(status, summary, findings, evidence):
    return types.Outcome(
        status=status,
        summary=str(summary),
        findings=list(findings or []),
        evidence=list(evidence or []),
    )


def passed(summary, findings=(), evidence=()):
    return _outcome(types.Status.PASS, summary, findings, evidence)


def failed(summary, findings=(), evidence=()):
    return _outcome(types.Status.FAIL, summary, findings, evidence)


def skipped(summary, findings=(), evidence=()):
    return _outcome(types.Status.SKIP, summary, findings, evidence)


def _host(call, *args):
    """Host calls report failures as `Err(message)`; raise them as errors."""
    try:
        return call(*args)
    except Err as err:
        raise OSError(str(err.value)) from None


def files(deliverable):
    """The files of any deliverable of the contract, by id."""
    return _host(deliverables.list_files, deliverable)


def deliverable_ids():
    """The ids of every deliverable of the contract, in contract order."""
    return list(deliverables.list_deliverables())


def read(path):
    """The bytes of a file the host hashed (recorded in `files_read`)."""
    return bytes(_host(deliverables.read_file, path))


def read_text(path):
    """The file as UTF-8 text; a file that is not is an error that says so
    (never decoded with replacement characters): read its bytes with
    `read(path)` instead."""
    data = read(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{relative(path)} is not UTF-8 text (invalid byte at offset {exc.start}): "
            "read it as bytes with vcc_sdk.read(path)"
        ) from None


def stat(path):
    """Size and digest of a file, without reading it."""
    return _host(deliverables.stat_file, path)


def signatures(path):
    """Who signed a file, as the host verified it against the trust policy:
    an object with `signers` (trusted key ids; empty unless the policy's
    threshold is met) and `problems` (each with a stable `code` and a
    `message`). The validator never verifies a signature itself.
    Since vcc:validator@0.1.3."""
    return deliverables.signatures(path)


def judges():
    """The AI judges the contract grants this criterion, in its order
    (empty: none). Since vcc:validator@0.1.4."""
    return list(judge.judges())


def JudgeRequest(user, *, system=None, files=(), schema=None, sample=0, judge_name=""):
    """One request to a judge: the question (`user`), an optional `system`
    message, snapshot files by digest (`stat(path).digest`: the host adds
    their text as delimited, untrusted data), the JSON Schema the answer
    must match (a dict or JSON text), and the sample index (0, 1, ...: K
    samples are K requests). `judge_name`: a granted judge ("" is the
    first). The validator never holds a key or picks a model."""
    messages = []
    if system is not None:
        messages.append(judge.Message(role="system", content=str(system)))
    messages.append(judge.Message(role="user", content=str(user)))
    if schema is not None and not isinstance(schema, str):
        schema = json.dumps(schema)
    return judge.Request(
        judge=judge_name,
        messages=messages,
        files=list(files),
        schema=schema,
        sample=int(sample),
    )


class JudgeError(Exception):
    """A request the host could not answer (an endpoint error, a timeout, a
    spent budget, a miss in a replayed session, an answer that does not
    match the schema). Never guess an answer in its place."""


def complete(requests):
    """Ask the host for completions; it runs them at once. Returns one item
    per request, in order: an answer (`.text`, with a schema the checked
    JSON document; `.model`, what the provider says answered; `.call`, the
    call's id in the report) or a `JudgeError`. Since vcc:validator@0.1.4."""
    out = []
    for result in judge.complete(list(requests)):
        if isinstance(result, Ok):
            out.append(result.value)
        else:
            out.append(JudgeError(str(result.value)))
    return out


def relative(path):
    """A guest path made relative to the deliverable root, for messages."""
    if path == MOUNT:
        return ""
    if path.startswith(MOUNT + "/"):
        return path[len(MOUNT) + 1 :]
    return path


def export(cls):
    """Adapt a `Validator` subclass to the component's exported interfaces.

    Assign the result to a module-level `Validator` in the app module:
    componentize-py exports that class. The `params` interface (check-params)
    is exported too: this puts its class, `Params`, into the same module, so
    an app does not have to name it.
    """
    instance = cls()

    class ExportedParams(exports.Params):
        def check_params(self, params):
            try:
                found = instance.check_params(json.loads(params or "{}"))
            except Exception as exc:
                found = [Finding(f"{type(exc).__name__}: {exc}")]
            if found:
                raise Err(list(found))

    module = sys.modules.get(cls.__module__)
    if module is not None and not hasattr(module, "Params"):
        module.Params = ExportedParams

    class Exported(exports.Validator):
        def describe(self):
            return types.Description(
                name=instance.name,
                version=instance.version,
                summary=instance.summary,
                params_schema=json.dumps(instance.params),
            )

        def validate(self, criterion):
            try:
                outcome = instance.validate(Criterion(criterion))
            except Err:
                raise
            except InvalidParams as exc:
                raise Err(f"{INVALID_PARAMS} {exc}") from None
            except Exception as exc:  # the validator cannot work: an error, never a pass
                raise Err(f"{type(exc).__name__}: {exc}") from None
            if not isinstance(outcome, types.Outcome):
                raise Err(f"validate() returned {type(outcome).__name__}, not an outcome (use passed/failed/skipped)")
            return outcome

    Exported.__name__ = cls.__name__
    return Exported
