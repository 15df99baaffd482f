# The gram toolchain. While you work, `make test-go` is the quick loop (gofmt,
# vet, go test; no npm, no system packages). `make test` runs every test, as CI
# does; `make demo` builds gramc and runs it on the shipped examples.
GO ?= go

.PHONY: all build test race vet fmt-check fuzz bench bench-scale bench-reference conformance differential demo vscode vsix nvim workbench playground playground-test

all: build

# What the targets are for, the everyday one first.
.PHONY: help
help:
	@echo "make test-go     the quick loop while you work: gofmt check, go vet, go test ./..."
	@echo "make demo        build bin/gramc; gramc check examples/ and gramc schema examples/hello.gram"
	@echo "make test        every test, as CI runs it (.ci/run): race detector, fuzz, differential, editors;"
	@echo "                 installs Debian and npm packages on first use"
	@echo "make build       bin/gramc"
	@echo "make vsix        the VS Code extension for Linux x64, gram-lsp inside"
	@echo "make playground  the browser playground in playground/dist, and bin/gramc serving it (gramc playground)"
	@echo "make bench       benchmarks; also bench-scale, bench-lsp, bench-reference, bench-serve (see docs/performance.md)"
	@echo "make conformance the reference grammar's corpus; make differential: random documents against the reference parser"

build:
	$(GO) build -o bin/gramc ./cmd/gramc

# The quick loop is `make test-go` (below). Everything a change must pass:
# formatting, vet, tests with the race detector, a short fuzz run of the parser,
# the differential run against the reference parser, and the editor tests (VS Code
# and Neovim), which install system and npm packages on first use; test-notice
# says so before anything is installed.
test: test-notice fmt-check vet race alloc fuzz differential vscode nvim workbench playground-test

.PHONY: test-notice
test-notice:
	@echo "make test: may install Debian packages with apt-get (as root or through sudo) when missing: neovim, chromium, ripgrep, python3, g++, make, libkrb5-dev, postgresql; and npm packages (the extension's, code-server, the MCP servers, the playground's, the OpenAI client library). The quick loop without them: make test-go"

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race ./...

# What an edit and the requests after it allocate, checked against the size of
# the document; counted without the race detector, whose build allocates at random.
.PHONY: alloc
alloc:
	$(GO) test ./ide ./parser -count 1 -run '^(TestRequestsAfterEditCostTheUnit|TestEditAllocFlat)$$'

# The quick Go-only loop, for every change while you work: formatting, vet and the
# Go tests, without the race detector, the fuzz run, npm or system packages.
.PHONY: test-go
test-go: fmt-check vet
	$(GO) test ./...

# The parser on any input, the hand-written parse of well-formed units
# against the participle grammar, which states the language, and a re-parse
# after any edit against a parse of the edited text.
fuzz:
	$(GO) test ./parser -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 15s -fuzzminimizetime 2s
	$(GO) test ./parser -run '^$$' -fuzz '^FuzzParseFastAsParticiple$$' -fuzztime 15s -fuzzminimizetime 2s
	$(GO) test ./parser -run '^$$' -fuzz '^FuzzReparse$$' -fuzztime 15s -fuzzminimizetime 2s

bench:
	$(GO) test ./parser ./schema ./cmd/gramc -run '^$$' -bench . -benchmem -benchtime 3x

# How every command's time and memory grow with its input (n to 8n, clean and
# error-heavy); fails when one grows faster than linearly. See internal/scale.
bench-scale:
	$(GO) run ./internal/scale/bench-scale

# The front end side by side with the reference parser (needs ../shared; skipped
# with a message when the reference parser cannot be built).
bench-reference:
	$(GO) run ./internal/refbench

# The reference grammar's corpus (needs ../shared beside the clone).
conformance:
	../shared/bin/conformance

# Random documents (a third of them broken) parsed by gramc and by the reference
# parser (tree-sitter-gram's C parser, built with gcc on first use): verdicts and
# syntax trees must agree on every one. Needs ../shared beside the clone, as CI
# has it; skipped otherwise.
DIFF_N ?= 2000
DIFF_SEED ?= 1
differential:
	@if [ ! -x ../shared/bin/differential ]; then \
	  echo "differential: skipped: ../shared/bin/differential not found (the reference grammar is not checked out beside this clone)"; exit 0; fi; \
	out=$$(../shared/bin/differential --trees $(DIFF_N) $(DIFF_SEED)) || { echo "$$out"; exit 1; }; \
	echo "$$out" | tail -n 1; \
	echo "$$out" | tail -n 1 | grep -q ' 0 disagree$$' || { echo "$$out"; exit 1; }

# The demo runs offline: the run and the tests answer from the recordings
# shipped beside the examples, with no API key.
demo: build
	@echo '$$ gramc check --strict examples/'
	@./bin/gramc check --strict examples/ && \
	  echo "gramc check: no errors or warnings in $$(find examples -name '*.gram' | wc -l | tr -d ' ') files"
	@echo
	@echo '$$ gramc schema examples/hello.gram'
	@./bin/gramc schema examples/hello.gram
	@echo
	@echo "\$$ gramc run examples/hello.gram --replay examples/hello.replay.json -m \"Hi, I'm Bob\""
	@OPENAI_API_KEY= ./bin/gramc run examples/hello.gram --replay examples/hello.replay.json -m "Hi, I'm Bob"
	@echo
	@echo '$$ gramc test examples/hello_test.gram --replay'
	@OPENAI_API_KEY= ./bin/gramc test examples/hello_test.gram --replay

# The VS Code extension: type check, bundle, grammar tests, package and its listing.
VSCODE = editors/vscode
vscode: vsix
	cd $(VSCODE) && npm test

# A platform package for Linux x64 with gram-lsp inside: installing the .vsix is
# all a Linux user needs. The server is built into bin/ only for this package (.vscodeignore-linux-x64
# lets it in) and removed afterwards, so the platform-neutral package that
# `npm run package` builds never carries it.
vsix:
	cd $(VSCODE) && npm ci --no-audit --no-fund && npm run build
	mkdir -p $(VSCODE)/bin
	GOOS=linux GOARCH=amd64 CGO_ENABLED=0 $(GO) build -trimpath -o $(VSCODE)/bin/gram-lsp ./cmd/gram-lsp
	cd $(VSCODE) && npx vsce package --no-dependencies --ignoreFile .vscodeignore-linux-x64 --target linux-x64 --out gram-linux-x64.vsix; \
	  status=$$?; rm -rf bin; exit $$status

# The Neovim set-up of docs/editors.md in a headless Neovim 0.7 (Debian's, installed when
# missing): diagnostics, hover and document symbols from gram-lsp.
nvim:
	GO=$(GO) editors/neovim/test.sh

# The packaged extension in a real VS Code (code-server, driven by Debian's
# Chromium): highlighting, diagnostics, hover, Show Tool Schema and the Run
# test code lens on a copy of examples/. install.sh
# installs what it needs; screenshots go to editors/vscode/build/workbench.
workbench: vsix
	$(VSCODE)/test/workbench/install.sh
	timeout 900 node $(VSCODE)/test/workbench/run.mjs $(VSCODE)/gram-linux-x64.vsix

# The browser playground (docs/playground.md): the toolchain compiled to
# WebAssembly and the page bundled with esbuild into playground/dist, then
# bin/gramc with those files embedded (gramc playground serves them). Needs
# Node.js 20 and npm; a clone that never runs it still builds and tests.
PLAYGROUND = playground/web
playground:
	cd $(PLAYGROUND) && npm ci --no-audit --no-fund --loglevel=error
	mkdir -p playground/dist
	GOOS=js GOARCH=wasm CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o playground/dist/gram.wasm ./playground/wasm
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" playground/dist/wasm_exec.js
	cd $(PLAYGROUND) && node build.mjs ../dist
	$(GO) build -o bin/gramc ./cmd/gramc

# The playground in Debian's Chromium (installed when missing), driven by
# puppeteer-core: the grammar's scopes against the extension's snapshots,
# then the page served by bin/gramc playground: an example, a mistake, its
# squiggle and quick fix, the schema targets, a share link, offline use and
# the budgets. Screenshots go to playground/web/build/screenshots.
playground-test: playground
	$(PLAYGROUND)/test/install.sh
	cd $(PLAYGROUND) && npm run --silent test:unit
	timeout 600 node $(PLAYGROUND)/test/browser.mjs bin/gramc

# The MCP reference servers and the TypeScript SDK client that the
# interoperability tests in cmd/gramc run against, at the versions pinned in
# internal/mcptest/node/package-lock.json. Without them those tests skip
# (outside CI) or fail (CI=true).
MCPNODE = internal/mcptest/node
.PHONY: mcp-deps
mcp-deps:
	cd $(MCPNODE) && npm ci --no-audit --no-fund

# The official OpenAI JavaScript library and the OpenAPI validator that the
# gramc serve tests in cmd/gramc run against (a chat UI's calls, streamed or
# not; /openapi.json checked by the official OpenAPI 3.1 schemas), at the
# versions pinned in serve/testdata/node/package-lock.json. Without them
# those tests skip (outside CI) or fail (CI=true).
SERVENODE = serve/testdata/node
.PHONY: serve-deps
serve-deps:
	cd $(SERVENODE) && npm ci --no-audit --no-fund

# openai-chat-tokens, the npm estimator of OpenAI prompts with functions,
# which the tests of package tokens compare gram's counts with, at the
# version pinned in tokens/testdata/node/package-lock.json. Without it those
# tests skip (outside CI) or fail (CI=true).
TOKENSNODE = tokens/testdata/node
.PHONY: tokens-deps
tokens-deps:
	cd $(TOKENSNODE) && npm ci --no-audit --no-fund

# PostgreSQL (Debian's postgresql package) for the tests of durable runs
# that start a server of their own (internal/pgtest), installed with apt-get
# when initdb is missing. Without it those tests skip (outside CI) or fail
# (CI=true).
.PHONY: postgres-deps
postgres-deps:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql

race: mcp-deps serve-deps tokens-deps postgres-deps

# gramc serve under load: 200 conversations of 3 turns with tool calls at
# once, against the in-process fake model with a fixed delay; prints the
# latency the server adds, its errors, the peak RSS and the machine's load.
# Then 200 durable runs at once in a SQLite run store (BenchmarkServeRuns):
# the latency the store and the server add, and the peak RSS.
.PHONY: bench-serve
bench-serve:
	$(GO) test ./serve -run '^$$' -bench '^BenchmarkServe(Load|Runs)$$' -benchtime 1x

# The language server's scaling rows (n to 8n, clean and error-heavy; fails when
# a growth ratio exceeds 10) and its targets on 50,000 lines and 10 MB.
.PHONY: bench-lsp
bench-lsp:
	$(GO) test ./lsp -run '^$$' -bench '^Benchmark(Scale|Targets)$$' -benchtime 1x -timeout 60m
