#!/usr/bin/env python3
"""Check a vcc attestation file (.intoto.jsonl) with code that is not
vcc's: each line's DSSE envelope verified with securesystemslib (Ed25519
through `cryptography`), its in-toto Statement validated by the in-toto
project's own bindings (PyPI `in-toto-attestation`), its predicate parsed
strictly into the official SLSA VSA v1 or test-result v0.1 protobuf (an
unknown or mistyped field fails), and every subject's sha256 recomputed
from the files (hashlib).

    attest_read.py FILE PUBLIC_KEY.pem KEYID ROOT

Prints one JSON object per envelope.
"""
import hashlib
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from google.protobuf import json_format
from in_toto_attestation.predicates.test_result.v0 import test_result_pb2
from in_toto_attestation.predicates.vsa.v1 import vsa_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

path, pem, keyid, root = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
key = SSlibKey.from_crypto(load_pem_public_key(Path(pem).read_bytes()), keyid=keyid)
PREDICATES = {
    "https://slsa.dev/verification_summary/v1": vsa_pb2.VerificationSummary,
    "https://in-toto.io/attestation/test-result/v0.1": test_result_pb2.TestResult,
}
out = []
for line in Path(path).read_text().splitlines():
    envelope = Envelope.from_dict(json.loads(line))
    envelope.verify([key], 1)  # raises when not signed by the key
    assert envelope.payload_type == "application/vnd.in-toto+json", envelope.payload_type
    doc = json.loads(envelope.payload)
    stmt = Statement.copy_from_pb(json_format.ParseDict(doc, statement_pb2.Statement()))
    stmt.validate()
    fields = dict(doc["predicate"])
    if "verifier" in fields:
        # SLSA VSA v1.0 defines verifier.version (a map of component to
        # version); the in-toto-attestation 0.9.3 proto has only `id`, so
        # the version is checked here and the rest parsed strictly.
        verifier = dict(fields["verifier"])
        version = verifier.pop("version", {})
        assert isinstance(version, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in version.items()), version
        fields["verifier"] = verifier
    levels = fields.pop("verifiedLevels", None)
    if doc["predicateType"].startswith("https://slsa.dev/verification_summary/"):
        # SLSA VSA v1.0 makes verifiedLevels an array of strings; the 0.9.3
        # proto has one string. Checked here, per the SLSA spec: levels that
        # are not SLSA's own must not start with SLSA_.
        assert isinstance(levels, list) and all(isinstance(l, str) for l in levels), levels
        assert not any(l.startswith("SLSA_") for l in levels), levels
    predicate = json_format.ParseDict(fields, PREDICATES[doc["predicateType"]]())
    mismatched = [
        s["name"] for s in doc["subject"]
        if hashlib.sha256((root / s["name"]).read_bytes()).hexdigest() != s["digest"]["sha256"]
    ]
    summary = json_format.MessageToDict(predicate)
    out.append({
        "predicateType": doc["predicateType"],
        "subjects": len(doc["subject"]),
        "mismatched": mismatched,
        "result": summary.get("verificationResult") or summary.get("result"),
        "verifiedLevels": levels or None,
        "policy": summary.get("policy", {}).get("digest"),
        "failedTests": summary.get("failedTests"),
    })
print(json.dumps(out))
