#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 60); a crash stops the
# script with libFuzzer's reproducer path (exit 1). Needs the nightly
# toolchain and cargo-fuzz; with --install, this script installs both first
# (exit 3 if it cannot).
#
#   bash tests/fuzz/run.sh             # one minute per target
#   bash tests/fuzz/run.sh 3600        # an hour per target
#   bash tests/fuzz/run.sh 30 --install
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ "${2:-}" == "--install" ]]; then
    # Only when missing: updating nightly would rebuild the fuzz targets.
    # Exit 3 (not 1, a crash) when they cannot be installed, so CI can tell.
    rustup toolchain list | grep -q '^nightly' ||
        rustup toolchain install nightly --profile minimal || exit 3
    command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked || exit 3
fi
# The fuzz build uses sanitizer flags; keep it apart from the normal build.
target_dir="${VCC_FUZZ_TARGET_DIR:-$here/target}"
# The corpus grows outside the repository; seeds are the example contracts.
work="${VCC_FUZZ_DIR:-${TMPDIR:-/tmp}/vcc-fuzz}"
mkdir -p "$work/contract" "$work/outcome" "$work/records"
for f in "$repo"/contracts/examples/*/contract.*; do
    cp "$f" "$work/contract/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
done
# Real ledgers, notes, receipts and attestations, each behind the byte
# that picks its reader.
cp "$here"/seeds/records/* "$work/records/"
for target in contract outcome records; do
    echo "fuzz: $target for ${seconds}s"
    log="$work/$target.log"
    if ! cargo +nightly fuzz run --fuzz-dir "$here" --target-dir "$target_dir" "$target" "$work/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "fuzz: $target failed; the input is under $here/artifacts/$target (make it a regression test)"
        exit 1
    fi
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^Done" "$log" || tail -n 3 "$log"
done
echo "fuzz: no failures"
