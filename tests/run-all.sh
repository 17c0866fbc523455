#!/usr/bin/env bash
# Every suite of llm-wire, in order, then one closing tally line `N passed, M failed`.
# Called by `make test` (after the tools are installed) and so by `.ci/run`. A failing suite
# does not stop the others; the exit status is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT

passed=0
failed=0

# A clean build and test run writes about 2.5 GB (target/, pkg/, the wasm test builds). A disk
# that fills up fails it with errors that do not say why (a linker "Bus error", a missing
# rmeta), so a short disk is named first.
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $(( 4 * 1024 * 1024 )) ]; then
    echo "== warning: $(( free_kb / 1024 )) MB free on this disk; the build and tests need about 2.5 GB"
fi

# The sum of the numbers in the lines of $log that match the pattern $1.
sum() { grep -oE "$1" "$log" | grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }'; }

# Runs one suite and adds the counts its runner printed: cargo's `test result:` lines, node's
# TAP `# pass`/`# fail`. A suite that fails with no failed test counted (it did not build, or
# it is a check without tests) counts as one failure.
step() {
    echo "== $*"
    "$@" 2>&1 | tee "$log"
    local status=${PIPESTATUS[0]}
    local p f
    p=$(( $(sum 'test result: (ok|FAILED)\. [0-9]+ passed') + $(sum '^# pass [0-9]+') ))
    f=$(( $(sum '; [0-9]+ failed') + $(sum '^# fail [0-9]+') ))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "== failed (exit status $status): $*"
        f=1
    fi
    passed=$(( passed + p ))
    failed=$(( failed + f ))
    return "$status"
}

# --no-fail-fast: cargo otherwise skips the test binaries after the first that fails, and their
# tests would be missing from the tally. (wasm-pack hands its extra options to `cargo build`
# too, which refuses this one: a failing wasm test binary still counts, the ones after it not.)
step cargo test --doc
step cargo test --no-fail-fast --lib --tests
# The fuzz targets follow the crate's API: type-checked here (a check without tests), run by
# `make fuzz`.
step cargo check --locked --quiet --manifest-path fuzz/Cargo.toml --bins
step wasm-pack test --node --release
WASM_BINDGEN_USE_BROWSER=1 step wasm-pack test --headless --chrome --chromedriver "$(command -v chromedriver)" --release
# The JS suites run against the package only when it built.
if step make --no-print-directory pkg; then
    # The size against its guard rail, shown here and held by `make size` and `make bench`, as
    # speed is: not a test. The package is over the rail today (docs/design.md, "Not yet").
    echo "== node scripts/size.mjs (measured, not counted)"
    node scripts/size.mjs || echo "== size: over the guard rail"
    step node --test --test-reporter=tap tests/js/*.test.mjs
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
