# dyliberator - top-level build.  `make demo` and `make test` are all a newcomer needs.
SHELL := /bin/bash
PY ?= /usr/bin/python3
CC ?= cc
PREFIX ?= /usr/local
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter
B := build
# The one version string (VERSION): --version, the JSON outputs, the man pages
VERSION := $(shell cat VERSION)

# Debian packages the project needs (build, run, test).  `make deps` installs them.
DEB_PACKAGES := gcc make python3 python3-clang-14 libclang1-14 python3-jinja2 \
	python3-pyelftools python3-pytest libpapi-dev papi-tools libunwind-dev libdw-dev \
	libblas3 libblas-dev liblapack3 libssl-dev openssl libjpeg-turbo-progs libjpeg-dev \
	libopenblas0-serial libopenblas0-pthread clang-14 libclang-rt-14-dev graphviz \
	zlib1g-dev pigz libfftw3-dev python3-numpy python3-scipy python3-pytest-xdist \
	chromium help2man bash-completion openmpi-bin libopenmpi-dev

# What the benchmarks compare against and use (make bench installs them)
BENCH_PACKAGES := uftrace ltrace bc heaptrack valgrind python3-numpy

# runtime/*.c is the core; each feature has a folder of its own (runtime/regions/, ...);
# runtime/format/ is the spool format, compiled into the runtime and into the tools.
# The runtime's start-up order is runtime/start.c's, whatever the link order.
FMT_SRC := $(wildcard runtime/format/*.c)
RT_SRC := $(wildcard runtime/*.c runtime/*/*.c)
RT_HDR := $(wildcard runtime/include/*.h runtime/*.h runtime/*/*.h)
# The tools: speedup/dyl-NAME/ holds bin/dyl-NAME's own files (main.c and its parts);
# speedup/lib/ the library they share, a folder per subsystem (flow/, model/,
# resid/, trace/, util/); TOOL_FORMAT_SRC the spool decoder and CSV rows they share with
# the runtime (runtime/format/), and the format's reader of traces (runtime/format/read/:
# compiled into the tools only, never into libdylrt.so).  Includes are by bare name
# ("grow.h"): TOOL_INC names every folder.
COMMANDS := $(patsubst speedup/%/main.c,bin/%,$(wildcard speedup/dyl-*/main.c))
TOOL_LIB_SRC := $(wildcard speedup/lib/*.c speedup/lib/*/*.c)
TOOL_READ_SRC := $(wildcard runtime/format/read/*.c)
TOOL_FORMAT_SRC := $(FMT_SRC) $(TOOL_READ_SRC)
TOOL_SRC = $(wildcard speedup/$(1)/*.c) $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC)
TOOL_INC := $(patsubst %/,-I%,$(sort $(dir $(TOOL_LIB_SRC))) $(sort $(dir $(TOOL_FORMAT_SRC)))) \
	-Iruntime/include
# libdw: the tools name a TRACE.flow's addresses offline (speedup/lib/flow/flow_syms.c); zlib: -o FILE.gz (gzout.c)
TOOL_LIBS := -lm -ldw -lelf -lz
TOOL_HDR := $(wildcard speedup/*/*.h speedup/lib/*/*.h runtime/format/*.h runtime/format/*/*.h)

.PHONY: all deps install-packages runtime test check demo bench validate accuracy install clean \
	fuzz fuzz-build tool-inc tool-libs man

all: runtime $(COMMANDS)

deps: $(B)/.deps
# (again when the Makefile changes: a package may have been added)
$(B)/.deps: Makefile
	@$(MAKE) -s install-packages PACKAGES="$(DEB_PACKAGES)"
	@touch $@

# Installs the Debian packages of PACKAGES that are missing (apt-get; root or sudo).
install-packages:
	@mkdir -p $(B)
	@missing=$$(dpkg-query -W -f='$${Package} $${Status}\n' $(PACKAGES) 2>/dev/null \
		| awk '$$NF=="installed"{print $$1}' | sort | comm -13 - <(tr ' ' '\n' <<<"$(PACKAGES)" | grep . | sort)); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

# make DEBUG=1: the runtime with its invariants checked (DYL_ASSERT, runtime/internal.h);
# a stamp file per mode rebuilds it when the mode changes.
RT_MODE := $(if $(DEBUG),debug,release)
RT_DEBUG := $(if $(DEBUG),-DDYL_DEBUG)
$(B)/.rt-$(RT_MODE): | $(B)/.deps
	@rm -f $(B)/.rt-*; touch $@

runtime: $(B)/libdylrt.so
$(B)/libdylrt.so: $(RT_SRC) $(RT_HDR) $(B)/.rt-$(RT_MODE) | $(B)/.deps
	$(CC) $(CFLAGS) $(RT_DEBUG) $(WARN) -std=gnu11 -fPIC -shared -fvisibility=hidden \
		-Iruntime/include -Iruntime -Iruntime/format -Wl,-soname,libdylrt.so -o $@ $(RT_SRC) -ldl -lpthread

# The C commands over traces and models.  Each source is compiled once, into an object
# under build/tools/ (its path mirrored); the shared ones (TOOL_LIB_SRC, TOOL_FORMAT_SRC)
# go into one archive, build/libdyltools.a.  bin/dyl-NAME links speedup/dyl-NAME/'s
# objects with it.  -MMD: an object is rebuilt when a header it includes changes.
TOOL_OBJ = $(patsubst %.c,$(B)/tools/%.o,$(1))
TOOL_ARCHIVE := $(B)/libdyltools.a
TOOL_ARCHIVE_SRC := $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC)
-include $(wildcard $(B)/tools/*/*.d $(B)/tools/*/*/*.d $(B)/tools/*/*/*/*.d)

$(B)/tools/%.o: %.c | $(B)/.deps
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -std=gnu11 $(TOOL_INC) -MMD -MP -c -o $@ $<

# cli.c says the version (--version, JSON): rebuilt when VERSION changes
$(B)/tools/speedup/lib/util/cli.o: VERSION
$(B)/tools/speedup/lib/util/cli.o: override CFLAGS += -DDYL_VERSION='"$(VERSION)"'

# (kept: make would delete the commands' objects as intermediate files, and rebuild
# them all at the next change)
.SECONDARY: $(call TOOL_OBJ,$(wildcard speedup/dyl-*/*.c))

$(TOOL_ARCHIVE): $(call TOOL_OBJ,$(TOOL_ARCHIVE_SRC))
	@rm -f $@
	$(AR) rcs $@ $^

.SECONDEXPANSION:
bin/dyl-%: $$(call TOOL_OBJ,$$(wildcard speedup/dyl-$$*/*.c)) $(TOOL_ARCHIVE)
	$(CC) $(CFLAGS) -o $@ $(call TOOL_OBJ,$(wildcard speedup/dyl-$*/*.c)) $(TOOL_ARCHIVE) $(TOOL_LIBS)

# What a tool is built from, for the tests that build it their own way
# (make -s tool-src-dyl-trace; make -s tool-inc; make -s tool-libs)
tool-src-%:
	@echo $(call TOOL_SRC,$*)
tool-inc:
	@echo $(TOOL_INC)
tool-libs:
	@echo $(TOOL_LIBS)

# The tests (tests/README.md, "Tiers"; conftest.py marks them by file).  make test runs
# them all: in parallel, TEST_JOBS workers (pytest-xdist; a file stays on one worker, so
# its module fixtures are built once), then the timing-sensitive ones (-m serial) alone.
# make check runs the quick tier (-m quick), for the edit-compile-test loop.
TEST_JOBS ?= auto
PYTEST := $(PY) -m pytest -q tests microgens
test: all
	@$(PYTEST) -n $(TEST_JOBS) --dist loadfile -m 'not serial'; s=$$?; \
	$(PYTEST) -m serial; exit $$(( s | $$? ))

check: all
	@$(PYTEST) -n $(TEST_JOBS) --dist loadfile -m quick

# Fuzzing: one libFuzzer target per reader of files (tests/fuzz/fuzz_NAME.c: the spool
# decoder, the trace and the model CSV readers, TRACE.flow with dyl-speedup's and
# dyl-flow's readers of it, link models in the residency), built with clang-14 under ASan and UBSan
# into build/fuzz/, and a mutation fuzzer of the --defs parser (Python).  `make fuzz`
# runs each for FUZZ_SECONDS from its checked-in corpus (tests/fuzz/corpus/NAME/); what
# it finds is kept in build/fuzz/corpus/NAME/, a crash in build/fuzz/NAME-crash-*.
# make test runs each for a few seconds (tests/fuzz/test_fuzz.py).
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := spool trace model flow link
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-std=gnu11 $(TOOL_INC) -Ispeedup/dyl-flow
FUZZ_SRC_spool := $(FMT_SRC)
FUZZ_SRC_trace := $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC)
FUZZ_SRC_model := $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC)
FUZZ_SRC_flow := $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC) $(filter-out %/main.c,$(wildcard speedup/dyl-flow/*.c))
FUZZ_SRC_link := $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC)

fuzz-build: $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/quiet.h $(TOOL_LIB_SRC) $(TOOL_FORMAT_SRC) $(TOOL_HDR) \
		$(wildcard speedup/dyl-flow/*.c)
	@mkdir -p $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_SRC_$*) $(TOOL_LIBS)

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		echo "fuzz_$$t: $(FUZZ_SECONDS) s"; mkdir -p $(B)/fuzz/corpus/$$t; \
		$(B)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/$$t- $(B)/fuzz/corpus/$$t tests/fuzz/corpus/$$t \
			2>&1 | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|INFO: a corpus)|ERROR|runtime error|Done' \
			|| true; \
		ls $(B)/fuzz/$$t-* 2>/dev/null && exit 1; \
	done; \
	$(PY) tests/fuzz/fuzz_defs.py $(FUZZ_SECONDS)

demo: all
	@bash examples/demo.sh

# The benchmarks behind BENCHMARKS.md (minutes, not part of make test)
bench: all
	@$(MAKE) -s install-packages PACKAGES="$(BENCH_PACKAGES)"
	bench/percall/run.sh 5 10000000
	bench/readers.sh 10000000 5
	bench/killed.sh 2500000 3 5
	bench/generate.sh 3
	bench/malloc/run.sh 7 4000000
	bench/diff/run.sh 7
	bench/diff/evp.sh 7
	bench/diff/born.sh 5
	bench/diff/typed.sh 7 2000
	bench/faults/run.sh 7

# dyl-speedup's predictions against accelerated runs that really happen here (issue 5):
# OpenBLAS for reference BLAS's dgemm_, AES-NI for OpenSSL's software AES.  Not part of
# make test; a few minutes (make validate RUNS=3 for a quicker, rougher look).
# Writes build/validate/ (table.md, results.json, SVG charts).
RUNS ?= 11
VALIDATE_PACKAGES := libopenblas0-serial libopenblas0-pthread libssl-dev
validate: all
	@$(MAKE) -s install-packages PACKAGES="$(VALIDATE_PACKAGES)"
	$(PY) bench/validate/run.py --runs $(RUNS)

# How exact the automatic estimates of bytes per call are (issue 4; the paper's Figs.
# 5-7): std.regions (and std.diff, once there) against exact --defs sizes, on reference
# BLAS, OpenSSL and libjpeg.  Not part of make test; well under a minute.  Writes
# build/accuracy/ (table.md, results.json, SVG charts); ACCURACY_ARGS='--block 16' etc.
ACCURACY_ARGS ?=
accuracy: all
	$(PY) bench/accuracy/run.py $(ACCURACY_ARGS)

# Man pages, made from each command's --help and --version by help2man: build/man/NAME.1
# for every command in bin/ (bin/dyl*: the scripts and the C tools).  MAN_NAME_x: the
# one line under NAME (default: a line naming dyliberator).
MAN_COMMANDS = $(sort bin/dyliberator $(COMMANDS) $(wildcard bin/dyl*))
MAN_PAGES = $(patsubst bin/%,$(B)/man/%.1,$(MAN_COMMANDS))
MAN_NAME_dyliberator := generate and build a wrapper library that traces a library's calls
MAN_NAME_dyl := record a program's library calls, then report what an accelerator would change
MAN_NAME_dyl-speedup := predict a program's speedup from its traces and accelerator models
MAN_NAME_dyl-trace := print, summarise, compare and export dyliberator traces
MAN_NAME_dyl-flow := the data flow between library calls, memory objects and the program
MAN_NAME_dyl-model := build an accelerator model from traces or a device's description
man: $(MAN_PAGES)
$(B)/man/%.1: bin/% VERSION doc/man/help2man-input.sh
	@mkdir -p $(@D)
	help2man --no-info --no-discard-stderr --section=1 --source="dyliberator $(VERSION)" \
		--name="$(or $(MAN_NAME_$*),a command of dyliberator)" --output=$@ \
		"doc/man/help2man-input.sh bin/$*"

# make install [PREFIX=/usr/local] [DESTDIR=]: the commands in PREFIX/bin; what they read
# in PREFIX/lib/dyliberator (generator, micro-generators with their library profiles,
# runtime, models with devices, examples, VERSION), found beside bin/ wherever the tree
# is moved; man pages, docs and bash completion (one link per command) under share/.
# A relative examples/... or models/... path not in the current folder is read from
# lib/dyliberator/, so the installed --help examples work from any folder.
DATADIR = $(DESTDIR)$(PREFIX)/lib/dyliberator
SHARE = $(DESTDIR)$(PREFIX)/share
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DATADIR)/build $(SHARE)/man/man1 \
		$(SHARE)/doc/dyliberator $(SHARE)/bash-completion/completions
	cp -r generator microgens runtime models examples VERSION $(DATADIR)/
	find $(DATADIR) -name __pycache__ -prune -exec rm -rf {} +
	install -m 755 $(B)/libdylrt.so $(DATADIR)/build/
	install -m 755 $(MAN_COMMANDS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(MAN_PAGES) $(SHARE)/man/man1/
	cp -r README.md BENCHMARKS.md doc $(SHARE)/doc/dyliberator/
	install -m 644 doc/completion/dyliberator.bash $(SHARE)/bash-completion/completions/dyliberator
	for c in $(filter-out dyliberator,$(notdir $(MAN_COMMANDS))); do \
		ln -sf dyliberator $(SHARE)/bash-completion/completions/$$c; done

clean:
	rm -rf $(B)/libdylrt.so $(B)/fuzz $(B)/tools $(B)/man $(TOOL_ARCHIVE) $(COMMANDS)
