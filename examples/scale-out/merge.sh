#!/usr/bin/env bash
# Merge every shard report in a folder and apply the termination law once.
#
#   merge.sh SHARDS_DIR [vcc merge options…]
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
