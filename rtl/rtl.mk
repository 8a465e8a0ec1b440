# rtl.mk: the RTL model (rtl/*.sv) built by Verilator, its harness, lint and tests. Included by
# the Makefile. One model per arch configuration (array size, memory rows, bus width, queues...),
# cached in $(BUILD)/rtl/<config>/; $(BUILD)/bin/sasim-rtl picks the model of a program's arch.
#   make rtl        sasim-rtl and the models of $(RTL_ARCHS) and $(RTL_VCD_ARCHS) (what the tests use)
#   make rtl-model ARCH=<arch.json> (or RTL_CONFIG=<config>)   one model: the explicit step before
#                   sasim --engine rtl on a new arch (size guard and lock: rtl/build-model.sh)
#   make rtl-model-vcd ARCH=... (or RTL_CONFIG=...)   its traced variant (--vcd), in $(BUILD)/rtl-vcd/
#   make rtl-model-broken RTL_CONFIG=<config>   one with a planted assertion violation (tests)
#   make lint-rtl   verilator --lint-only -Wall over sa_top in a few configurations
#   make synth [ARRAY=RxC]   yosys: cell counts and transistor estimates of sa_pe, an RxC sa_array
#                   (default 4x4) and sa_requant, then one JSON line (rtl/synth/synth.sh)

VERILATOR   ?= verilator
CXX         ?= c++
RTL_SV      := rtl/sa_isa_pkg.sv rtl/sa_pkg.sv $(filter-out rtl/sa_isa_pkg.sv rtl/sa_pkg.sv,$(wildcard rtl/sa_*.sv))
RTL_SVH     := $(wildcard rtl/*.svh)
# rtl/sa_vl_stop.cpp: $stop (a failed assertion) exits with status 1 instead of Verilator's abort().
RTL_MODEL_CPP := rtl/harness/rtl_engine.cpp rtl/harness/model_main.cpp rtl/sa_vl_stop.cpp
RTL_HDRS    := $(wildcard rtl/harness/*.h)
SASIM_RTL   := $(BUILD)/bin/sasim-rtl
RTL_ARCHS   ?= workloads/arch/tiny.json workloads/arch/small.json workloads/arch/default.json tests/rtl/arch_2x2.json \
               tests/rtl/arch_tiny_sfu.json tests/rtl/arch_sfu_2x2.json tests/rtl/arch_sfu_3lane.json tests/rtl/arch_gbuf.json
# The traced (--vcd) models make rtl builds too, for tests/rtl/vcd.sh; others build on demand.
RTL_VCD_ARCHS ?= workloads/arch/tiny.json
RTL_DEPS_OK := $(BUILD)/.deps-rtl-ok
RTL_TOOLS   := $(BUILD)/tests/rtl/gen_randprog
# -O3 on Verilator's side. Verilator's own makefile compiles the model with -Os (OPT_FAST,
# OPT_GLOBAL), after and so over any -CFLAGS; -O3 for the per-cycle code and -O2 for its runtime
# make the model 1.35 times faster (docs/RTL.md, "Speed") for about the same build time.
# --threads 2 makes it 2.7 times slower (a cycle is too little work to share), so it is not used.
# --assert: every model checks the assertions (rtl/sa_assert.svh); -Irtl finds that file.
# -Werror-USERFATAL: an elaboration-time $fatal (a unit that does not decode every opcode
# isa/isa_ops.def routes to it) stops the build; -Wno-fatal would let it through as a warning.
RTL_VFLAGS  := --cc --exe --build -O3 -j 2 --x-assign fast --x-initial 0 --top-module sa_top --assert -Irtl \
               -MAKEFLAGS "OPT_FAST=-O3 OPT_GLOBAL=-O2" -Wno-fatal -Wno-lint -Wno-style -Werror-USERFATAL rtl/lint.vlt

.PHONY: rtl rtl-model rtl-model-vcd rtl-model-broken lint-rtl test-long synth

# Verilator, and yosys for the synthesis smoke test (scripts/install-deps.sh installs them when
# missing, as the base deps step does), so that every RTL test runs on a fresh machine.
$(RTL_DEPS_OK): scripts/install-deps.sh
	@sh scripts/install-deps.sh --rtl --synth
	@mkdir -p $(dir $@) && touch $@

$(SASIM_RTL): rtl/harness/dispatch.cpp $(RTL_HDRS) $(SIM_LIB) $(ISA_LIB) | $(RTL_DEPS_OK)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Wswitch-enum -Werror -DSA_REPO_ROOT='"$(CURDIR)"' rtl/harness/dispatch.cpp \
	  $(SIM_LIB) $(ISA_LIB) -o $@ $(LDLIBS)

RTL_MODEL_PREREQS := $(RTL_SV) $(RTL_SVH) $(RTL_MODEL_CPP) $(RTL_HDRS) rtl/lint.vlt rtl/config.sh rtl/rtl.mk $(SIM_LIB) $(ISA_LIB)
# $(1): extra Verilator options, $(2): what the progress lines call the model. The old binary
# goes first: Verilator's own makefile does not know the model links $(SIM_LIB) and $(ISA_LIB),
# and would keep a binary linked with the old C engine.
define rtl_model_recipe
	@mkdir -p $(@D)
	@echo "rtl: verilating the $(2) $* ..." >&2
	@t0=$$(date +%s); \
	rm -f $@; \
	$(VERILATOR) $(RTL_VFLAGS) $(1) $$(sh rtl/config.sh $*) -Mdir $(@D)/obj $(RTL_SV) $(abspath $(RTL_MODEL_CPP)) \
	  -CFLAGS "-O2 -std=c++17 -Wswitch-enum -DVL_USER_STOP" -LDFLAGS "$(abspath $(SIM_LIB)) $(abspath $(ISA_LIB)) $(LDLIBS)" \
	  -o $(abspath $@) >$(@D)/build.log 2>&1 || { tail -n 30 $(@D)/build.log >&2; exit 1; }; \
	echo "rtl: $(2) $* built in $$(( $$(date +%s) - t0 )) s" >&2
endef

$(BUILD)/rtl/%/sasim-rtl-model: $(RTL_MODEL_PREREQS) | $(RTL_DEPS_OK)
	$(call rtl_model_recipe,,model)

# The traced variant: Verilator --trace (structs as separate fields), only for --vcd.
$(BUILD)/rtl-vcd/%/sasim-rtl-model: $(RTL_MODEL_PREREQS) | $(RTL_DEPS_OK)
	$(call rtl_model_recipe,--trace --trace-structs,traced model)

# A model with a planted assertion violation (sa_top's TestPushWhenFull), for tests/rtl/assert.sh.
$(BUILD)/rtl-broken/%/sasim-rtl-model: $(RTL_MODEL_PREREQS) | $(RTL_DEPS_OK)
	$(call rtl_model_recipe,-GTestPushWhenFull=1,model with a planted violation)

rtl-model: $(SASIM_RTL)
	@sh rtl/build-model.sh "$(MAKE)" "$(BUILD)" rtl "$(ARCH)" "$(RTL_CONFIG)"

rtl-model-vcd: $(SASIM_RTL)
	@sh rtl/build-model.sh "$(MAKE)" "$(BUILD)" rtl-vcd "$(ARCH)" "$(RTL_CONFIG)"

rtl-model-broken: $(BUILD)/rtl-broken/$(RTL_CONFIG)/sasim-rtl-model

rtl: $(SASIM) $(SASIM_RTL) $(RTL_TOOLS)
	@for a in $(RTL_ARCHS); do \
	  k=$$($(SASIM_RTL) --config-key $$a) || exit 1; \
	  $(MAKE) --no-print-directory BUILD=$(BUILD) rtl-model RTL_CONFIG=$$k || exit 1; \
	done
	@for a in $(RTL_VCD_ARCHS); do \
	  k=$$($(SASIM_RTL) --config-key $$a) || exit 1; \
	  $(MAKE) --no-print-directory BUILD=$(BUILD) rtl-model-vcd RTL_CONFIG=$$k || exit 1; \
	done

lint-rtl: | $(RTL_DEPS_OK)
	@sh tests/rtl/lint.sh

# yosys (scripts/install-deps.sh --rtl --synth installs it). make test only runs the PE through
# the same scripts (tests/rtl/synth.sh).
ARRAY ?= 4x4
RTL_SYNTH_DEPS_OK := $(BUILD)/.deps-synth-ok
$(RTL_SYNTH_DEPS_OK): scripts/install-deps.sh
	@sh scripts/install-deps.sh --rtl --synth
	@mkdir -p $(dir $@) && touch $@

synth: | $(RTL_SYNTH_DEPS_OK)
	@sh rtl/synth/synth.sh $(ARRAY) $(BUILD)/synth

# make test and make test-fast build the models (plain build only: tests/run.sh runs the RTL
# tests where sasim-rtl exists, never in build-asan); make test through its test-builds, beside
# the sanitizer build (Makefile).
test-fast: rtl

test-long: all rtl
	@SA_RTL_RANDOM=10000 sh tests/rtl/rtl.sh $(BUILD)
