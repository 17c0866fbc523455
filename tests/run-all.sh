#!/usr/bin/env bash
# Every suite of llm-wire, in order, then one closing tally line `N passed, M failed`.
# Called by `make test` (after the tools are installed) and so by `.ci/run`.
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step() {
    echo "== $*"
    "$@" 2>&1 | tee -a "$log"
}

step cargo test --doc
step cargo test --lib --tests
step wasm-pack test --node --release
WASM_BINDGEN_USE_BROWSER=1 step wasm-pack test --headless --chrome --chromedriver "$(command -v chromedriver)" --release
make --no-print-directory pkg
step node scripts/size.mjs
step node --test tests/js/*.test.mjs

# Sum the counts every runner printed: cargo's `test result:` lines and node's `# pass`/`# fail`.
sum() { grep -oE "$1" "$log" | grep -oE '[0-9]+' | awk '{ s += $1 } END { print s + 0 }'; }
passed=$(( $(sum 'test result: (ok|FAILED)\. [0-9]+ passed') + $(sum '^# pass [0-9]+') ))
failed=$(( $(sum '; [0-9]+ failed') + $(sum '^# fail [0-9]+') ))
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
