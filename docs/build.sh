#!/usr/bin/env bash
# Build the book into docs/book/ with mdBook, installing the pinned mdBook
# (from crates.io, with its Cargo.lock) into $VCC_TOOLS_DIR/mdbook first
# when it is missing. A page missing from src/ or a bad {{#include}} fails
# the build; links between files are checked by tests/e2e/book.rs.
#
#   bash docs/build.sh            # build
#   bash docs/build.sh serve      # build, serve on localhost:3000 and rebuild on change
set -euo pipefail
MDBOOK_VERSION=0.5.4
here="$(cd "$(dirname "$0")" && pwd)"
tools="${VCC_TOOLS_DIR:-$HOME/.cache/vcc-tools}/mdbook"
mdbook="$tools/bin/mdbook"
if ! "$mdbook" --version 2>/dev/null | grep -q "v$MDBOOK_VERSION"; then
    # Its own target folder: never the workspace's (or CI's) build.
    # Not under CI's clippy wrapper: mdBook is not ours to lint.
    env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS CARGO_TARGET_DIR="$tools/target" \
        cargo install mdbook --version "$MDBOOK_VERSION" \
        --locked --root "$tools"
    rm -rf "$tools/target"
fi
"$mdbook" "${1:-build}" "$here"
