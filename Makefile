# The gram toolchain. `make test` runs every test; `make demo` builds gramc and
# runs it on the shipped examples.
GO ?= go

.PHONY: all build test race vet fmt-check fuzz bench conformance demo vscode vsix

all: build

build:
	$(GO) build -o bin/gramc ./cmd/gramc

# Everything a change must pass: formatting, vet, tests with the race detector, and a
# short fuzz run of the parser.
test: fmt-check vet race fuzz vscode

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

# The reference grammar's corpus (needs ../shared beside the clone).
conformance:
	../shared/bin/conformance

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

# The language server's scaling rows (n to 8n, clean and error-heavy; fails when
# a growth ratio exceeds 10) and its targets on 50,000 lines and 10 MB.
.PHONY: bench-lsp
bench-lsp:
	$(GO) test ./lsp -run '^$$' -bench '^Benchmark(Scale|Targets)$$' -benchtime 1x -timeout 60m
