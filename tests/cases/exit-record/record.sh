#!/usr/bin/env bash
# Regenerate the committed command records of these cases with the real
# `vcc record` (records hold timestamps, absolute paths and digests, so they
# are made, never written by hand). Usage: bash record.sh PATH/TO/vcc
set -euo pipefail
vcc="$(realpath "${1:?give the path of a built vcc binary}")"
cd "$(dirname "$0")"
(cd pass-recorded-command && rm -f out/tests.json* && "$vcc" record --inputs src --out out/tests.json -- sh -c 'echo "test result: ok. 12 passed"')
(cd fail-exit-code-and-command && rm -f out/tests.json* && "$vcc" record --out out/tests.json -- sh -c 'echo "test result: FAILED. 1 failed"; exit 101') || true
