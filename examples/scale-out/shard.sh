#!/usr/bin/env bash
# One shard of a scaled-out check: judges share K of N of the contract's
# rows and writes the shard report (signed when VCC_SHARD_KEY names a key).
#
#   shard.sh CONTRACT OUT_DIR [ROOT]
#
# K comes from the engine running it: $VCC_SHARD_INDEX (0-based, e.g. a
# GitHub Actions matrix value) or $JOB_COMPLETION_INDEX (a Kubernetes
# Indexed Job); N from $VCC_SHARDS. Set $VCC_TRUST to the trust policy the
# merge will use: the merge refuses shards checked under another one.
# Exit 0 or 1: a shard report was written (merge decides); exit 2: this
# shard could not judge its rows.
set -uo pipefail
contract="$1"
out="$2"
root="${3:-}"
index="${VCC_SHARD_INDEX:-${JOB_COMPLETION_INDEX:-}}"
total="${VCC_SHARDS:?set VCC_SHARDS to the number of shards}"
if [ -z "$index" ]; then
    echo "shard.sh: set VCC_SHARD_INDEX (0-based) or JOB_COMPLETION_INDEX" >&2
    exit 2
fi
k=$((index + 1))
mkdir -p "$out"
args=(check "$contract" --partition "hash:$k/$total" --report "$out/shard-$k.json" --format json)
if [ -n "$root" ]; then args+=(--dir "$root"); fi
if [ -n "${VCC_SHARD_KEY:-}" ]; then args+=(--key "$VCC_SHARD_KEY"); fi
"${VCC:-vcc}" "${args[@]}" >/dev/null
code=$?
# 0 and 1 are verdicts about this shard's rows; only 2 fails the job.
if [ "$code" -eq 2 ]; then exit 2; fi
exit 0
