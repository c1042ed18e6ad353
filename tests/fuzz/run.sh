#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 60); a crash stops the
# script with libFuzzer's reproducer path. Needs the nightly toolchain and
# cargo-fuzz; with --install, this script installs both first.
#
#   bash tests/fuzz/run.sh             # one minute per target
#   bash tests/fuzz/run.sh 3600        # an hour per target
#   bash tests/fuzz/run.sh 30 --install
set -euo pipefail
seconds="${1:-60}"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ "${2:-}" == "--install" ]]; then
    rustup toolchain install nightly --profile minimal
    command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
fi
# The corpus grows outside the repository; seeds are the example contracts.
work="${VCC_FUZZ_DIR:-${TMPDIR:-/tmp}/vcc-fuzz}"
mkdir -p "$work/contract" "$work/outcome"
for f in "$repo"/contracts/examples/*/contract.*; do
    cp "$f" "$work/contract/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
done
for target in contract outcome; do
    echo "fuzz: $target for ${seconds}s"
    log="$work/$target.log"
    if ! cargo +nightly fuzz run --fuzz-dir "$here" "$target" "$work/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "fuzz: $target failed; the input is under $here/artifacts/$target (make it a regression test)"
        exit 1
    fi
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^Done" "$log" || tail -n 3 "$log"
done
echo "fuzz: no failures"
