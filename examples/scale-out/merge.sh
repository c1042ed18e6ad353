#!/usr/bin/env bash
# Merge every shard report in a folder and apply the termination law once.
#
#   merge.sh SHARDS_DIR --contract CONTRACT [--dir ROOT] [vcc merge options…]
#
# Run it in a checkout of the commit under test: `--contract` makes the
# merge read the contract and walk the deliverables as `vcc check` does,
# and refuse shards of another contract, tree, trust policy or vcc. The
# shards must be signed by a key the trust policy names (`attestations:`);
# keep that policy outside the checkout (--trust FILE or $VCC_TRUST).
#
# Exits like `vcc check`: 0 accepted, 1 not (a missing shard is withheld),
# 2 the shards cannot be merged.
set -uo pipefail
dir="$1"
shift
shopt -s nullglob
shards=("$dir"/shard-*.json)
if [ "${#shards[@]}" -eq 0 ]; then
    echo "merge.sh: no shard-*.json in $dir" >&2
    exit 2
fi
exec "${VCC:-vcc}" merge "${shards[@]}" "$@"
