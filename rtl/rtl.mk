# rtl.mk: the RTL model (rtl/*.sv) built by Verilator, its harness, lint and tests. Included by
# the Makefile. One model per arch configuration (array size, memory rows, bus width, queues...),
# cached in $(BUILD)/rtl/<config>/; $(BUILD)/bin/sasim-rtl picks the model of a program's arch.
#   make rtl        sasim-rtl and the models of $(RTL_ARCHS) (what the tests use)
#   make rtl-model RTL_CONFIG=<config>   one model (sasim-rtl runs this for a new arch)
#   make lint-rtl   verilator --lint-only -Wall over sa_top in a few configurations

VERILATOR   ?= verilator
CXX         ?= c++
RTL_SV      := rtl/sa_isa_pkg.sv rtl/sa_pkg.sv $(filter-out rtl/sa_isa_pkg.sv rtl/sa_pkg.sv,$(wildcard rtl/sa_*.sv))
RTL_MODEL_CPP := rtl/harness/rtl_engine.cpp rtl/harness/model_main.cpp
RTL_HDRS    := $(wildcard rtl/harness/*.h)
SASIM_RTL   := $(BUILD)/bin/sasim-rtl
RTL_ARCHS   ?= workloads/arch/tiny.json workloads/arch/default.json tests/rtl/arch_2x2.json
RTL_DEPS_OK := $(BUILD)/.deps-rtl-ok
RTL_TOOLS   := $(BUILD)/tests/rtl/gen_randprog
# -O3 on Verilator's side; the C++ is compiled -O2 (the model's C++ dominates build time).
RTL_VFLAGS  := --cc --exe --build -O3 -j 2 --x-assign fast --x-initial 0 --top-module sa_top \
               -Wno-fatal -Wno-lint -Wno-style rtl/lint.vlt

.PHONY: rtl rtl-model lint-rtl test-long

# Verilator (scripts/install-deps.sh --rtl installs it when missing, as the base deps step does).
$(RTL_DEPS_OK): scripts/install-deps.sh
	@sh scripts/install-deps.sh --rtl
	@mkdir -p $(dir $@) && touch $@

$(SASIM_RTL): rtl/harness/dispatch.cpp $(RTL_HDRS) $(SIM_LIB) $(ISA_LIB) | $(RTL_DEPS_OK)
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -DSA_REPO_ROOT='"$(CURDIR)"' rtl/harness/dispatch.cpp \
	  $(SIM_LIB) $(ISA_LIB) -o $@ $(LDLIBS)

$(BUILD)/rtl/%/sasim-rtl-model: $(RTL_SV) $(RTL_MODEL_CPP) $(RTL_HDRS) rtl/lint.vlt rtl/config.sh $(SIM_LIB) $(ISA_LIB) | $(RTL_DEPS_OK)
	@mkdir -p $(@D)
	@echo "rtl: verilating the model $* ..." >&2
	@t0=$$(date +%s); \
	$(VERILATOR) $(RTL_VFLAGS) $$(sh rtl/config.sh $*) -Mdir $(@D)/obj $(RTL_SV) $(abspath $(RTL_MODEL_CPP)) \
	  -CFLAGS "-O2 -std=c++17" -LDFLAGS "$(abspath $(SIM_LIB)) $(abspath $(ISA_LIB)) $(LDLIBS)" \
	  -o $(abspath $@) >$(@D)/build.log 2>&1 || { tail -n 30 $(@D)/build.log >&2; exit 1; }; \
	echo "rtl: model $* built in $$(( $$(date +%s) - t0 )) s" >&2

rtl-model: $(BUILD)/rtl/$(RTL_CONFIG)/sasim-rtl-model

rtl: $(SASIM) $(SASIM_RTL) $(RTL_TOOLS)
	@for a in $(RTL_ARCHS); do \
	  k=$$($(SASIM_RTL) --config-key $$a) || exit 1; \
	  $(MAKE) --no-print-directory BUILD=$(BUILD) rtl-model RTL_CONFIG=$$k || exit 1; \
	done

lint-rtl: | $(RTL_DEPS_OK)
	@sh tests/rtl/lint.sh

# make test and make test-fast build the models (plain build only: tests/run.sh runs the RTL
# tests where sasim-rtl exists, never in build-asan).
test test-fast: rtl

test-long: all rtl
	@SA_RTL_RANDOM=10000 sh tests/rtl/rtl.sh $(BUILD)
