"""The SDK conformance validator in Python (spec: sdk/conformance/README.md)."""

import json

import vcc_sdk


class Conformance(vcc_sdk.Validator):
    name = "conformance"
    summary = "counts lines containing a word (the SDK conformance validator)"
    params = {
        "type": "object",
        "additionalProperties": False,
        "required": ["word"],
        "properties": {
            "word": {"type": "string", "minLength": 1},
            "max": {"type": "integer", "minimum": 0, "default": 0},
            "mode": {"enum": ["check", "skip", "error", "params-error", "judge", "signatures"], "default": "check"},
        },
    }

    def check_params(self, params):
        if any(c.isspace() for c in params.get("word", "")):
            return [vcc_sdk.Finding("word must be one word", path="/word")]
        return []

    def validate(self, criterion):
        word = criterion.param("word")
        mode = criterion.param("mode", "check")
        if mode == "skip":
            return vcc_sdk.skipped("asked to skip")
        if mode == "error":
            raise RuntimeError("asked to fail")
        if mode == "params-error":
            raise vcc_sdk.invalid_params("asked to blame the params")
        if mode == "judge":
            return judged(criterion, word)
        if mode == "signatures":
            return signed(criterion)
        counts = {}
        findings = []
        for path in criterion.paths:
            n = 0
            for i, line in enumerate(vcc_sdk.read_text(path).split("\n"), 1):
                if word in line:
                    n += 1
                    findings.append(vcc_sdk.Finding(f"found {word}", path=path, line=i, rule="word"))
            counts[vcc_sdk.relative(path)] = n
        total = sum(counts.values())
        summary = f"{total} occurrence(s) of {word}"
        evidence = [vcc_sdk.Evidence("counts.json", "application/json",
                                     json.dumps(counts, sort_keys=True, separators=(",", ":")))]
        if total > criterion.param("max", 0):
            return vcc_sdk.failed(summary, findings, evidence)
        return vcc_sdk.passed(summary, findings, evidence)


def signed(criterion):
    signers = {}
    findings = []
    for path in criterion.paths:
        check = vcc_sdk.signatures(path)
        if not check.signers:
            code = check.problems[0].code if check.problems else "none"
            findings.append(vcc_sdk.Finding(f"not signed: {code}", path=path, rule="signature"))
        signers[vcc_sdk.relative(path)] = list(check.signers)
    total = len(criterion.paths)
    summary = f"{total - len(findings)} of {total} file(s) signed"
    evidence = [vcc_sdk.Evidence("signers.json", "application/json",
                                 json.dumps(signers, sort_keys=True, separators=(",", ":")))]
    if findings:
        return vcc_sdk.failed(summary, findings, evidence)
    return vcc_sdk.passed(summary, findings, evidence)


SCORE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["score"],
    "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 5}},
}


def judged(criterion, word):
    if not vcc_sdk.judges():
        raise RuntimeError("no judge granted")
    asks = [
        vcc_sdk.JudgeRequest(
            f"Rate the document for the word {word} from 1 to 5.",
            system="You rate documents.",
            files=[vcc_sdk.stat(path).digest],
            schema=SCORE,
            sample=sample,
        )
        for path in criterion.paths
        for sample in (0, 1)
    ]
    answers = vcc_sdk.complete(asks)
    for answer in answers:
        if isinstance(answer, vcc_sdk.JudgeError):
            raise RuntimeError(f"judge: {answer}")
    scores = [json.loads(a.text)["score"] for a in answers]
    paths = [path for path in criterion.paths for _ in (0, 1)]
    findings = [vcc_sdk.Finding(f"score {s}", path=p, rule="judge")
                for s, p in zip(scores, paths) if s < 3]
    evidence = [vcc_sdk.Evidence("calls.json", "application/json",
                                 json.dumps([a.call for a in answers], separators=(",", ":")))]
    summary = "scores " + ",".join(str(s) for s in scores)
    if findings:
        return vcc_sdk.failed(summary, findings, evidence)
    return vcc_sdk.passed(summary, findings, evidence)


Validator = vcc_sdk.export(Conformance)
