#!/usr/bin/env bash
# Regenerate the committed fuzz seeds that only a real vcc can write: a
# signed bundle's OCI layout (index, manifest, config), the DSSE envelopes
# of a bundle signature, an approval and a signed record, a trust policy,
# a vcc.lock and a command record. Seeds hold keys, digests and times, so
# they are made, never written by hand.
#
#   bash tests/fuzz/seeds/make.sh PATH/TO/vcc PATH/TO/any-validator.wasm
set -euo pipefail
vcc="$(realpath "${1:?give the path of a built vcc binary}")"
wasm="$(realpath "${2:?give a validator component (.wasm)}")"
seeds="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$seeds/../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
export VCC_CACHE_DIR="$work/cache" VCC_STORE_DIR="$work/store" HOME="$work/home"
mkdir -p keys bundle service "$HOME"
(cd keys && "$vcc" key generate platform >/dev/null && "$vcc" key generate ci >/dev/null)
cp "$wasm" bundle/check.wasm
cat > bundle/baseline.yaml <<'YAML'
vcc: 1
id: baseline
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  check: { component: std/file-exists }
criteria:
  - { id: notes-written, severity: must, validator: check, targets: [notes] }
YAML
cat > bundle/vcc-bundle.yaml <<'YAML'
name: acme/security
version: 1.0.0
description: fuzz seed
validators:
  check: check.wasm
contracts:
  baseline: baseline.yaml
YAML
"$vcc" bundle build bundle/vcc-bundle.yaml --out layout >/dev/null
"$vcc" bundle sign layout --key keys/platform.key >/dev/null
cat > trust.yaml <<YAML
trust: 1
keys:
  - id: platform
    public_key: |
$(sed 's/^/      /' keys/platform.pub)
  - id: ci
    public_key: |
$(sed 's/^/      /' keys/ci.pub)
bundles:
  - { name: "acme/*", signers: [platform], threshold: 1, min_version: 1.0.0 }
require_signed: true
records: { signers: [ci], threshold: 1 }
attestations: { signers: [ci] }
roles: { Reviewer: [ci] }
YAML
"$vcc" bundle pull layout --trust trust.yaml >/dev/null

# oci: index 0xFF bundle manifest 0xFF config (the reader splits at 0xFF).
mkdir -p "$seeds/oci" "$seeds/dsse" "$seeds/policy" "$seeds/lock" "$seeds/record"
python3 - "$work/layout" "$seeds" <<'PY'
import json, pathlib, sys
layout, seeds = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
index = (layout / "index.json").read_bytes()
blob = lambda d: (layout / "blobs/sha256" / d.split(":")[1]).read_bytes()
for i, m in enumerate(json.loads(index)["manifests"]):
    manifest = blob(m["digest"])
    config = blob(json.loads(manifest)["config"]["digest"])
    (seeds / "oci" / f"layout-{i}").write_bytes(index + b"\xff" + manifest + b"\xff" + config)
    for layer in json.loads(manifest)["layers"]:
        if layer["mediaType"].endswith("dsse+json") or "dsse" in layer["mediaType"]:
            (seeds / "dsse" / "bundle-signature.json").write_bytes(blob(layer["digest"]))
PY
cp trust.yaml "$seeds/policy/trust.yaml"

cd service
cp ../bundle/baseline.yaml contract.yaml
sed -i 's/^id: baseline/id: service\nextends: { bundle: acme\/security, contract: baseline, version: "^1.0" }/' contract.yaml
echo "notes" > NOTES.md
"$vcc" lock contract.yaml --trust ../trust.yaml >/dev/null
cp vcc.lock "$seeds/lock/vcc.lock"
mkdir -p src && echo 'fn main() {}' > src/main.rs
"$vcc" record --inputs src --key ../keys/ci.key --out test.record.json -- sh -c 'echo ok' >/dev/null
cp test.record.json "$seeds/record/test.record.json"
cp test.record.json.dsse.json "$seeds/dsse/record-signature.json"

# An approval of the published software example's review gate.
cd "$work"
cp -r "$repo/contracts/examples/vcc-v1/software" example
"$vcc" approve --key keys/ci.key --contract example/contract.yml --gate GATE-REVIEW --score 5 \
    --trust trust.yaml --out "$seeds/dsse/approval.json" >/dev/null
echo "seeds written under $seeds"
