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

# The quick Go-only loop: formatting, vet and the Go tests, without the race
# detector, the fuzz run or npm.
.PHONY: test-go
test-go: fmt-check vet
	$(GO) test ./...

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

# The MCP reference servers and the TypeScript SDK client that the
# interoperability tests in cmd/gramc run against, at the versions pinned in
# internal/mcptest/node/package-lock.json. Without them those tests skip
# (outside CI) or fail (CI=true).
MCPNODE = internal/mcptest/node
.PHONY: mcp-deps
mcp-deps:
	cd $(MCPNODE) && npm ci --no-audit --no-fund

race: mcp-deps
