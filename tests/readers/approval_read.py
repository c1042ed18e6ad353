#!/usr/bin/env python3
"""Check a vcc approval (`vcc approve`) with code that is not vcc's: the
DSSE envelope verified with securesystemslib (Ed25519 through
`cryptography`), the in-toto Statement v1 validated by the in-toto
project's bindings (PyPI `in-toto-attestation`), and its subjects and
predicate printed for the test to compare with what vcc computed.

    approval_read.py ENVELOPE PUBLIC_KEY.pem KEYID

Prints one JSON object.
"""
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from google.protobuf import json_format
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

path, pem, keyid = sys.argv[1], sys.argv[2], sys.argv[3]
key = SSlibKey.from_crypto(load_pem_public_key(Path(pem).read_bytes()), keyid=keyid)
envelope = Envelope.from_dict(json.loads(Path(path).read_text()))
envelope.verify([key], 1)  # raises when not signed by the key
assert envelope.payload_type == "application/vnd.in-toto+json", envelope.payload_type
doc = json.loads(envelope.payload)
stmt = Statement.copy_from_pb(json_format.ParseDict(doc, statement_pb2.Statement()))
stmt.validate()
print(json.dumps({
    "predicateType": doc["predicateType"],
    "subjects": {s["name"]: s["digest"] for s in doc["subject"]},
    "predicate": doc["predicate"],
}))
