"""Verify one DSSE envelope over a file with code that is not vcc's
(securesystemslib: DSSE, Ed25519 through `cryptography`):

    verify_envelope.py ENVELOPE.json PUBLIC_KEY.pem KEYID FILE PAYLOAD_TYPE

Exit 0 when the envelope is signed by the key, has the payload type, and
its payload is FILE's exact bytes. Prints what it checked.
"""

import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives.serialization import load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey

envelope_path, pem, keyid, file, payload_type = sys.argv[1:6]
key = SSlibKey.from_crypto(load_pem_public_key(Path(pem).read_bytes()), keyid=keyid)
envelope = Envelope.from_dict(json.loads(Path(envelope_path).read_text()))
try:
    envelope.verify([key], 1)
except Exception as e:
    print(f"not verified by {keyid}: {e}")
    sys.exit(1)
if envelope.payload_type != payload_type:
    print(f"payload type {envelope.payload_type}, not {payload_type}")
    sys.exit(1)
if envelope.payload != Path(file).read_bytes():
    print("the payload is not the file's bytes")
    sys.exit(1)
print(json.dumps({"verified": envelope_path, "payloadType": envelope.payload_type, "bytes": len(envelope.payload)}))
