# The two commands of the README: `make run` and `make test`.
# Both set up what is missing (Debian packages, build tree) first.
PRESET ?= release
BUILD  := build/$(PRESET)
XPUSIM := $(BUILD)/apps/xpusim/xpusim

.PHONY: run test build setup configure bench asan fuzz clean format

run: build
	$(XPUSIM) run configs/scenarios/gemm-h100.yaml

test: build
	ctest --preset $(PRESET)

build: configure
	cmake --build --preset $(PRESET)

configure: setup
	@test -f $(BUILD)/build.ninja || cmake --preset $(PRESET)

setup:
	@scripts/bootstrap

bench:
	$(MAKE) build PRESET=release
	scripts/run-benchmarks

asan:
	$(MAKE) test PRESET=asan

# libFuzzer targets (Clang 14), FUZZ_TOTAL_SECONDS in all (default 140); see fuzz/README.md.
fuzz:
	scripts/run-fuzz

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf build
