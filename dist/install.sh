#!/bin/sh
# Install vcc from its release archives: detect the OS and architecture,
# download vcc-VERSION-TARGET.tar.gz and SHA256SUMS, refuse unless the
# archive's SHA-256 is the one SHA256SUMS lists, and install the binary.
#
#   curl -fsSL https://github.com/OWNER/vcc/releases/latest/download/install.sh | sh
#   sh install.sh [--version V] [--to DIR] [--base-url URL]
#
#   --version V     the release (default: the one this script came with)
#   --to DIR        where the binary goes (default: ~/.local/bin)
#   --base-url URL  where the release's files are (default: the GitHub
#                   release of that version, over https only)
#
# SHA256SUMS comes from the same place as the archive, so the check catches
# a corrupted or truncated download, not a compromised release: for that,
# verify the release's build provenance (`gh attestation verify`, see the
# book's install page).
set -eu

# Set by the release workflow when it attaches this script to a release.
version="@VERSION@"
repo="@REPO@"
to="${HOME:-}/.local/bin"
base=""

say() { printf 'vcc install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --version) [ $# -ge 2 ] || die "--version needs a value"; version="${2#v}"; shift 2 ;;
        --to) [ $# -ge 2 ] || die "--to needs a folder"; to="$2"; shift 2 ;;
        --base-url) [ $# -ge 2 ] || die "--base-url needs a URL"; base="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done

case "$version" in
    @*) die "this copy of install.sh names no release: pass --version V (and --base-url, or download install.sh from a release)" ;;
esac
# The origin is never taken from the environment: whoever chooses it
# chooses SHA256SUMS too. Only the GitHub release is fetched https-only
# (redirects included); a --base-url (a mirror, a test server) is fetched
# as given, and said.
proto='=https'
if [ -z "$base" ]; then
    case "$repo" in
        @*) die "this copy of install.sh names no repository: pass --base-url URL (the folder holding the release's archives)" ;;
    esac
    base="https://github.com/$repo/releases/download/v$version"
else
    proto='=https,http'
    say "using --base-url $base instead of the GitHub release"
fi

os=$(uname -s)
arch=$(uname -m)
case "$arch" in
    x86_64|amd64) arch=x86_64 ;;
    aarch64|arm64) arch=aarch64 ;;
    *) die "no release build for the $arch architecture; build from source: cargo install --locked --path host/cli" ;;
esac
case "$os" in
    Linux) target="$arch-unknown-linux-musl" ;;
    Darwin) target="$arch-apple-darwin" ;;
    *) die "no release build for $os: vcc runs on Linux and macOS (on Windows, use WSL or the container)" ;;
esac

if command -v curl >/dev/null 2>&1; then
    fetch() { curl -q --proto "$proto" --proto-redir "$proto" -fsSL -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
    # wget cannot refuse a redirect to http (curl, used when present, can).
    fetch() {
        case "$proto:$1" in
            =https:https://* | =https,http:*) wget -q -O "$2" "$1" ;;
            *) die "refusing to fetch $1: not https" ;;
        esac
    }
else
    die "needs curl or wget"
fi
if command -v sha256sum >/dev/null 2>&1; then
    sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
    sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
    die "needs sha256sum or shasum to verify the download"
fi

name="vcc-$version-$target"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

say "downloading $name.tar.gz from $base"
fetch "$base/$name.tar.gz" "$tmp/$name.tar.gz" || die "could not download $base/$name.tar.gz"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $base/SHA256SUMS"

# The line for exactly this file name; `sha256sum -c` would also accept a
# list missing it.
want=$(awk -v f="$name.tar.gz" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS lists no $name.tar.gz: refusing to install"
got=$(sha256 "$tmp/$name.tar.gz")
if [ "$got" != "$want" ]; then
    die "checksum mismatch for $name.tar.gz: SHA256SUMS says $want, the download is $got; refusing to install (nothing was changed)"
fi
say "verified SHA-256 $got"

tar -xzf "$tmp/$name.tar.gz" -C "$tmp" "$name/vcc" || die "$name.tar.gz holds no $name/vcc"
mkdir -p "$to"
if [ -d "$to/vcc" ]; then
    die "$to/vcc is a folder: remove it, or pass --to another folder"
fi
# Copy to a new file of our own (mktemp: never through a planted name),
# then rename: a running vcc keeps its old file, and a failed copy leaves
# the old install in place. `mv -T` is GNU; a folder was refused above.
new=$(mktemp "$to/.vcc.XXXXXX") || die "cannot write in $to"
cp "$tmp/$name/vcc" "$new" && chmod 755 "$new" || { rm -f "$new"; die "cannot write $new"; }
mv -f "$new" "$to/vcc" || { rm -f "$new"; die "cannot replace $to/vcc"; }
installed=$("$to/vcc" --version) || die "the installed $to/vcc does not run"
say "installed $installed to $to/vcc"
case ":${PATH:-}:" in
    *":$to:"*) ;;
    *) say "$to is not on PATH: add it (export PATH=\"$to:\$PATH\")" ;;
esac
