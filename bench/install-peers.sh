#!/usr/bin/env bash
# The pinned peers bench/run.py compares vcc with, into ~/.cache/vcc-bench
# (or $VCC_BENCH_PEERS). Idempotent; takes a few minutes the first time.
# opa/conftest cannot be installed here: regorus (a Rego engine) stands in.
# hyperfine 2.0 needs rustc 1.97, so run.py times runs itself (interleaved,
# median, peak RSS from wait4).
set -euo pipefail
dir="${VCC_BENCH_PEERS:-$HOME/.cache/vcc-bench}"
mkdir -p "$dir"
cd "$dir"
[ -x venv/bin/check-jsonschema ] || {
    python3 -m venv venv
    venv/bin/pip install -q check-jsonschema==0.39.0
}
[ -x npm/node_modules/.bin/ajv ] || npm install --silent --prefix npm ajv-cli@5.0.0 ajv-formats@3.0.1
[ -x cargo/bin/b3sum ] || cargo install b3sum --version 1.8.7 --locked --root cargo
[ -x cargo/bin/regorus ] || cargo install regorus --version 0.14.1 --example regorus --locked --root cargo
# `wasmtime run` of a precompiled component: the W3/W4 start-up peer (~10 min build).
[ -x cargo/bin/wasmtime ] || cargo install wasmtime-cli --version 48.0.8 --locked --root cargo
echo "peers ready in $dir"
