"""Verify a vcc bundle's signatures with code that is not vcc's.

Reads the OCI image layout with the standard library, and each DSSE
envelope with securesystemslib (DSSE, Ed25519 through `cryptography`):

    verify_dsse.py LAYOUT PUBLIC_KEY.pem KEYID

Exit 0 when an envelope signed by the key verifies, its payload is an
in-toto Statement v1, and its subjects name the bundle manifest and every
layer by the sha256 of the bytes in the layout. Prints what it checked.
"""

import hashlib
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey


def blob(layout: Path, digest: str) -> bytes:
    algorithm, hex_ = digest.split(":", 1)
    assert algorithm == "sha256", digest
    data = (layout / "blobs" / "sha256" / hex_).read_bytes()
    assert hashlib.sha256(data).hexdigest() == hex_, f"{digest} does not match its bytes"
    return data


def main() -> int:
    layout, pem, keyid = Path(sys.argv[1]), Path(sys.argv[2]).read_bytes(), sys.argv[3]
    key = SSlibKey.from_crypto(load_pem_public_key(pem), keyid=keyid)
    index = json.loads((layout / "index.json").read_text())
    manifests = {m["digest"]: json.loads(blob(layout, m["digest"])) for m in index["manifests"]}
    bundles = [d for d, m in manifests.items() if m.get("artifactType") == "application/vnd.vcc.bundle.v1"]
    assert len(bundles) == 1, f"expected one bundle, found {bundles}"
    bundle = bundles[0]
    expected = {bundle.split(":", 1)[1]} | {
        layer["digest"].split(":", 1)[1] for layer in manifests[bundle]["layers"]
    }
    verified = 0
    for digest, m in manifests.items():
        if m.get("subject", {}).get("digest") != bundle:
            continue
        for layer in m["layers"]:
            if layer["mediaType"] != "application/vnd.dsse.envelope.v1+json":
                continue
            envelope = Envelope.from_dict(json.loads(blob(layout, layer["digest"])))
            try:
                envelope.verify([key], 1)
            except Exception as e:  # VerificationError: another signer, or a bad signature
                print(f"{digest}: not verified by {keyid}: {e}")
                continue
            assert envelope.payload_type == "application/vnd.in-toto+json", envelope.payload_type
            statement = json.loads(envelope.payload)
            assert statement["_type"] == "https://in-toto.io/Statement/v1", statement["_type"]
            subjects = {s["digest"]["sha256"] for s in statement["subject"]}
            assert expected <= subjects, f"unsigned: {expected - subjects}"
            print(json.dumps({"verified": digest, "predicateType": statement["predicateType"],
                              "name": statement["predicate"]["name"],
                              "version": statement["predicate"]["version"],
                              "subjects": len(subjects)}))
            verified += 1
    return 0 if verified else 1


if __name__ == "__main__":
    sys.exit(main())
