#!/usr/bin/env bash
# Install the tools `vcc validator build` uses for Python, JavaScript, C
# and Zig validators, pinned, into one folder that vcc looks in:
#   $VCC_TOOLS_DIR, else $XDG_CACHE_HOME/vcc-tools, else ~/.cache/vcc-tools
#
#   py/      a virtualenv with componentize-py
#   js/      node_modules with @bytecodealliance/componentize-js
#   zig-py/  a virtualenv with PyPI's ziglang (Zig and its bundled clang,
#            run as `python-zig`): C (`zig cc`) and Zig validators
#
# Needs python3 (with venv) and node/npm. Safe to run again: what is
# installed at the pinned version is kept. Rust validators need only
# `rustup target add wasm32-wasip2` (also done here if rustup exists).
set -euo pipefail

COMPONENTIZE_PY=0.25.1
COMPONENTIZE_JS=0.23.0
# The same pin as dist/tools.sh (the release's cross-compiler).
ZIGLANG=0.17.1

tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
mkdir -p "$tools"

if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-wasip2; then
    rustup target add wasm32-wasip2
fi

py="$tools/py"
if [ "$("$py/bin/componentize-py" --version 2>/dev/null || true)" != "componentize-py $COMPONENTIZE_PY" ]; then
    echo "installing componentize-py $COMPONENTIZE_PY into $py" >&2
    rm -rf "$py"
    python3 -m venv "$py"
    "$py/bin/pip" install --quiet --disable-pip-version-check "componentize-py==$COMPONENTIZE_PY"
fi

js="$tools/js"
installed=$(node -p "try { require('$js/node_modules/@bytecodealliance/componentize-js/package.json').version } catch { '' }" 2>/dev/null || true)
if [ "$installed" != "$COMPONENTIZE_JS" ]; then
    echo "installing @bytecodealliance/componentize-js $COMPONENTIZE_JS into $js" >&2
    mkdir -p "$js"
    [ -f "$js/package.json" ] || echo '{ "name": "vcc-tools", "private": true }' > "$js/package.json"
    npm install --prefix "$js" --no-audit --no-fund --loglevel=error "@bytecodealliance/componentize-js@$COMPONENTIZE_JS"
fi

zig="$tools/zig-py"
if [ "$("$zig/bin/python-zig" version 2>/dev/null || true)" != "$ZIGLANG" ]; then
    echo "installing ziglang $ZIGLANG into $zig" >&2
    rm -rf "$zig"
    python3 -m venv "$zig"
    "$zig/bin/pip" install --quiet --disable-pip-version-check "ziglang==$ZIGLANG"
fi

echo "validator tools ready in $tools" >&2
