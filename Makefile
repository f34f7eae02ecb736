# The two commands a newcomer runs: `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
SHARED ?= $(abspath ../shared)

.PHONY: deps configure build demo test bench bench-server bench-team e2e-deps vsix vscode-deps clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/argus examples

# npm packages of the argusd end-to-end tests (tests/e2e/package-lock.json), once.
e2e-deps:
	@if [ ! -d tests/e2e/node_modules ]; then cd tests/e2e && npm ci --no-audit --no-fund; fi

# vscode-deps: the extension's tests and the bench HTML report's browser test (playwright-core)
test: build e2e-deps vscode-deps
	@cd $(BUILD) && ARGUS_SHARED=$(SHARED) ctest --output-on-failure -j $(JOBS)

bench: build
	@$(BUILD)/argus bench $(SHARED)/benchmarks/MANIFEST.tsv --timeout 30 --jobs 2

# argusd latency and loopback load benchmarks (tests/e2e/bench/); prints the figures.
bench-server: build e2e-deps
	@ARGUSD=$(abspath $(BUILD))/argusd node tests/e2e/bench/latency.mjs
	@ARGUSD=$(abspath $(BUILD))/argusd node tests/e2e/bench/load.mjs
	@ARGUSD=$(abspath $(BUILD))/argusd node tests/e2e/bench/scale.mjs read
	@ARGUSD=$(abspath $(BUILD))/argusd node tests/e2e/bench/scale.mjs noread
	@ARGUSD=$(abspath $(BUILD))/argusd node tests/e2e/bench/team.mjs

# Team service: cache-hit latency across argusd replicas sharing Redis, throughput 1 vs 3.
bench-team: build e2e-deps
	@ARGUSD=$(abspath $(BUILD))/argusd node tests/e2e/bench/team.mjs

# The VS Code extension (clients/vscode/): npm ci once, then clients/vscode/argus-<version>.vsix.
vscode-deps:
	@if [ ! -d clients/vscode/node_modules ]; then cd clients/vscode && npm ci --no-audit --no-fund; fi

vsix: vscode-deps
	@cd clients/vscode && npm run --silent package

clean:
	rm -rf $(BUILD)
