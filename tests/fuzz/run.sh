#!/usr/bin/env bash
# Run every fuzz target for SECONDS each (default 60); a crash stops the
# script with libFuzzer's reproducer path (exit 1). Needs the nightly
# toolchain and cargo-fuzz; with --install, this script installs both first
# (exit 3 if it cannot).
#
#   bash tests/fuzz/run.sh             # one minute per target
#   bash tests/fuzz/run.sh 3600        # an hour per target
#   bash tests/fuzz/run.sh 30 --install
#   VCC_FUZZ_TARGETS="oci dsse" bash tests/fuzz/run.sh 600   # some targets
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
# The corpus grows outside the repository; seeds are real files: the
# example contracts, the committed seeds (tests/fuzz/seeds, made by
# seeds/make.sh with a real vcc) and the std validators' test fixtures.
work="${VCC_FUZZ_DIR:-${TMPDIR:-/tmp}/vcc-fuzz}"
targets=(contract outcome records dsse oci policy lock record tool_calls junit sarif coverage usage hook wasi_paths)
# seed TARGET SELECTORS FILE...: copy each file in, once behind each
# selector byte (a target whose first byte picks its reader or params);
# SELECTORS 0 copies the file as it is.
seed() {
    local target="$1" selectors="$2" f i
    shift 2
    for f in "$@"; do
        [[ -f "$f" ]] || continue
        local name="seed-$(echo "${f#"$repo"/}" | tr '/' '_')"
        if [[ "$selectors" == 0 ]]; then
            cp "$f" "$work/$target/$name"
        else
            for ((i = 0; i < selectors; i++)); do
                { printf "\\x$(printf %02x "$i")"; cat "$f"; } >"$work/$target/$i-$name"
            done
        fi
    done
}
for target in "${targets[@]}"; do mkdir -p "$work/$target"; done
seed contract 0 "$repo"/contracts/examples/*/contract.*
# Ledgers, notes, receipts and attestations, each behind the byte that
# picks its reader.
seed records 0 "$here"/seeds/records/*
for target in dsse oci policy lock usage; do seed "$target" 0 "$here/seeds/$target"/*; done
seed record 2 "$here"/seeds/record/* "$repo"/tests/cases/exit-record/*/out/tests.json
seed hook 4 "$here"/seeds/hook/*
seed tool_calls 2 "$repo"/tests/{cases,forgery}/tool-calls/*/out/*
seed junit 3 "$repo"/tests/{cases,forgery}/junit/*/out/*
seed sarif 2 "$repo"/tests/{cases,forgery}/sarif/*/out/*
seed coverage 3 "$repo"/tests/{cases,forgery}/coverage/*/out/*
only="${VCC_FUZZ_TARGETS:-${targets[*]}}"
for target in $only; do
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
