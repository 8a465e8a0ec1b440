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
# jansson and zlib: where pkg-config says (PKG_CONFIG_PATH honoured), else the compiler's default
# paths. Override either, e.g. make JANSSON_CFLAGS=-I$$HOME/.local/include
# JANSSON_LIBS="-L$$HOME/.local/lib -ljansson" (ZLIB_CFLAGS, ZLIB_LIBS alike; README.md, "Building
# and installing without root").
# A library directory given by -L is also the binaries' run path, so they run without LD_LIBRARY_PATH.
PKG_CONFIG ?= pkg-config
# (PKG_CONFIG_PATH given on make's command line counts too: $(shell) would not see it otherwise.)
dep_pc_env = $(if $(filter command line,$(origin PKG_CONFIG_PATH)),PKG_CONFIG_PATH='$(PKG_CONFIG_PATH)')
dep_pc = $(shell $(dep_pc_env) $(PKG_CONFIG) --exists $(1) 2>/dev/null && $(dep_pc_env) $(PKG_CONFIG) $(2) $(1) 2>/dev/null)
ifeq ($(origin JANSSON_CFLAGS),undefined)
JANSSON_CFLAGS := $(strip $(call dep_pc,jansson,--cflags))
endif
ifeq ($(origin JANSSON_LIBS),undefined)
JANSSON_LIBS := $(strip $(or $(call dep_pc,jansson,--libs),-ljansson))
endif
ifeq ($(origin ZLIB_CFLAGS),undefined)
ZLIB_CFLAGS := $(strip $(call dep_pc,zlib,--cflags))
endif
ifeq ($(origin ZLIB_LIBS),undefined)
ZLIB_LIBS := $(strip $(or $(call dep_pc,zlib,--libs),-lz))
endif
comma   := ,
DEP_CFLAGS := $(strip $(JANSSON_CFLAGS) $(ZLIB_CFLAGS))
DEP_RPATH  := $(patsubst -L%,-Wl$(comma)-rpath$(comma)%,$(filter -L%,$(JANSSON_LIBS) $(ZLIB_LIBS)))
LDLIBS  := $(strip $(JANSSON_LIBS) $(ZLIB_LIBS) -lm -pthread $(DEP_RPATH))
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

.PHONY: all deps deps-onnx deps-browser test test-asan test-fast test-hostile test-onnx test-transformers demo docs golden fuzz bench exercises clean help
all: $(SASIM) $(SACC) $(GEN_ISA) $(TESTS) $(CMP_TESTS) $(FUZZ_REPLAY) $(BENCHES)

help:
	@echo "make demo       build, compile ResNet-18 (workloads/nets), simulate it, print the stats"
	@echo "make test       build and run every test (also under ASan+UBSan), TEST_JOBS (default: all processors) at once; last line 'N passed, N failed'"
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
	@echo "make test-transformers  BERT-style encoder, ViT, MobileNetV3-Small, EfficientNet-B0: sacc ref vs torch, sasim vs sacc ref (slow)"
	@echo "make install    PREFIX=/usr/local (and DESTDIR; PREFIX=~/.local needs no root): tools, RTL models, arches, nets, asm, docs, exercises"
	@echo "make test-slurm a sweep on a one-node Slurm cluster of this machine (installs Slurm; docs/SWEEP.md)"
	@echo "make plot-deps  python3-matplotlib, for the plots of scripts/sweep"
	@echo "make deps-browser  chromium and chromium-driver, for the browser checks of sasim run --view"

# System packages (zlib, jansson): installed by apt-get when root, else the exact command is shown.
# Found through pkg-config or the overrides above, they need no root and no apt-get.
$(DEPS_OK): scripts/install-deps.sh
	@CC='$(CC)' JANSSON_CFLAGS='$(JANSSON_CFLAGS)' JANSSON_LIBS='$(JANSSON_LIBS)' ZLIB_CFLAGS='$(ZLIB_CFLAGS)' \
	  ZLIB_LIBS='$(ZLIB_LIBS)' sh scripts/install-deps.sh
	@mkdir -p $(dir $@) && touch $@
deps: $(DEPS_OK)

$(BUILD)/%.o: %.c $(DEPS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(DEP_CFLAGS) -MMD -MP -c $< -o $@

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
	$(CC) $(WARN) $(CFLAGS) $(DEP_CFLAGS) -x c -c $< -o $@

docs: $(GEN_ISA)
	$(GEN_ISA) doc docs/ISA.head.md > docs/ISA.md.tmp && mv docs/ISA.md.tmp docs/ISA.md
	$(GEN_ISA) sv > rtl/sa_isa_pkg.sv.tmp && mv rtl/sa_isa_pkg.sv.tmp rtl/sa_isa_pkg.sv

test-fast: all
	@sh tests/run.sh $(BUILD)

# The suite twice: plain, then under AddressSanitizer + UBSan (build-asan/). One summary line.
# TEST_JOBS (default: the processors online) at once, even under a plain `make test`: first the
# plain and the sanitizer builds side by side (each target's output in one piece); then the RTL
# models (make rtl, its lines in BUILD/test-rtl.status.log, printed by tests/run.sh) while
# tests/run.sh runs the sanitizer build's entries, whose results wait, like the plain build's
# entries, for the models (SA_TEST_READY). docs/TESTING.md "Wall time". TEST_JOBS=1: one at a time.
TEST_JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
test:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) -Otarget test-builds
	@r=$(BUILD)/test-rtl.status; rm -f $$r $$r.log; \
	  { $(MAKE) --no-print-directory rtl >$$r.log 2>&1; echo $$? >$$r.tmp; mv $$r.tmp $$r; } & \
	  SA_TEST_READY=$$r SA_TEST_JOBS=$(TEST_JOBS) sh tests/run.sh $(BUILD) build-asan; s=$$?; wait; exit $$s
.PHONY: test-builds test-asan-build
# (sasim-rtl and gen_randprog, rtl/rtl.mk's, by name: rtl.mk is included below.)
test-builds: all $(BUILD)/bin/sasim-rtl $(BUILD)/tests/rtl/gen_randprog test-asan-build
test-asan-build:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 CFLAGS="-O1 -g $(SAN)" all

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
	@sh bench/scalesim-speed
	@BUILD=$(BUILD) sh bench/compile
	@BUILD=$(BUILD) sh bench/targets
	@BUILD=$(BUILD) sh bench/batch
	@BUILD=$(BUILD) sh bench/conv1

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

# The big networks of the special-function unit's ops (issue 16): a 4-layer BERT-style encoder,
# a ViT-style classifier, MobileNetV3-Small and EfficientNet-B0 through onnx2net and sacc ref,
# with the per-layer SQNR table, then compiled and run in sasim against sacc ref
# (tests/onnx/sfu_models.py; the small ones run in make test).
test-transformers: $(SACC) $(SASIM)
	@sh scripts/install-deps.sh --onnx --torch
	@/usr/bin/python3 tests/onnx/sfu_models.py $(BUILD) --big --table

# Installed tree (relocatable, self-contained: nothing in it refers back to this source tree):
#   bin/{sacc,sasim,sacc-sweep,sacc-grade}, and sasim-rtl when built (make rtl);
#   libexec/sacc/rtl[-vcd]/<config>/: every Verilator model built in $(BUILD), which sasim-rtl
#     finds there (rtl/harness/dispatch.cpp; build more with make rtl-model ARCH=..., then install);
#   share/sacc/{arch,nets,sweeps,energy,asm}: arch files (--arch NAME finds them), networks,
#     sweep specs, the energy table, the hand-written programs of workloads/asm;
#   share/doc/sacc/: README.md, docs/*.md, and exercises/ (docs/exercises with its files).
# sacc-sweep finds its tools and data relative to itself (docs/SWEEP.md), sacc-grade the sasim
# beside it (docs/GRADING.md). No root needed with a
# PREFIX of your own: make install PREFIX=~/.local.
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_DOCS := README.md $(filter-out docs/ISA.head.md,$(wildcard docs/*.md)) docs/net.schema.json
I_BIN   := $(DESTDIR)$(PREFIX)/bin
I_SHARE := $(DESTDIR)$(PREFIX)/share/sacc
I_DOC   := $(DESTDIR)$(PREFIX)/share/doc/sacc
I_LIBEXEC := $(DESTDIR)$(PREFIX)/libexec/sacc
.PHONY: install uninstall test-slurm plot-deps
install: $(SASIM) $(SACC)
	install -d $(I_BIN) $(I_SHARE)/arch $(I_SHARE)/nets $(I_SHARE)/sweeps $(I_SHARE)/asm $(I_DOC)
	install -m 755 $(SASIM) $(SACC) $(I_BIN)/
	install -m 755 scripts/sweep $(I_BIN)/sacc-sweep
	install -m 755 scripts/grade $(I_BIN)/sacc-grade
	install -m 644 workloads/arch/*.json $(I_SHARE)/arch/
	install -m 644 workloads/nets/*.json workloads/nets/README.md $(I_SHARE)/nets/
	install -m 644 workloads/sweeps/*.json $(I_SHARE)/sweeps/
	install -m 644 workloads/asm/* $(I_SHARE)/asm/
	install -m 644 $(INSTALL_DOCS) $(I_DOC)/
	$(if $(wildcard workloads/energy/*.json),install -d $(I_SHARE)/energy && \
	  install -m 644 workloads/energy/*.json $(I_SHARE)/energy/)
	@cd docs && find exercises -type d | while read -r d; do install -d "$(I_DOC)/$$d" || exit 1; done && \
	  find exercises -type f ! -name '*.pyc' | while read -r f; do \
	    install -m 644 "$$f" "$(I_DOC)/$$f" || exit 1; done && \
	  echo "install: share/doc/sacc/exercises: $$(find exercises -type f ! -name '*.pyc' | wc -l) files"
	@rm -f $(I_BIN)/sasim-rtl; rm -rf $(I_LIBEXEC)
	@if [ -x $(BUILD)/bin/sasim-rtl ]; then \
	  install -m 755 $(BUILD)/bin/sasim-rtl $(I_BIN)/ && install -d $(I_LIBEXEC) || exit 1; n=0; \
	  for m in $(BUILD)/rtl/*/sasim-rtl-model $(BUILD)/rtl-vcd/*/sasim-rtl-model; do \
	    [ -x "$$m" ] || continue; c=$${m%/sasim-rtl-model}; k=$${c%/*}; \
	    install -d "$(I_LIBEXEC)/$${k##*/}/$${c##*/}" && install -m 755 "$$m" "$(I_LIBEXEC)/$${k##*/}/$${c##*/}/" || exit 1; \
	    n=$$((n + 1)); done; \
	  echo "install: bin/sasim-rtl and $$n RTL models in libexec/sacc (--engine rtl; more: make rtl-model ARCH=..., then make install)"; \
	else echo "install: no RTL engine (sasim --engine rtl): make rtl first, then make install"; fi
uninstall:
	rm -f $(addprefix $(I_BIN)/,sacc sasim sacc-sweep sacc-grade sasim-rtl)
	rm -rf $(I_SHARE) $(I_DOC) $(I_LIBEXEC)

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
