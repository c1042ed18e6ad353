#!/usr/bin/env bash
# Test the release artifacts as a user gets them (dist/build.sh made them):
#   1. install.sh against a loopback HTTP server serving the release: it
#      installs, and the installed vcc runs the README's thirty-second
#      example (accepted, then rejected) — timed, from a scratch folder;
#   2. install.sh refuses a corrupted archive and installs nothing;
#   3. the aarch64 binary runs the example under qemu-user (Debian's
#      qemu-user-static), when its archive is there;
#   4. the wheel (dist/pip/wheel.py) installs into a fresh venv with no
#      index and runs the example;
#   5. the npm packages (dist/npm/build.sh) install into a scratch prefix
#      from the local tarballs and run the example;
#   6. the container image (dist/container/build.py) is pushed to a
#      loopback registry (docker-registry), pulled back with skopeo, and
#      run with podman with the deliverables mounted read-only.
# --smoke (what .ci/run runs, on archives dist/build.sh --binary made of
# the binary its tests built) does 1, 2, 4 and 5 for this machine's
# architecture, and does not ask the binary to be static.
#   dist/test.sh [--smoke] [--out DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
out=dist/out
smoke=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --smoke) smoke=1; shift ;;
        *) echo "dist/test.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
out=$(cd "$out" && pwd)
tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
host=$(uname -m)-unknown-linux-musl
scratch=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$scratch"
}
trap cleanup EXIT
failures=0
pass() { printf 'ok   %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*"; failures=$((failures + 1)); }
skip() { printf 'SKIP %s\n' "$*"; }

# The README's "In thirty seconds" example, run with VCC from a fresh folder:
# rejected (exit 1) with no Usage section, accepted (exit 0) with one.
example() {
    local name="$1"; shift
    local dir="$scratch/example-$name"
    mkdir -p "$dir"
    printf '# Notes\n' > "$dir/NOTES.md"
    cat > "$dir/vcc.yaml" <<'YAML'
vcc: 1
id: notes
deliverables:
  - { id: notes, path: NOTES.md }
validators:
  sections: { component: std/markdown-sections }
criteria:
  - { id: USAGE, severity: must, validator: sections, targets: [notes], params: { required: [Usage] } }
YAML
    local code=0
    (cd "$dir" && "$@" check vcc.yaml --color never > "$dir/first.txt" 2>&1) || code=$?
    if [ "$code" -ne 1 ]; then fail "$name: the example without Usage exited $code, not 1"; cat "$dir/first.txt"; return 1; fi
    printf '# Notes\n\n## Usage\n\nRun it.\n' > "$dir/NOTES.md"
    code=0
    (cd "$dir" && "$@" check vcc.yaml --color never > "$dir/second.txt" 2>&1) || code=$?
    if [ "$code" -ne 0 ]; then fail "$name: the example with Usage exited $code, not 0"; cat "$dir/second.txt"; return 1; fi
    grep -q "verdict: ACCEPTED" "$dir/second.txt" || { fail "$name: no 'verdict: ACCEPTED' in the report"; cat "$dir/second.txt"; return 1; }
    pass "$name: the README example is rejected, then accepted"
}

serve() {
    local port
    exec {fd}< <(python3 "$repo/dist/serve.py" "$1")
    pids+=($!)
    read -r port <&"$fd"
    echo "$port"
}

# 1. install.sh from a loopback release.
archive="vcc-$version-$host.tar.gz"
[ -f "$out/$archive" ] || { echo "dist/test.sh: no $out/$archive (run dist/build.sh first)" >&2; exit 1; }
mkdir -p "$scratch/release/v$version"
cp "$out"/*.tar.gz "$out/SHA256SUMS" "$scratch/release/v$version/"
port=$(serve "$scratch/release")
start=$(date +%s%N)
if sh dist/install.sh --version "$version" --base-url "http://127.0.0.1:$port/v$version" --to "$scratch/bin" > "$scratch/install.txt" 2>&1; then
    if example "install.sh" "$scratch/bin/vcc"; then
        ms=$((($(date +%s%N) - start) / 1000000))
        pass "install.sh then both checks: $ms ms (limit 10 s)"
        [ "$ms" -lt 10000 ] || fail "install.sh then the example took $ms ms, over 10 s"
    fi
    if [ "$smoke" -eq 1 ]; then
        skip "the installed binary is static (--smoke: the test build's binary)"
    else
        # ldd exits 1 on a static binary: read its words, not its status.
        linked=$(ldd "$scratch/bin/vcc" 2>&1 || true)
        case "$linked" in
            *"not a dynamic executable"* | *"statically linked"*) pass "the installed binary is static" ;;
            *) fail "the installed binary is dynamically linked: $(printf '%s' "$linked" | head -n3)" ;;
        esac
    fi
else
    fail "install.sh failed: $(cat "$scratch/install.txt")"
fi

# 2. A corrupted archive is refused and nothing is installed.
mkdir -p "$scratch/bad/v$version"
cp "$out/SHA256SUMS" "$scratch/bad/v$version/"
cp "$out/$archive" "$scratch/bad/v$version/"
printf 'X' | dd of="$scratch/bad/v$version/$archive" bs=1 seek=1000 conv=notrunc status=none
badport=$(serve "$scratch/bad")
code=0
sh dist/install.sh --version "$version" --base-url "http://127.0.0.1:$badport/v$version" --to "$scratch/badbin" > "$scratch/bad.txt" 2>&1 || code=$?
if [ "$code" -ne 0 ] && grep -q "checksum mismatch for $archive" "$scratch/bad.txt" && [ ! -e "$scratch/badbin/vcc" ]; then
    pass "install.sh refuses a corrupted archive: $(tail -n1 "$scratch/bad.txt")"
else
    fail "install.sh and a corrupted archive: exit $code, $(cat "$scratch/bad.txt"), installed: $(ls "$scratch/badbin" 2>&1)"
fi

# 2b. A folder where the binary would go is refused (mv would put the
# binary inside it, and an older vcc on PATH would answer instead).
mkdir -p "$scratch/dirbin/vcc"
code=0
sh dist/install.sh --version "$version" --base-url "http://127.0.0.1:$port/v$version" --to "$scratch/dirbin" > "$scratch/dir.txt" 2>&1 || code=$?
if [ "$code" -ne 0 ] && grep -q "dirbin/vcc is a folder" "$scratch/dir.txt" && [ -z "$(ls -A "$scratch/dirbin/vcc")" ]; then
    pass "install.sh refuses a folder at --to/vcc: $(tail -n1 "$scratch/dir.txt")"
else
    fail "install.sh and a folder at --to/vcc: exit $code, $(cat "$scratch/dir.txt")"
fi

# 3. aarch64 under qemu-user.
arm="$out/vcc-$version-aarch64-unknown-linux-musl.tar.gz"
if [ "$smoke" -eq 1 ]; then
    skip "aarch64 under qemu (--smoke)"
elif [ -f "$arm" ] && command -v qemu-aarch64-static >/dev/null; then
    tar -xzf "$arm" -C "$scratch"
    example "aarch64 (qemu-aarch64-static)" qemu-aarch64-static "$scratch/vcc-$version-aarch64-unknown-linux-musl/vcc"
else
    fail "aarch64: no $arm or no qemu-aarch64-static"
fi

# 4. The wheel, in a fresh venv, with no package index.
wheel=$(ls "$out"/vcc_contracts-"$version"-*"$(uname -m)"*.whl 2>/dev/null | head -n1 || true)
if [ -n "$wheel" ]; then
    python3 -m venv "$scratch/venv"
    if "$scratch/venv/bin/pip" install -q --no-index --disable-pip-version-check "$wheel" > "$scratch/pip.txt" 2>&1; then
        example "pip install $(basename "$wheel")" "$scratch/venv/bin/vcc"
    else
        fail "pip install $wheel: $(cat "$scratch/pip.txt")"
    fi
else
    fail "no vcc_contracts wheel for $(uname -m) in $out (dist/pip/wheel.py)"
fi

# 5. npm: the platform package and vcc-contracts, from the local tarballs.
case "$(uname -m)" in x86_64) cpu=x64 ;; aarch64) cpu=arm64 ;; esac
platform="$out/vcc-contracts-linux-$cpu-$version.tgz"
main="$out/vcc-contracts-$version.tgz"
if [ -f "$platform" ] && [ -f "$main" ]; then
    # --omit=optional: the other platforms' packages are not published
    # (npm would ask the registry for them); the matching one is given.
    if npm install -g --prefix "$scratch/npm" --no-audit --no-fund --loglevel=error --omit=optional \
        "$platform" "$main" > "$scratch/npm.txt" 2>&1; then
        example "npm i -g vcc-contracts" "$scratch/npm/bin/vcc"
    else
        fail "npm install: $(cat "$scratch/npm.txt")"
    fi
else
    fail "no $platform or $main (dist/npm/build.sh)"
fi

# 6. The container: push to a loopback registry, pull back, run.
if [ "$smoke" -eq 1 ]; then
    skip "the container image (--smoke)"
else
    layout="$out/oci"
    [ -d "$layout" ] || fail "no image layout $layout (dist/container/build.py)"
    regport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    mkdir -p "$scratch/registry"
    printf 'version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
        "$scratch/registry" "$regport" > "$scratch/registry.yml"
    docker-registry serve "$scratch/registry.yml" > "$scratch/registry.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 50); do curl -fs "http://127.0.0.1:$regport/v2/" >/dev/null && break; sleep 0.1; done
    ref="127.0.0.1:$regport/vcc:$version"
    if skopeo copy -q --all --dest-tls-verify=false "oci:$layout:$version" "docker://$ref" &&
       skopeo copy -q --all --src-tls-verify=false "docker://$ref" "oci:$scratch/pulled:$version"; then
        archs=$(skopeo inspect --raw --tls-verify=false "docker://$ref" | python3 -c 'import json,sys; print(" ".join(sorted(m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"])))')
        [ "$archs" = "amd64 arm64" ] && pass "the image index holds $archs, pushed and pulled back with skopeo" || fail "the image index holds [$archs], not amd64 arm64"
        mkdir -p "$scratch/ctr"
        cp -r "$scratch/example-install.sh/." "$scratch/ctr/"
        code=0
        if podman pull -q --tls-verify=false "docker://$ref" > "$scratch/podman.txt" 2>&1; then
            podman run --rm --network none -v "$scratch/ctr:/work:ro" "$ref" check vcc.yaml --color never > "$scratch/podman.txt" 2>&1 || code=$?
        else
            code=125
        fi
        if [ "$code" -eq 0 ] && grep -q "verdict: ACCEPTED" "$scratch/podman.txt"; then
            pass "podman run $ref check vcc.yaml, deliverables read-only: accepted"
        elif grep -q "verdict:" "$scratch/podman.txt"; then
            fail "podman run: vcc ran and exited $code: $(cat "$scratch/podman.txt")"
        else
            skip "podman cannot run the image here ($(grep -m1 -o 'Error: .*' "$scratch/podman.txt" || echo "exit $code")); running the pulled image's layer instead"
            python3 - "$scratch/pulled" "$scratch/rootfs" <<'PY'
import json, pathlib, platform, sys, tarfile
layout, root = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
blob = lambda d: layout / "blobs" / d.replace(":", "/")
top = json.loads((layout / "index.json").read_text())["manifests"][0]
index = json.loads(blob(top["digest"]).read_text())
arch = {"x86_64": "amd64", "aarch64": "arm64"}[platform.machine()]
manifest = next(m for m in index["manifests"] if m["platform"]["architecture"] == arch)
for layer in json.loads(blob(manifest["digest"]).read_text())["layers"]:
    with tarfile.open(blob(layer["digest"])) as t:
        t.extractall(root, filter="data")
PY
            example "the image's layer (unpacked)" "$scratch/rootfs/usr/local/bin/vcc"
        fi
    else
        fail "skopeo copy to/from the loopback registry"
    fi
fi

if [ "$failures" -gt 0 ]; then
    echo "dist/test.sh: $failures failed" >&2
    exit 1
fi
echo "dist/test.sh: all passed"
