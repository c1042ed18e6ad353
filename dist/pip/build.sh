#!/usr/bin/env bash
# One wheel per target with maturin (`bindings = "bin"`: the vcc binary as
# the wheel's script), into --out. Linux targets are built with Zig
# (`--zig`, the static musl binary of dist/build.sh) and tagged manylinux
# and musllinux both: a static binary runs on either C library.
#   dist/pip/build.sh --out DIR TARGET...
set -euo pipefail
cd "$(dirname "$0")"
out=""
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ -n "$out" ] && [ ${#targets[@]} -gt 0 ] || { echo "usage: dist/pip/build.sh --out DIR TARGET..." >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
export PATH="$tools/dist-py/bin:$tools/cargo-zigbuild/bin:$PATH"
# The same build as the archives (dist/build.sh): cargo reuses it.
export CARGO_TARGET_DIR="${VCC_DIST_TARGET_DIR:-$HOME/.cache/vcc-dist/target}"
export CARGO_INCREMENTAL=0
for target in "${targets[@]}"; do
    case "$target" in
        *-linux-musl) maturin build --locked --profile dist --target "$target" --zig \
            --compatibility manylinux2014 --compatibility musllinux_1_2 --out "$out" ;;
        *) maturin build --locked --profile dist --target "$target" --out "$out" ;;
    esac
done
ls "$out"/*.whl
