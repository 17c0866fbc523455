# llm-wire: `make demo` and `make test` are the only commands a newcomer needs. Both install
# whatever is missing (the wasm target, nightly with rust-src, wasm-pack, the matching
# wasm-bindgen CLI, wasm-opt from the npm package `binaryen`, and for the tests their npm peers
# and Chromium with its driver) and are quick when all is there.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

WASM_BINDGEN_VERSION := $(shell sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
# wasm-pack runs the wasm-opt it finds on the PATH: the one of scripts/package.json.
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/scripts/node_modules/.bin:$(PATH)

PKG := pkg
PKG_STAMP := $(PKG)/.built
WASM_SRC := $(shell find src -name '*.rs') Cargo.toml
# The package is `MIT OR Apache-2.0` and ships both texts.
LICENSES := LICENSE-MIT LICENSE-APACHE

# The release module is built for size (`opt-level = "z"`, Cargo.toml) with the functions on the
# stream path marked `#[optimize(speed)]` by `--cfg llw_speed` (src/lib.rs), so the hot path keeps
# its speed (bench/FINDINGS.md, "Build settings"). The standard library is rebuilt from source
# with its size-minded variants (`optimize_for_size`) but its code at `opt-level = 3`, as the
# prebuilt one is (at "z" every push was slower); so is the allocator (`dlmalloc`), which every
# string of every event goes through (at "z" a stream of many small items was 8 % slower). The
# build uses `panic = immediate-abort`: a panic (a bug: the crate never panics on input) traps at
# once instead of formatting a message. These need nightly and its rust-src; only this build uses
# them (tests and `cargo build` use stable, with panic messages). Without the reference-types and
# multivalue features wasm-bindgen passes JS values through its glue's table rather than a wasm
# externref table: smaller, and as fast. rustc's own (MIR) inliner is allowed twice its default
# thresholds: it inlines the small generic std code (`Vec` and `Option` helpers) that this crate
# instantiates, and so builds at "z" out of line, before LLVM sees it (paired: the OpenAI,
# Anthropic and hostile streams 0.85-0.92 of the time, Gemini 0.96-0.98; 1.8 KB gzipped).
RELEASE_TOOLCHAIN := nightly
RELEASE_RUSTFLAGS := -Zunstable-options -Cpanic=immediate-abort --cfg llw_speed -Ctarget-feature=-reference-types,-multivalue \
	-Zinline-mir-threshold=100 -Zinline-mir-hint-threshold=200
RELEASE_CARGO_FLAGS := -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size \
	$(foreach c,core alloc std compiler_builtins dlmalloc,--config profile.release.package.$(c).opt-level=3)

.PHONY: test demo demo-cli bench tools build-tools test-tools pkg size clean fuzz \
	.tools-rust .tools-nightly .tools-wasm-pack .tools-bindgen .tools-chromium

## ---- set-up: each step only when missing ---------------------------------------------------
tools: build-tools test-tools
build-tools: .tools-rust .tools-nightly .tools-wasm-pack .tools-bindgen scripts/node_modules/.installed
test-tools: tests/js/node_modules/.installed .tools-chromium

.tools-rust:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

.tools-nightly:
	@rustup toolchain list | grep -q '^$(RELEASE_TOOLCHAIN)' || rustup toolchain install $(RELEASE_TOOLCHAIN) --profile minimal
	@rustup component list --installed --toolchain $(RELEASE_TOOLCHAIN) | grep -qx rust-src \
		|| rustup component add rust-src --toolchain $(RELEASE_TOOLCHAIN)
	@rustup target list --installed --toolchain $(RELEASE_TOOLCHAIN) | grep -qx wasm32-unknown-unknown \
		|| rustup target add wasm32-unknown-unknown --toolchain $(RELEASE_TOOLCHAIN)

.tools-wasm-pack:
	@command -v wasm-pack >/dev/null || cargo install wasm-pack

.tools-bindgen:
	@wasm-bindgen --version 2>/dev/null | grep -qF "$(WASM_BINDGEN_VERSION)" \
		|| cargo install wasm-bindgen-cli --version "=$(WASM_BINDGEN_VERSION)"

# The npm packages of one folder (scripts, tests/js, bench) exactly as its lock gives them:
# `npm ci` never rewrites the lock, so the tree stays as it was checked out.
%/node_modules/.installed: %/package.json %/package-lock.json
	cd $* && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

.tools-chromium:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; fi

## ---- the npm package ------------------------------------------------------------------------
pkg: $(PKG_STAMP)

# One entry of the package: $(1) its directory, $(2) its file names, $(3) where its CommonJS glue
# is made, $(4) extra cargo arguments. wasm-pack builds the release module and its ES glue; the
# same module gets wasm-bindgen's nodejs glue for require() (instantiated synchronously); and
# two fixes to wasm-bindgen's declarations: its `any` in the raw exports' types (InitOutput)
# becomes `unknown` (nothing public may be `any`), and a last parameter it declares
# `x: T | undefined` (a JsValue that may be left out) becomes `x?: T`, so it may be omitted.
define build_entry
RUSTUP_TOOLCHAIN=$(RELEASE_TOOLCHAIN) RUSTFLAGS="$(RELEASE_RUSTFLAGS)" \
	wasm-pack build --release --target web --out-dir $(1) --out-name $(2) --no-pack . -- $(RELEASE_CARGO_FLAGS) $(4)
rm -rf $(3)
wasm-bindgen --target nodejs --out-dir $(3) --out-name $(2) target/wasm32-unknown-unknown/release/llm_wire.wasm
cp $(3)/$(2).js $(1)/$(2).cjs
sed -i -E -e '/^ +readonly [A-Za-z0-9_$$]+: \(/ s/: any/: unknown/g' \
	-e 's/([A-Za-z_]+): ([^:()]+) \| undefined\)/\1?: \2)/' $(1)/$(2).d.ts
endef

$(PKG_STAMP): $(WASM_SRC) Makefile $(shell find pkg-template -type f) README.md $(LICENSES) | build-tools
	rm -rf $(PKG)
	$(call build_entry,$(PKG),llm_wire,target/pkg-cjs,)
	cp -r pkg-template/* $(PKG)/
	@# helpers.cjs and partial.cjs are the .mjs files with their exports made CommonJS ones.
	sed 's/^export function makeHelpers/function makeHelpers/' pkg-template/helpers.mjs > $(PKG)/helpers.cjs
	echo 'module.exports = { makeHelpers };' >> $(PKG)/helpers.cjs
	sed -e 's/^export class PartialState/class PartialState/' -e 's/^export function makePartial/function makePartial/' \
		pkg-template/partial.mjs > $(PKG)/partial.cjs
	echo 'module.exports = { PartialState, makePartial };' >> $(PKG)/partial.cjs
	@# The stream entry (`llm-wire/stream`): the same crate without the `wasm-full` exports, so a
	@# page that only reads streams loads the Accumulator alone. Its entry files are the main
	@# ones pointed at its own module (and at the shared helpers one directory up); its public
	@# surface and its types are its own (pkg-template/stream/).
	$(call build_entry,$(PKG)/stream,llm_wire_stream,target/pkg-cjs-stream,--no-default-features)
	for f in web.mjs browser.mjs node.mjs deno.mjs workerd.mjs node.cjs; do \
		sed -e 's#\./llm_wire\([._]\)#./llm_wire_stream\1#g' -e 's#\./\(helpers\|partial\)\.#../\1.#g' pkg-template/$$f > $(PKG)/stream/$$f; done
	cp pkg-template/stream/* $(PKG)/stream/
	cp README.md $(LICENSES) $(PKG)/
	rm -f $(PKG)/.gitignore $(PKG)/stream/.gitignore
	touch $@

# A licence text missing from the repository root stops the build: the package must not ship
# without it.
$(LICENSES):
	@echo "error: $@ is missing at the repository root: the npm package ships both licence texts ($(LICENSES))" >&2
	@exit 1

size: pkg
	@node scripts/size.mjs

## ---- tests, demo, benchmark -----------------------------------------------------------------
test: tools
	@bash tests/run-all.sh

# The demo page's libraries (marked, DOMPurify) come from web-demo's own lock; its Playwright test
# needs them too.
DEMO_DEPS := web-demo/node_modules/.installed
test-tools: $(DEMO_DEPS)

demo: build-tools pkg $(DEMO_DEPS)
	node web-demo/server.mjs

demo-cli: build-tools pkg
	node web-demo/replay.mjs $(DEMO_ARGS)

# The speed ratios, then the size against its guard rail (which fails the target when over).
bench: build-tools pkg bench/node_modules/.installed
	node bench/run.mjs $(BENCH_ARGS)
	node scripts/size.mjs

## ---- fuzzing (not part of `make test`): cargo-fuzz on nightly, one target at a time -------
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?= sse accumulator process build_chat_args openapi structured_output

fuzz:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
	@bash fuzz/seed.sh
	@mkdir -p fuzz/artifacts
	@for t in $(FUZZ_TARGETS); do \
		echo "== fuzz $$t for $(FUZZ_SECONDS)s (log: fuzz/artifacts/$$t.log)"; \
		rc=0; cargo +nightly fuzz run $$t -- -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
			-print_final_stats=1 > fuzz/artifacts/$$t.log 2>&1 || rc=$$?; \
		grep -E '^Done|stat::number_of_executed_units|panicked|ERROR' fuzz/artifacts/$$t.log || true; \
		test $$rc -eq 0 || { echo "fuzz target $$t failed: see fuzz/artifacts/$$t/ and fuzz/artifacts/$$t.log"; exit 1; }; \
	done

clean:
	rm -rf $(PKG) target
