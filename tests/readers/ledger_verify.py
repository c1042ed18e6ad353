#!/usr/bin/env python3
"""Check a vcc verdict log, its checkpoints, and a receipt or a
consistency proof with code that is not vcc's: RFC 6962 hashing
(hashlib), the C2SP signed-note and tlog-checkpoint formats, and Ed25519
from PyPI `cryptography`, each written here from the specifications.

    ledger_verify.py LEDGER PUBLIC_KEY.pem [RECEIPT_OR_PROOF.json [KEPT]]

Prints JSON: the entries, the root computed here, whether every
checkpoint's root is the root of its prefix and is signed by the key, how
many entries no signed checkpoint covers, and whether the receipt proves
its entry or the consistency proof (RFC 9162 section 2.1.4.2) proves the
later checkpoint extends the earlier one (with KEPT: the checkpoint note
kept elsewhere, which the earlier one must be).
"""
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def mth(leaves):
    """RFC 6962 section 2.1: the Merkle Tree Hash."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return leaves[0]
    k = 1
    while k * 2 < n:
        k *= 2
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def verify_inclusion(leaf, index, size, path, root):
    """RFC 9162 section 2.1.3.2."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(first, second, first_root, second_root, proof):
    """RFC 9162 section 2.1.4.2 (the empty tree is a prefix of any tree)."""
    if first > second:
        return False
    if first == 0:
        return proof == []
    if first == second:
        return proof == [] and first_root == second_root
    if first & (first - 1) == 0:  # an exact power of 2
        proof = [first_root] + proof
    if not proof:
        return False
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == first_root and sr == second_root


def note_verifies(text, key):
    """C2SP signed-note: body, blank line, '— NAME base64(keyhash4 || sig)'."""
    body, _, sigs = text.partition("\n\n")
    body = (body + "\n").encode()
    raw = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    for line in sigs.splitlines():
        if not line.startswith("\u2014 "):
            return False, None
        name, sig = line[2:].rsplit(" ", 1)
        blob = base64.b64decode(sig)
        want = hashlib.sha256(name.encode() + b"\n" + b"\x01" + raw).digest()[:4]
        if blob[:4] != want:
            continue
        try:
            key.verify(blob[4:], body)
            return True, body.decode()
        except InvalidSignature:
            return False, body.decode()
    return False, body.decode()


def checkpoint(body):
    origin, size, root = body.split("\n")[:3]
    return origin, int(size), base64.b64decode(root)


ledger, pem = sys.argv[1], sys.argv[2]
key = load_pem_public_key(open(pem, "rb").read())
data = open(ledger, "rb").read()
lines = data.split(b"\n")
torn = lines.pop()  # what follows the last newline: a torn tail, or b""
leaves = [leaf_hash(l) for l in lines]
out = {"entries": len(lines), "torn_tail": len(torn), "root": base64.b64encode(mth(leaves)).decode()}

checks = []
try:
    stored = open(ledger + ".checkpoints", "rb").read().splitlines()
except FileNotFoundError:
    stored = []
covered = 0
for raw in stored:
    cp = json.loads(raw)
    ok, body = note_verifies(cp["note"], key)
    origin, size, root = checkpoint(body)
    matches = size <= len(leaves) and mth(leaves[:size]) == root
    if ok and matches:
        covered = max(covered, size)
    checks.append({"size": size, "signed": ok, "root_matches": matches})
out["checkpoints"] = checks
out["uncovered"] = len(leaves) - covered

if len(sys.argv) > 3:
    r = json.load(open(sys.argv[3]))
    if "vcc_consistency" in r:
        ok_old, old_body = note_verifies(r["old_checkpoint"], key)
        ok_new, new_body = note_verifies(r["new_checkpoint"], key)
        old, new = checkpoint(old_body), checkpoint(new_body)
        proof = [base64.b64decode(h) for h in r["proof"]]
        same_log = old[1] == 0 or old[0] == new[0]
        proven = ok_old and ok_new and same_log and verify_consistency(old[1], new[1], old[2], new[2], proof)
        result = {"signed": ok_old and ok_new, "proven": proven, "old_size": old[1], "new_size": new[1]}
        if len(sys.argv) > 4:
            ok_kept, kept_body = note_verifies(open(sys.argv[4]).read(), key)
            result["from_kept"] = ok_kept and checkpoint(kept_body) == old
            result["proven"] = proven and result["from_kept"]
        out["consistency"] = result
    else:
        ok, body = note_verifies(r["checkpoint"], key)
        origin, size, root = checkpoint(body)
        path = [base64.b64decode(h) for h in r["inclusion"]]
        proven = ok and size == r["tree_size"] and verify_inclusion(
            leaf_hash(r["entry"].encode()), r["index"], size, path, root)
        out["receipt"] = {"signed": ok, "proven": proven, "index": r["index"], "seq": json.loads(r["entry"])["seq"]}

print(json.dumps(out))
