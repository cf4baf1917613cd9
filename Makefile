# plumb - one Makefile, flags in named groups (docs/ARCHITECTURE.md).
#   make            build ./plumb
#   make check      unit tests (CUnit) + golden CLI runs, under a minute
#   make SANITIZE=address,undefined check     sanitizer build
#   make V=1        show commands
CC      ?= cc
PKGS    := gsl yaml-0.1 cairo fontconfig jansson libxml-2.0 cunit
STD     := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wvla -Wformat=2 -Wpointer-arith -Wcast-qual -Wwrite-strings \
           -Wundef -Wno-unused-parameter
OPT     ?= -O2 -g
INC     := -Iio -Icli -Isim -Irender $(addprefix -I,$(wildcard models/*)) -Ibuild
PKGCFLAGS := $(shell pkg-config --cflags $(PKGS))
PKGLIBS := $(shell pkg-config --libs gsl yaml-0.1 cairo fontconfig jansson libxml-2.0)
CUNITLIBS := $(shell pkg-config --libs cunit)
ifneq ($(SANITIZE),)
SANFLAGS := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
CFLAGS  += $(STD) $(WARN) $(OPT) $(INC) $(PKGCFLAGS) $(SANFLAGS) -MMD -MP
LDLIBS  += $(PKGLIBS) -lm -pthread
LDFLAGS += $(SANFLAGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

B := build
# MPI=1: `plumb sweep` across MPI ranks (models/sweep/mpi.c), compiled with
# mpicc into build-mpi/ and linked as ./plumb-mpi; ./plumb is left alone
ifeq ($(MPI),1)
B  := build-mpi
CC := mpicc
CFLAGS += -DPLUMB_MPI
.DEFAULT_GOAL := plumb-mpi
endif
LIBSRC  := $(wildcard io/*.c models/*/*.c sim/*.c render/*.c) $(filter-out cli/main.c,$(wildcard cli/*.c))
GENSRC  := $(B)/catalog_gpus.c $(B)/catalog_models.c $(B)/catalog_engines.c
LIBOBJ  := $(patsubst %.c,$(B)/%.o,$(LIBSRC)) $(B)/catalog_gpus.o $(B)/catalog_models.o \
	   $(B)/catalog_engines.o
MAINOBJ := $(B)/cli/main.o
TESTSRC := $(wildcard tests/unit/*.c)
TESTOBJ := $(patsubst %.c,$(B)/%.o,$(TESTSRC))
# slower tiers: sanitizer and fuzz builds live in their own directories
ASAN_B  := build-asan
FUZZ_B  := build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 30
FUZZ_JOBS ?= 1
FUZZ_SEED ?= 0
FUZZNAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAY  := $(addprefix $(B)/replay/,$(FUZZNAMES))

all: plumb

plumb: $(LIBOBJ) $(MAINOBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(B)/catalog_gpus.c: scenarios/catalog/gpus.yaml scripts/embed.sh
	@mkdir -p $(B)
	$(Q)sh scripts/embed.sh scn_catalog_gpus_yaml $< > $@.tmp && mv $@.tmp $@

$(B)/catalog_gpus.o: $(B)/catalog_gpus.c
	@echo "  CC    $<"
	$(Q)$(CC) $(STD) $(OPT) -c -o $@ $<

$(B)/catalog_models.c: scenarios/catalog/models.yaml scripts/embed.sh
	@mkdir -p $(B)
	$(Q)sh scripts/embed.sh llm_catalog_models_yaml $< > $@.tmp && mv $@.tmp $@

$(B)/catalog_models.o: $(B)/catalog_models.c
	@echo "  CC    $<"
	$(Q)$(CC) $(STD) $(OPT) -c -o $@ $<

$(B)/catalog_engines.c: scenarios/catalog/engines.yaml scripts/embed.sh
	@mkdir -p $(B)
	$(Q)sh scripts/embed.sh scn_catalog_engines_yaml $< > $@.tmp && mv $@.tmp $@

$(B)/catalog_engines.o: $(B)/catalog_engines.c
	@echo "  CC    $<"
	$(Q)$(CC) $(STD) $(OPT) -c -o $@ $<

$(B)/unit-tests: $(LIBOBJ) $(TESTOBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CUNITLIBS)

check: plumb $(B)/unit-tests $(REPLAY)
	$(B)/unit-tests
	sh tests/golden/run.sh
	sh tests/docs_examples.sh
	sh tests/doc_links.sh
	sh tests/calib_seed.sh
	sh tests/import_roundtrip.sh
	sh tests/import_xml.sh
	sh scripts/gen-constants-doc.sh --check
	sh tests/bad_inputs.sh
	sh tests/repeat.sh
	sh tests/output_safety.sh
	sh tests/limits.sh
	sh tests/install.sh
	sh tests/replay.sh
	sh tests/chunk_buckets.sh
	sh tests/replicas.sh
	sh tests/plan.sh
	sh tests/kvtier.sh
	sh tests/disagg.sh
	sh tests/fuzz/replay.sh $(B)
	sh tests/report_browser.sh
	sh tests/render_layout.sh

golden-update: plumb
	sh tests/golden/run.sh --update

clean:
	rm -rf $(B) $(ASAN_B) $(FUZZ_B) plumb

# make install PREFIX=DIR: DIR/bin/plumb and its data in DIR/share/plumb (the
# bundled scenarios, catalogs and grids; tests/data/hf as models/hf), which an
# installed plumb finds from its own path (io/datadir.c), from any directory.
# scripts/install.sh does the work with PREFIX and DESTDIR from the
# environment (never pasted into a shell line, so spaces and quotes are
# safe); install lists what it wrote in DIR/share/plumb/install-manifest and
# uninstall removes exactly that.
PREFIX  ?= /usr/local
export PREFIX DESTDIR
install: plumb
	sh scripts/install.sh install

uninstall:
	sh scripts/install.sh uninstall

# engine, prediction and sweep speed: bench/*.csv, and the figures with the
# machine they ran on into docs/performance.md (scripts/bench-report.sh);
# a few minutes, less with SWEEP_QUICK=1 (no 10,000-point sweep)
bench: plumb $(B)/bench-closed
	@mkdir -p bench
	load=$$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true); \
	./plumb bench --format csv -o bench/results.csv && cat bench/results.csv && \
	sh scripts/bench-predict.sh && sh scripts/bench-serve.sh && sh scripts/bench-sweep.sh && sh scripts/bench-cluster.sh && sh scripts/bench-closed.sh && \
	sh scripts/bench-flow.sh && \
	LOAD_BEFORE="$$load" sh scripts/bench-report.sh

docs-constants: plumb
	sh scripts/gen-constants-doc.sh

validate: plumb
	./plumb validate validation/cases.yaml --cross --check-fits -o docs/validation.md --points $(B)/points.csv
	sh validation/coverage.sh $(B)/points.csv > $(B)/coverage.md && cat $(B)/coverage.md >> docs/validation.md
	sh validation/loo-serving.sh $(B)/points.csv > $(B)/loo.md && cat $(B)/loo.md >> docs/validation.md
	sh validation/prefill-check.sh > $(B)/prefill.md && cat $(B)/prefill.md >> docs/validation.md
	sh validation/calib-nvlink.sh > $(B)/calib-nvlink.md && cat $(B)/calib-nvlink.md >> docs/validation.md

# ---- slower tiers (docs/testing.md) --------------------------------------
# check-asan: an ASan+UBSan build in $(ASAN_B)/ (never mixed with build/)
# running the unit tests, the CLI suites and the fuzz regressions;
# check-valgrind: memcheck over the CLI suites; fuzz: each libFuzzer target
# of tests/fuzz/ for FUZZ_SECONDS seconds, built with clang in $(FUZZ_B)/.

$(B)/plumb: $(LIBOBJ) $(MAINOBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the closed form's cost against ranks (scripts/bench-closed.sh)
$(B)/bench-closed: $(B)/tests/bench/bench_closed.o $(LIBOBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# a fuzz target's input replayed without libFuzzer (tests/fuzz/replay.c)
$(B)/replay/%: $(B)/tests/fuzz/%.o $(B)/tests/fuzz/replay.o $(LIBOBJ)
	@mkdir -p $(dir $@)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/fuzz/%: $(B)/tests/fuzz/%.o $(LIBOBJ)
	@mkdir -p $(dir $@)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

.SECONDARY: $(patsubst %,$(B)/tests/fuzz/%.o,$(FUZZNAMES) replay)

check-asan:
	$(MAKE) B=$(ASAN_B) SANITIZE=address,undefined $(ASAN_B)/plumb \
		$(ASAN_B)/unit-tests $(addprefix $(ASAN_B)/replay/,$(FUZZNAMES))
	sh tests/check_asan.sh $(ASAN_B)

check-valgrind: plumb
	sh tests/check_valgrind.sh ./plumb

# check-resume: sweeps killed at 100 random points while resuming, the
# rewrite of FILE.partial included, end byte-identical (about a minute)
check-resume: plumb
	sh tests/resume_kill.sh

# check-limits: inputs at and just past every documented limit, each under
# 2 GB and 20 s (tests/limits_tier.sh), on ./plumb and on the ASan+UBSan
# build; under a minute on both
check-limits: plumb
	sh tests/limits_tier.sh
	$(MAKE) B=$(ASAN_B) SANITIZE=address,undefined $(ASAN_B)/plumb
	SAN=1 PLUMB=$(ASAN_B)/plumb sh tests/limits_tier.sh

fuzz-build:
	$(MAKE) B=$(FUZZ_B) CC=$(FUZZ_CC) SANITIZE=fuzzer-no-link,address,undefined \
		$(addprefix $(FUZZ_B)/fuzz/,$(FUZZNAMES))

fuzz: fuzz-build
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_SEED=$(FUZZ_SEED) sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_SECONDS)

# sweeps across MPI ranks: byte-identical to one process (tests/mpi_sweep.sh)
plumb-mpi: $(LIBOBJ) $(MAINOBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

check-mpi: plumb
	$(MAKE) MPI=1 plumb-mpi
	sh tests/mpi_sweep.sh

.PHONY: all check clean golden-update docs-constants validate bench install uninstall
.PHONY: plumb-mpi check-mpi
.PHONY: check-asan check-valgrind check-resume check-limits fuzz fuzz-build
# the pictures in docs/figures (docs/tutorial-pcie-iommu.md); not part of check
docs: plumb
	sh scripts/gen-figures.sh

.PHONY: docs
# mutation testing: source mutations, the fast tests on each, the score
# (tests/mutate.sh, docs/testing.md); about 8 minutes, not part of check
mutate:
	sh tests/mutate.sh

.PHONY: mutate
-include $(shell find $(B) -name '*.d' 2>/dev/null)
