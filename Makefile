# The gram toolchain. `make test` runs every test; `make demo` builds gramc and
# runs it on the shipped examples.
GO ?= go

.PHONY: all build test race vet fmt-check fuzz bench bench-reference conformance differential demo vscode vsix

all: build

build:
	$(GO) build -o bin/gramc ./cmd/gramc

# Everything a change must pass: formatting, vet, tests with the race detector, a
# short fuzz run of the parser, and the differential run against the reference parser.
test: fmt-check vet race fuzz differential vscode

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race ./...

fuzz:
	$(GO) test ./parser -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 15s -fuzzminimizetime 2s

bench:
	$(GO) test ./parser ./cmd/gramc -run '^$$' -bench . -benchmem -benchtime 3x

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

demo: build
	./bin/gramc check examples/
	./bin/gramc schema examples/hello.gram

# The VS Code extension: type check, bundle, grammar tests, package and its listing.
VSCODE = editors/vscode
vscode: vsix
	cd $(VSCODE) && npm test

# A platform package for Linux x64 with gram-lsp inside: installing the .vsix is
# all a Linux user needs.
vsix:
	cd $(VSCODE) && npm ci --no-audit --no-fund && npm run build
	mkdir -p $(VSCODE)/bin
	GOOS=linux GOARCH=amd64 CGO_ENABLED=0 $(GO) build -trimpath -o $(VSCODE)/bin/gram-lsp ./cmd/gram-lsp
	cd $(VSCODE) && npx vsce package --no-dependencies --skip-license --allow-missing-repository --target linux-x64 --out gram-linux-x64.vsix
