#!/usr/bin/env bash
# Build the release archives for the given Rust targets (default: the two
# static Linux ones) into dist/out (or --out DIR):
#   vcc-VERSION-TARGET.tar.gz   the binary, README.md, LICENSE, the manual
#                               page and shell completions, in a folder
#                               named like the archive
#   SHA256SUMS                  `sha256sum` lines for every archive there
# Linux targets are built with cargo-zigbuild (Zig as the C compiler and
# linker: static musl binaries for x86_64 and aarch64 from one machine, no
# cross toolchain to install); other targets with plain cargo, on their own
# runners (.github/workflows/release.yml). Archives are reproducible: sorted
# names, owner 0, the commit's time as mtime, gzip without a timestamp.
#   --binary FILE   package FILE as the (one) target's binary instead of
#                   building it: .ci/run's smoke form packages the binary
#                   its tests built (not static; dist/test.sh --smoke knows)
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist/out
binary=""
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --binary) binary="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        -*) echo "dist/build.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
if [ -n "$binary" ] && [ ${#targets[@]} -ne 1 ]; then
    echo "dist/build.sh: --binary packages one target's binary; name exactly one target" >&2
    exit 2
fi

tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
export PATH="$tools/cargo-zigbuild/bin:$tools/dist-py/bin:$PATH"
# Release builds are kept apart from the test build (other targets, other
# profile): sharing would only evict one with the other.
export CARGO_TARGET_DIR="${VCC_DIST_TARGET_DIR:-$HOME/.cache/vcc-dist/target}"
export CARGO_INCREMENTAL=0
# The archives' mtime; not exported: build scripts that watch it would
# rebuild wasmtime after every commit.
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
mkdir -p "$out"
out=$(cd "$out" && pwd)

for target in "${targets[@]}"; do
    echo "==> vcc $version for $target" >&2
    exe=vcc
    case "$target" in *-windows-*) exe=vcc.exe ;; esac
    bin="$CARGO_TARGET_DIR/$target/dist/$exe"
    # The std validators are precompiled for the target by a build script
    # that runs here: for another architecture it needs that backend.
    features=()
    case "$(uname -m)" in arm64) machine=aarch64 ;; *) machine=$(uname -m) ;; esac
    [ "${target%%-*}" = "$machine" ] || features=(--features cross)
    if [ -n "$binary" ]; then
        bin="$binary"
    else
        case "$target" in
            *-linux-*) cargo zigbuild --locked --profile dist -p vcc --target "$target" ${features[@]+"${features[@]}"} ;;
            *) cargo build --locked --profile dist -p vcc --target "$target" ${features[@]+"${features[@]}"} ;;
        esac
    fi

    # The completions and the manual page come from the binary itself; one
    # built for another architecture runs under qemu-user (Debian's
    # qemu-user-static), else the build machine's own binary writes them
    # (they do not depend on the target).
    run=("$bin")
    case "$target" in
        "$(uname -m)"-unknown-linux-*) ;;
        aarch64-unknown-linux-*) run=(qemu-aarch64-static "$bin") ;;
        x86_64-unknown-linux-*) run=(qemu-x86_64-static "$bin") ;;
        *) run=(cargo run --quiet --locked --release -p vcc --) ;;
    esac

    name="vcc-$version-$target"
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    mkdir -p "$stage/$name/completions"
    cp "$bin" "$stage/$name/$exe"
    cp README.md LICENSE "$stage/$name/"
    "${run[@]}" man > "$stage/$name/vcc.1"
    "${run[@]}" completions bash > "$stage/$name/completions/vcc.bash"
    "${run[@]}" completions zsh > "$stage/$name/completions/_vcc"
    "${run[@]}" completions fish > "$stage/$name/completions/vcc.fish"
    "${run[@]}" completions powershell > "$stage/$name/completions/_vcc.ps1"
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
        --mode='u+rwX,go+rX,go-w' -C "$stage" -cf - "$name" | gzip -9 -n > "$out/$name.tar.gz"
    rm -rf "$stage"
    trap - EXIT
    ls -l "$out/$name.tar.gz" >&2
done

(cd "$out" && sha256sum -- *.tar.gz > SHA256SUMS)
cat "$out/SHA256SUMS"
