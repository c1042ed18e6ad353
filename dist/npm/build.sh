#!/usr/bin/env bash
# The npm packages, from release archives (dist/build.sh): one package per
# platform holding that platform's binary (`os`/`cpu` set, so npm installs
# only the matching one) and `vcc-contracts`, whose `vcc` command runs it,
# listing them all as optional dependencies (the esbuild and biome
# pattern). Writes `npm pack` tarballs into --out.
#   dist/npm/build.sh --archives DIR --out DIR
# The name is vcc-contracts, not vcc-cli: `vcc-cli` on PyPI is another
# project's, and one name for both ecosystems is easier to find.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
archives=""
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --archives) archives="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "dist/npm/build.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$archives" ] && [ -n "$out" ] || { echo "usage: dist/npm/build.sh --archives DIR --out DIR" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/../../Cargo.toml" | head -n1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

optional=""
found=0
for pair in x86_64-unknown-linux-musl:linux:x64 aarch64-unknown-linux-musl:linux:arm64 \
            x86_64-apple-darwin:darwin:x64 aarch64-apple-darwin:darwin:arm64; do
    IFS=: read -r target os cpu <<< "$pair"
    archive="$archives/vcc-$version-$target.tar.gz"
    [ -f "$archive" ] || continue
    found=$((found + 1))
    name="vcc-contracts-$os-$cpu"
    exe=vcc
    [ "$os" != win32 ] || exe=vcc.exe
    dir="$work/$name"
    mkdir -p "$dir/bin"
    tar -xzf "$archive" -C "$work" "vcc-$version-$target/$exe"
    mv "$work/vcc-$version-$target/$exe" "$dir/bin/$exe"
    chmod 755 "$dir/bin/$exe"
    cp "$here/../../LICENSE" "$dir/"
    cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "$version",
  "description": "The vcc binary for $os-$cpu (installed by vcc-contracts).",
  "license": "Apache-2.0",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/$exe", "LICENSE"],
  "preferUnplugged": true
}
JSON
    echo "The $os-$cpu binary of [vcc-contracts](https://www.npmjs.com/package/vcc-contracts)." > "$dir/README.md"
    (cd "$out" && npm pack --silent "$dir" >/dev/null)
    optional="$optional${optional:+,}
    \"$name\": \"$version\""
done
[ "$found" -gt 0 ] || { echo "dist/npm/build.sh: no vcc-$version-*.tar.gz in $archives" >&2; exit 1; }

main="$work/vcc-contracts"
cp -r "$here/vcc-contracts" "$main"
cp "$here/../../LICENSE" "$main/"
cat > "$main/package.json" <<JSON
{
  "name": "vcc-contracts",
  "version": "$version",
  "description": "vcc: check deliverables against a Verifiable Completion Contract, with sandboxed WebAssembly validators.",
  "license": "Apache-2.0",
  "bin": { "vcc": "bin/vcc.js" },
  "files": ["bin/vcc.js", "LICENSE", "README.md"],
  "engines": { "node": ">=18" },
  "optionalDependencies": {$optional
  }
}
JSON
cp "$here/../../README.md" "$main/README.md"
(cd "$out" && npm pack --silent "$main" >/dev/null)
ls "$out"/vcc-contracts-*.tgz
