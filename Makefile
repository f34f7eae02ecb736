# The two commands a newcomer runs: `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
SHARED ?= $(abspath ../shared)

.PHONY: deps configure build demo test bench clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/argus examples

test: build
	@cd $(BUILD) && ARGUS_SHARED=$(SHARED) ctest --output-on-failure -j $(JOBS)

bench: build
	@$(BUILD)/argus bench $(SHARED)/benchmarks/MANIFEST.tsv --timeout 30 --jobs 2

clean:
	rm -rf $(BUILD)
