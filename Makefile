# sacc / sasim: top-level build. `make demo` and `make test` do all set-up (see README.md).
# Sources are found by wildcard: a new .c in isa/ or sim/ joins its library, a new
# tests/*/*_test.c becomes a test binary, with no edit here.

CC      ?= cc
OPT     ?= -O3
CFLAGS  ?= $(OPT) -g
# The float path (weight folding, calibration) is specified operation by operation, each rounded
# (docs/NETJSON.md "Exact arithmetic of the float path"): never contract a * b + c into a fused
# multiply-add, whatever -march allows (-std=c11 already implies it; said here for other flags).
FLOAT   := -ffp-contract=off
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wundef -Wswitch-enum \
           -D_POSIX_C_SOURCE=200809L $(FLOAT)
LDLIBS  := -ljansson -lz -lm
BUILD   ?= build
SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

ISA_SRC  := $(filter-out isa/gen_isa.c,$(wildcard isa/*.c))
SIM_SRC  := $(filter-out sim/main.c,$(wildcard sim/*.c))
CMP_SRC  := $(filter-out compiler/main.c,$(wildcard compiler/*.c))
TCOM_SRC := $(wildcard tests/common/*.c)
TEST_SRC := $(wildcard tests/isa/*_test.c tests/sim/*_test.c)
CMP_TEST_SRC := $(wildcard tests/compiler/*_test.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
BENCH_SRC := $(wildcard bench/*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
ISA_LIB  := $(BUILD)/libisa.a
SIM_LIB  := $(BUILD)/libsim.a
CMP_LIB  := $(BUILD)/libcompiler.a
TCOM_OBJ := $(call obj,$(TCOM_SRC))
TESTS    := $(patsubst %.c,$(BUILD)/%,$(TEST_SRC))
CMP_TESTS := $(patsubst %.c,$(BUILD)/%,$(CMP_TEST_SRC))
BENCHES  := $(patsubst %.c,$(BUILD)/%,$(BENCH_SRC))
FUZZ_REPLAY := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/replay_%,$(FUZZ_SRC))
SASIM    := $(BUILD)/bin/sasim
SACC     := $(if $(wildcard compiler/main.c),$(BUILD)/bin/sacc)
GEN_ISA  := $(BUILD)/bin/gen_isa
DEPS_OK  := $(BUILD)/.deps-ok

# Object files are intermediate to the pattern rules; keep them (faster rebuilds, and no
# "rm ..." lines after the test summary).
.SECONDARY:

.PHONY: all deps deps-onnx deps-browser test test-asan test-fast test-hostile test-onnx demo docs golden fuzz bench exercises clean help
all: $(SASIM) $(SACC) $(GEN_ISA) $(TESTS) $(CMP_TESTS) $(FUZZ_REPLAY) $(BENCHES)

help:
	@echo "make demo       build, compile ResNet-18 (workloads/nets), simulate it, print the stats"
	@echo "make test       build and run every test (also under ASan+UBSan); last line 'N passed, N failed'"
	@echo "make test-fast  the suite once, without the sanitizer pass"
	@echo "make test-hostile  tests/hostile/*.sh: kills, a full disk, concurrent writers, FIFOs (slow)"
	@echo "make docs       regenerate docs/ISA.md and rtl/sa_isa_pkg.sv from isa/*.def"
	@echo "make golden     rewrite tests/golden/ (stats, ref, perf) from the current tools (review the diff)"
	@echo "make fuzz       run the libFuzzer targets (clang) for FUZZ_SECONDS each (default 60)"
	@echo "make bench      run bench/sim-speed and bench/compile"
	@echo "make exercises  run the check command of every exercise in docs/exercises/ against its answer key"
	@echo "make rtl        build sasim-rtl and the Verilator models the tests use (docs/RTL.md)"
	@echo "make synth      yosys: cell counts and area estimate of a PE and an array (ARRAY=4x4)"
	@echo "make timing     yosys: critical paths and 45 nm clock of the PE, array, post, rotator (ARRAY=4x4)"
	@echo "make fpga       iCE40 place and route (nextpnr): Fmax and resources of the PE and arrays (minutes)"
	@echo "make test-onnx  torchvision ResNet-18 and MobileNetV2 through scripts/onnx2net, sacc, sasim (slow)"
	@echo "make install    PREFIX=/usr/local (and DESTDIR): the tools, sacc-sweep, arch files, nets, docs"
	@echo "make test-slurm a sweep on a one-node Slurm cluster of this machine (installs Slurm; docs/SWEEP.md)"
	@echo "make plot-deps  python3-matplotlib, for the plots of scripts/sweep"
	@echo "make deps-browser  chromium and chromium-driver, for the browser checks of sasim run --view"

# System packages (zlib, jansson): installed by apt-get when root, else the exact command is shown.
$(DEPS_OK): scripts/install-deps.sh
	@sh scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@
deps: $(DEPS_OK)

$(BUILD)/%.o: %.c $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

$(ISA_LIB): $(call obj,$(ISA_SRC))
	@rm -f $@ && ar rcs $@ $^
$(SIM_LIB): $(call obj,$(SIM_SRC)) $(BUILD)/gen/view_page.o
	@rm -f $@ && ar rcs $@ $^

# The page of sasim run --view (sim/view.c): the HTML template as one C string, view_page[]. The
# sed quotes each line (backslash, double quote, and '?' against trigraphs) and ends it with \n.
$(BUILD)/gen/view_page.c: sim/view_page.html
	@mkdir -p $(dir $@)
	@{ echo '// generated from sim/view_page.html by make; do not edit'; \
	  echo 'extern const char view_page[];'; echo 'const char view_page[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } >$@.tmp && mv $@.tmp $@
$(BUILD)/gen/view_page.o: $(BUILD)/gen/view_page.c $(DEPS_OK)
	$(CC) $(WARN) $(CFLAGS) -c $< -o $@

$(SASIM): $(BUILD)/sim/main.o $(SIM_LIB) $(ISA_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The compiler builds on isa/ only, never on sim/ (DESIGN.md); so do its tests.
$(CMP_LIB): $(call obj,$(CMP_SRC))
	@rm -f $@ && ar rcs $@ $^
$(BUILD)/bin/sacc: $(BUILD)/compiler/main.o $(CMP_LIB) $(ISA_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
# (randprog.o: its static race checker judges the compiler's token placement; it needs isa/ only.)
$(BUILD)/tests/compiler/%: $(BUILD)/tests/compiler/%.o $(BUILD)/tests/common/check.o $(BUILD)/tests/common/randprog.o \
                           $(CMP_LIB) $(ISA_LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(GEN_ISA): $(BUILD)/isa/gen_isa.o $(ISA_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TCOM_OBJ) $(SIM_LIB) $(ISA_LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(TCOM_OBJ) $(SIM_LIB) $(ISA_LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# Fuzz targets: a replay main (always) so `make test` replays tests/fuzz/corpus/<target>/.
$(BUILD)/tests/fuzz/replay_%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay_main.o $(SIM_LIB) $(ISA_LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
# The net.json fuzz target needs the compiler library (which sim/ must not see).
$(BUILD)/tests/fuzz/replay_fuzz_net: $(BUILD)/tests/fuzz/fuzz_net.o $(BUILD)/tests/fuzz/replay_main.o $(CMP_LIB) $(ISA_LIB)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)
$(BUILD)/tests/fuzz/replay_main.o: tests/fuzz/replay_main.inc $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -x c -c $< -o $@

docs: $(GEN_ISA)
	$(GEN_ISA) doc docs/ISA.head.md > docs/ISA.md.tmp && mv docs/ISA.md.tmp docs/ISA.md
	$(GEN_ISA) sv > rtl/sa_isa_pkg.sv.tmp && mv rtl/sa_isa_pkg.sv.tmp rtl/sa_isa_pkg.sv

test-fast: all
	@sh tests/run.sh $(BUILD)

# The suite twice: plain, then under AddressSanitizer + UBSan (build-asan/). One summary line.
test: all
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 CFLAGS="-O1 -g $(SAN)" all
	@sh tests/run.sh $(BUILD) build-asan

# Hostile conditions (tests/hostile/*.sh: kill -9 at random points, a full tmpfs, concurrent
# writers, FIFOs, big inputs): slow, so not in make test. Last line 'N passed, N failed'.
test-hostile: all
	@log=$$(mktemp); for s in tests/hostile/*.sh; do echo "== $$s" >&2; sh $$s $(BUILD) | tee -a $$log; done; \
	  p=$$(grep -c '^PASS ' $$log); f=$$(grep -c '^FAIL ' $$log); rm -f $$log; \
	  echo "$$p passed, $$f failed"; [ $$f -eq 0 ]

test-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 CFLAGS="-O1 -g $(SAN)" all
	@sh tests/run.sh build-asan

# ResNet-18 (1.8 GMAC, 224x224): compiled, then simulated with the per-unit and per-layer stats.
demo: $(SASIM) $(SACC)
	$(SACC) compile workloads/nets/resnet18.json -o $(BUILD)/resnet18.bin --stats
	$(SASIM) run $(BUILD)/resnet18.bin --stats

# Rewrites every golden from the current tools: tests/golden/*.stats.json and *.ref.txt
# (tests/cli/golden.sh), *.perf.json (tests/cli/perf.sh). Prints each file written, any FAIL, and
# the goldens that changed; review that diff before committing (docs/TESTING.md).
golden: all
	@SA_GOLDEN_UPDATE=1 sh tests/cli/golden.sh $(BUILD) | grep -v '^PASS ' || true
	@SA_GOLDEN_UPDATE=1 sh tests/cli/perf.sh $(BUILD) | grep -v '^PASS ' || true
	@if git rev-parse --git-dir >/dev/null 2>&1; then \
	  c=$$(git status --short -- tests/golden); \
	  if [ -n "$$c" ]; then echo "goldens changed (review: git diff tests/golden):"; echo "$$c"; \
	  else echo "goldens changed: none"; fi; fi

FUZZ_SECONDS ?= 60
fuzz:
	@sh tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

bench: $(SASIM) $(SACC)
	@sh bench/sim-speed
	@BUILD=$(BUILD) sh bench/compile
	@BUILD=$(BUILD) sh bench/targets

# The classroom exercises (docs/exercises/): each one's check command against its answer key.
exercises: $(SASIM) $(SACC)
	@python3 scripts/check-exercises --build $(BUILD)

# ONNX import (docs/IMPORTERS.md). make test runs tests/cli/onnx.sh, which needs python3-onnx:
# installed here like the RTL tools; if that fails the test says SKIP and make test goes on.
ONNX_DEPS_OK := $(BUILD)/.deps-onnx-ok
$(ONNX_DEPS_OK): scripts/install-deps.sh
	@if sh scripts/install-deps.sh --onnx; then mkdir -p $(dir $@) && touch $@; \
	 else echo "make: python3-onnx is missing: the ONNX tests will be skipped" >&2; fi
deps-onnx: $(ONNX_DEPS_OK)
test test-fast: deps-onnx

# The HTML view (sasim run --view, docs/VIEW.md): tests/cli/view.sh loads its pages in headless
# Chromium, installed here like python3-onnx; if that fails the browser part says SKIP.
BROWSER_DEPS_OK := $(BUILD)/.deps-browser-ok
$(BROWSER_DEPS_OK): scripts/install-deps.sh
	@if sh scripts/install-deps.sh --browser; then mkdir -p $(dir $@) && touch $@; \
	 else echo "make: chromium is missing: the browser checks of tests/cli/view.sh will be skipped" >&2; fi
deps-browser: $(BROWSER_DEPS_OK)
test test-fast: deps-browser

# torchvision ResNet-18 and MobileNetV2 (random weights) exported, converted, compiled, simulated.
test-onnx: $(SASIM) $(SACC)
	@sh scripts/install-deps.sh --onnx --torch
	@/usr/bin/python3 tests/onnx/torch_models.py $(BUILD)

# Installed tree: bin/{sacc,sasim,sacc-sweep}, share/sacc/{arch,nets,sweeps}, share/doc/sacc.
# Relocatable: sacc-sweep finds its tools and data relative to itself (docs/SWEEP.md). The RTL
# engine stays in this source tree (its Verilator models are built here on demand), so
# bin/sasim-rtl, installed when built, is a two-line script that runs this tree's sasim-rtl.
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_DOCS := README.md $(filter-out docs/ISA.head.md,$(wildcard docs/*.md)) docs/net.schema.json
.PHONY: install uninstall test-slurm plot-deps
install: $(SASIM) $(SACC)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/sacc/arch $(DESTDIR)$(PREFIX)/share/sacc/nets \
	  $(DESTDIR)$(PREFIX)/share/sacc/sweeps $(DESTDIR)$(PREFIX)/share/doc/sacc
	install -m 755 $(SASIM) $(SACC) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 scripts/sweep $(DESTDIR)$(PREFIX)/bin/sacc-sweep
	install -m 644 workloads/arch/*.json $(DESTDIR)$(PREFIX)/share/sacc/arch/
	install -m 644 workloads/nets/*.json workloads/nets/README.md $(DESTDIR)$(PREFIX)/share/sacc/nets/
	install -m 644 workloads/sweeps/*.json $(DESTDIR)$(PREFIX)/share/sacc/sweeps/
	install -m 644 $(INSTALL_DOCS) $(DESTDIR)$(PREFIX)/share/doc/sacc/
	$(if $(wildcard workloads/energy/*.json),install -d $(DESTDIR)$(PREFIX)/share/sacc/energy && \
	  install -m 644 workloads/energy/*.json $(DESTDIR)$(PREFIX)/share/sacc/energy/)
	@if [ -x $(BUILD)/bin/sasim-rtl ]; then \
	  printf '#!/bin/sh\n# The RTL engine of sasim, built in %s (models are verilated there on demand).\nexec %s "$$@"\n' \
	    "$(CURDIR)" "$(abspath $(BUILD))/bin/sasim-rtl" >$(DESTDIR)$(PREFIX)/bin/sasim-rtl; \
	  chmod 755 $(DESTDIR)$(PREFIX)/bin/sasim-rtl; echo "install: bin/sasim-rtl runs $(abspath $(BUILD))/bin/sasim-rtl"; fi
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,sacc sasim sacc-sweep sasim-rtl)
	rm -rf $(DESTDIR)$(PREFIX)/share/sacc $(DESTDIR)$(PREFIX)/share/doc/sacc

# Not part of make test: installs Slurm and munge (apt-get), starts a private one-node cluster,
# runs workloads/sweeps/tiny.json on it and locally, compares the CSVs (tests/slurm/run.sh).
test-slurm: $(SASIM) $(SACC)
	@sh tests/slurm/run.sh $(BUILD)

plot-deps:
	@/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || sh scripts/install-deps.sh --plot
# make test installs matplotlib too (the plots of scripts/sweep and scripts/compare-dataflows are
# tested); if that fails, those checks say SKIP and make test goes on.
PLOT_DEPS_OK := $(BUILD)/.deps-plot-ok
$(PLOT_DEPS_OK): scripts/install-deps.sh
	@if sh scripts/install-deps.sh --plot; then mkdir -p $(dir $@) && touch $@; \
	 else echo "make: python3-matplotlib is missing: the plot checks will be skipped" >&2; fi
test test-fast: $(PLOT_DEPS_OK)

# Critical paths and the clock (docs/PPA.md, Clock); each installs its tools (scripts/install-deps.sh).
.PHONY: timing fpga
FPGA ?= pe,2x2,2x4,3x3
timing:
	@sh scripts/install-deps.sh --rtl --synth
	@python3 rtl/synth/timing.py --array $(or $(ARRAY),4x4) --out $(BUILD)/timing
fpga:
	@sh scripts/install-deps.sh --fpga
	@python3 rtl/synth/timing_fpga.py --designs $(FPGA) --out $(BUILD)/fpga

-include rtl/rtl.mk

clean:
	rm -rf build build-asan build-fuzz build-bench*

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
