# ioscope - build, test, demo, bench.
#
#   make            build everything into build/
#   make check      unit tests, fuzz corpus replay and the fast end-to-end
#                   tests (all but those marked "# e2e: slow"; under two
#                   minutes): what to run while working
#   make test       unit tests, fuzz corpus replay and every end-to-end test
#                   (what CI runs, as make check then make e2e-slow; about
#                   ten minutes)
#   IOSCOPE_NPM=1   lets the tests that use npm packages (DuckDB, Microsoft's
#                   SARIF multitool) fetch them; without it nothing is
#                   fetched from the network and those parts are skipped
#   make demo       record the bundled samples and analyze them
#   make readme-figures  measure the figures README.md quotes (WRITE=1 rewrites them)
#   make asan       the tests again under AddressSanitizer + UBSan
#   make bench      throughput and overhead figures (never pass/fail)
#   make bench-fleet-scale  make bench's fleet at scale alone: ioanalyze fleet
#                   over 100,000 stacked traces of 50 build-ids, cold and
#                   warm symbol cache, 1 and 2 workers side by side
#   make realworld  the slow tier: records 26 real programs from Debian
#                   packages twice and under strace and checks their issues
#                   against strace's view and each other (docs/realworld.md;
#                   about ten minutes; make realworld-deps installs them)
#   make fuzz       run the libFuzzer targets (clang; FUZZ_SECONDS=N each)
#   make install    PREFIX=/usr/local DESTDIR= (also BINDIR, LIBDIR,
#                   PKGLIBDIR, INCLUDEDIR, DATADIR, MANDIR, DOCDIR,
#                   BASHCOMPDIR, PKGCONFIGDIR);
#                   make uninstall with the same variables removes it
#
# Every .c file in a part's folder belongs to that part, so adding a file
# needs no edit here. The parts and what each may include are in
# docs/architecture.md; a part is compiled with its own folder and its
# dependencies' folders on the include path, nothing else, and
# tests/check_parts.py (run by tests/e2e/test_parts.sh, in make check and
# make test) fails on an include or a call that crosses a boundary the wrong
# way, and on a file the docs name that is not there.

# Where `make install` puts things (DESTDIR is prepended to each, and is
# never compiled in). The preload library goes to a directory of its own so
# that it is never found as an ordinary library to link with.
PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
PKGLIBDIR    ?= $(LIBDIR)/ioscope
INCLUDEDIR   ?= $(PREFIX)/include
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
DOCDIR       ?= $(DATADIR)/doc/ioscope
BASHCOMPDIR  ?= $(DATADIR)/bash-completion/completions
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g

WARN     := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE
CFLAGS   += -std=c11 $(OPT) $(WARN) -fPIC $(SANITIZE)
LDFLAGS  += $(SANITIZE)

# pkg-config is asked only once the dependency check has run (see deps).
# The programs need the first three libraries; only the unit tests need CUnit.
# The analyzer also needs libdw (elfutils) to symbolize stacks offline, and
# libdebuginfod to fetch debug info by build-id; the recorder and the
# launcher do not.
PKG_CFLAGS = $(shell pkg-config --cflags jansson libzstd libpcre2-8 libdw 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs jansson libzstd libpcre2-8 2>/dev/null)
# zlib: the analyzer's inputs read gzip-compressed logs (inputs/decompress.c)
Z_LIBS     = $(shell pkg-config --libs zlib 2>/dev/null)
DW_LIBS    = $(shell pkg-config --libs libdw libdebuginfod 2>/dev/null)
TEST_LIBS  = $(shell pkg-config --libs cunit 2>/dev/null)
CPPFLAGS  += $(PKG_CFLAGS)
# CUnit's flags only where it is used, so that the programs build without it
$(OBJ)/tests/unit/%.o: CPPFLAGS += $(shell pkg-config --cflags cunit 2>/dev/null)

BIN := $(BUILD)/bin
LIB := $(BUILD)/lib
OBJ := $(BUILD)/obj

# The parts (parts.mk): each is compiled with its own folder and the folders
# of the parts it uses on the include path, and nothing else.
include parts.mk
part_src = $(wildcard $($(1).dir)/*.c)
part_inc = $(foreach p,$(1) $($(1).uses),-I$($(p).dir))
$(foreach p,$(PARTS),$(eval $$(OBJ)/$($(p).dir)/%.o: CPPFLAGS += $$(call part_inc,$(p))))
# tests and benches reach into every part
INC_all := $(foreach p,$(PARTS),-I$($(p).dir))
$(OBJ)/tests/%.o: CPPFLAGS += $(INC_all)
$(OBJ)/bench/%.o: CPPFLAGS += $(INC_all)

COMMON_SRC    := $(call part_src,common)
FORMATS_SRC   := $(call part_src,formats)
INPUTS_SRC    := $(call part_src,inputs)
RULES_SRC     := $(call part_src,rules)
ANALYZER_SRC  := $(foreach p,engine outputs cli,$(call part_src,$(p)))
RECSHARED_SRC := $(call part_src,rec_shared)
PRELOAD_SRC   := $(call part_src,preload)
LAUNCHER_SRC  := $(call part_src,launcher)
# the BPF program is compiled for the kernel, not with the part's C
KERNEL_SRC    := $(filter-out %.bpf.c,$(call part_src,kernel))

UNIT_SRC     := $(wildcard tests/unit/*.c)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
SAMPLE_SRC   := $(wildcard samples/*.c)
PROG_SRC     := $(wildcard tests/progs/*.c)
TEST_PRELOAD_SRC := $(wildcard tests/preload/*.c)
BENCH_SRC    := $(filter-out %.bpf.c bench/memlock_shim.c,$(wildcard bench/*.c))

obj = $(patsubst %.c,$(OBJ)/%.o,$(1))

LIBIOTRACE  := $(LIB)/libiotrace.a
IOANALYZE   := $(BIN)/ioanalyze
IORECORD    := $(BIN)/iorecord
LIBIORECORD := $(LIB)/libiorecord.so
UNIT_TESTS  := $(BIN)/unit_tests
FUZZ_REPLAY := $(BIN)/fuzz_replay
SAMPLES     := $(patsubst samples/%.c,$(BIN)/samples/%,$(SAMPLE_SRC))
PROGS       := $(patsubst tests/progs/%.c,$(BIN)/progs/%,$(PROG_SRC))
TEST_PRELOADS := $(patsubst tests/preload/%.c,$(LIB)/test/%.so,$(TEST_PRELOAD_SRC))
BENCHES     := $(patsubst bench/%.c,$(BIN)/bench/%,$(BENCH_SRC)) $(LIB)/bench/memlock_shim.so

# ioscope.pc is made here too, so that `sudo make install` after `make`
# writes nothing into the build tree.
# ioanalyze fleet's program (Python on Dask), beside the preload library as
# it is installed, so that ioanalyze finds it in the build tree too
FLEET_SRC   := fleet/ioanalyze-fleet $(wildcard fleet/*.py)
FLEET       := $(addprefix $(LIB)/fleet/,$(notdir $(FLEET_SRC)))
ALL := $(LIBIOTRACE) $(IOANALYZE) $(UNIT_TESTS) $(FUZZ_REPLAY) $(SAMPLES) $(PROGS) $(BUILD)/gen/ioscope.pc $(FLEET)
# the fleet bench's generator, with the rest: its e2e test runs in make check
ALL += $(BIN)/bench/gen_fleet
ifneq ($(PRELOAD_SRC),)
ALL += $(LIBIORECORD) $(IORECORD) $(TEST_PRELOADS)
endif

.PHONY: all deps check test unit e2e e2e-fast e2e-slow demo readme-figures asan bench bench-fleet-scale realworld realworld-deps fuzz install uninstall clean

all: $(BUILD)/.deps
	@$(MAKE) --no-print-directory build-all

.PHONY: build-all
build-all: $(ALL)

# Missing libraries are installed (root + apt-get) or named with the exact
# command to run, before any compiler error about a missing header.
$(BUILD)/.deps: .ci/install-deps
	@.ci/install-deps
	@mkdir -p $(BUILD) && touch $@ $(BUILD)/.deps-programs
deps: $(BUILD)/.deps

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The HTML report's script and style are embedded whole (.incbin in
# report_html.c), which the compiler's dependency lists do not see.
$(OBJ)/analyzer/outputs/report_html.o: analyzer/outputs/report_html.js \
    analyzer/outputs/report_html_charts.js analyzer/outputs/report_html.css

$(LIBIOTRACE): $(call obj,$(FORMATS_SRC) $(COMMON_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# ioanalyze exports its symbols (-rdynamic) so that plugins find the
# functions rule.h declares and the helpers it publishes; the built-in
# rules and the registry (rules/) are its own and stay hidden, so a plugin
# sees only that interface.
$(call obj,$(RULES_SRC)): CFLAGS += -fvisibility=hidden

$(IOANALYZE): $(call obj,$(ANALYZER_SRC) $(INPUTS_SRC) $(RULES_SRC)) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $^ $(PKG_LIBS) $(Z_LIBS) $(DW_LIBS) -ldl -lpthread -lm

# The preload library links the format library statically so it carries no
# dependency the traced program might lack; its symbols stay hidden
# (--exclude-libs) so they can never stand in for a program's own. libzstd
# is not linked: only a process without a collector compresses, and it
# dlopens it (recorder/preload/zstd_load.c), so a process under iorecord never loads it.
# -z now binds its few libc imports at load: lazily, a fork child that runs
# recorder code its parent never ran (fork.c, the exec wrapper) would bind
# them again in every child, faulting in the loader's code and tables.
# A wrapper is called with whatever the program passes, NULL included, so
# the compiler must not take a parameter for non-NULL because libc's header
# (__nonnull) or its own knowledge of a standard function says so: it would
# delete the wrapper's NULL checks (a NULL path that the kernel answers with
# EFAULT would crash the recorder instead).
REC_NONNULL_OFF := '-D__nonnull(params)=' '-D__attribute_nonnull__(params)=' \
    $(addprefix -fno-builtin-,fputs fputs_unlocked fputc fputc_unlocked putc \
      putc_unlocked putchar putchar_unlocked puts fwrite fwrite_unlocked fread \
      fread_unlocked fprintf vfprintf printf vprintf fscanf vfscanf scanf \
      vscanf __fprintf_chk __vfprintf_chk __printf_chk __vprintf_chk fputws \
      fputwc fwprintf vfwprintf wprintf)
$(call obj,$(PRELOAD_SRC)): CPPFLAGS += $(REC_NONNULL_OFF)

$(LIBIORECORD): $(call obj,$(PRELOAD_SRC) $(RECSHARED_SRC)) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-z,defs -Wl,-z,now -Wl,--exclude-libs,ALL -o $@ $^ -ldl -lpthread

$(IORECORD): $(call obj,$(LAUNCHER_SRC) $(RECSHARED_SRC) $(KERNEL_SRC)) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(KERNEL_LIBS)

# The kernel capture path (recorder/kernel/) is built when clang (for the
# BPF target), bpftool and libbpf are there and the kernel publishes its
# BTF; otherwise kcapture.c only says "kernel capture not built". The BPF
# program is CO-RE: vmlinux.h is this kernel's types, dumped at build
# time, and the skeleton embeds the object.
BPF_CLANG   ?= clang
KERNEL_BUILT := $(shell command -v $(BPF_CLANG) >/dev/null 2>&1 && command -v bpftool >/dev/null 2>&1 \
    && pkg-config --exists libbpf 2>/dev/null && test -r /sys/kernel/btf/vmlinux && echo 1)
BPF_GEN     := $(BUILD)/gen/bpf
BPF_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(KERNEL_BUILT),1)
KERNEL_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null)
$(BPF_GEN)/vmlinux.h:
	@mkdir -p $(dir $@)
	bpftool btf dump file /sys/kernel/btf/vmlinux format c >$@.tmp && mv $@.tmp $@
# -mcpu=v3 for the atomic exchange a batch is taken with (capture_batch.bpf.h):
# Linux 5.12, older than the helpers the path needs already (bpf_find_vma, 5.17)
$(BPF_GEN)/capture.bpf.o: recorder/kernel/capture.bpf.c recorder/kernel/capture_calls.bpf.h \
    recorder/kernel/capture_stack.bpf.h recorder/kernel/capture_batch.bpf.h \
    recorder/kernel/kevent.h formats/syscalls.h $(BPF_GEN)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -I$(BPF_GEN) -Irecorder/kernel -Iformats -c $< -o $@
$(BPF_GEN)/capture.skel.h: $(BPF_GEN)/capture.bpf.o
	bpftool gen skeleton $< name capture >$@.tmp && mv $@.tmp $@
$(OBJ)/recorder/kernel/kcapture.o: $(BPF_GEN)/capture.skel.h
$(OBJ)/recorder/kernel/kcapture.o: CPPFLAGS += -DREC_KERNEL_BUILT -I$(BPF_GEN) $(shell pkg-config --cflags libbpf 2>/dev/null)
# the bench's floor under the capture path: empty programs on its attach points
$(BPF_GEN)/empty.bpf.o: bench/empty.bpf.c $(BPF_GEN)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BPF_GEN) -c $< -o $@
$(BIN)/bench/bpf_floor: CPPFLAGS += -DBENCH_BPF $(shell pkg-config --cflags libbpf 2>/dev/null)
$(BIN)/bench/bpf_floor: PKG_LIBS += $(KERNEL_LIBS)
BENCH_BPF_OBJ := $(BPF_GEN)/empty.bpf.o
endif

# Unit tests link the analyzer's objects except its main().
ANALYZER_LIB_OBJ := $(call obj,$(filter-out analyzer/cli/main.c,$(ANALYZER_SRC)) $(INPUTS_SRC) $(RULES_SRC))
$(UNIT_TESTS): $(call obj,$(UNIT_SRC) $(filter-out %/kcapture.c,$(KERNEL_SRC)) recorder/shared/frame.c) $(ANALYZER_LIB_OBJ) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(Z_LIBS) $(DW_LIBS) $(TEST_LIBS) -ldl -lpthread -lm

$(FUZZ_REPLAY): $(call obj,tests/fuzz/replay.c $(FUZZ_SRC)) $(ANALYZER_LIB_OBJ) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(Z_LIBS) $(DW_LIBS) -ldl -lpthread -lm

# Samples and test programs are ordinary programs: no ioscope code inside.
# Samples export their symbols (-rdynamic) so stacks in their issues name
# functions, as a program built with symbols would.
$(BIN)/samples/%: samples/%.c $(wildcard samples/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -D_GNU_SOURCE $(WARN) -rdynamic -o $@ $< -lpthread

$(BIN)/progs/%: tests/progs/%.c $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -D_GNU_SOURCE $(WARN) $(PROG_LDFLAGS) -o $@ $< -lpthread

# rec_fakebeam stands in for beam.smp, whose names the recorder looks up with dlsym
$(BIN)/progs/rec_fakebeam: PROG_LDFLAGS := -rdynamic

# Other interposers the recorder's tests preload beside it.
$(LIB)/test/%.so: tests/preload/%.c tests/progs/rawsys.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -D_GNU_SOURCE $(WARN) -shared -fPIC -o $@ $< -ldl

$(LIB)/fleet/%: fleet/%
	@mkdir -p $(dir $@)
	cp -p $< $@

# bpftrace's start where raising RLIMIT_MEMLOCK is refused (bench_floors)
$(LIB)/bench/memlock_shim.so: bench/memlock_shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -D_GNU_SOURCE $(WARN) -shared -fPIC -o $@ $< -ldl

$(BIN)/bench/%: bench/%.c $(ANALYZER_LIB_OBJ) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC_all) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(Z_LIBS) $(DW_LIBS) -ldl -lpthread -lm

# make check says how long it took (CI's log shows it): under two minutes
# is what keeps it run before every commit. The unit tests run beside the
# fast e2e tests, on the other core (no test depends on the machine being
# idle); their output is printed after the e2e tests'.
check: all
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory unit >$(BUILD)/check-unit.log 2>&1 & unit=$$!; \
	$(MAKE) --no-print-directory e2e-fast; e2e=$$?; \
	wait $$unit; u=$$?; cat $(BUILD)/check-unit.log; \
	[ $$u -eq 0 ] || echo "make check: the unit tests failed (above)"; \
	[ $$e2e -eq 0 ] && [ $$u -eq 0 ] && \
	    echo "make check: passed in $$(($$(date +%s) - start)) s"

test: all
	@$(MAKE) --no-print-directory test-gen unit e2e

# The generators test_an_pipeline draws its large traces from (without them
# it skips that part, and says so): built for the tests, not only by bench.
.PHONY: test-gen
test-gen: $(BIN)/bench/gen_trace $(BIN)/bench/gen_procs

unit:
	$(UNIT_TESTS)
	$(FUZZ_REPLAY) tests/fuzz/corpus

e2e:
	@BUILD=$(BUILD) tests/e2e/run.sh

e2e-fast:
	@BUILD=$(BUILD) tests/e2e/run.sh --fast

# the slow tests only: make check and this are make test
e2e-slow: test-gen
	@BUILD=$(BUILD) tests/e2e/run.sh --slow

demo: all
	@BUILD=$(BUILD) samples/demo.sh

# the README's figures of the quick start and the demo, measured anew;
# WRITE=1 puts them into README.md
readme-figures: all
	@BUILD=$(BUILD) sh samples/readme_figures.sh $(if $(WRITE),--write)

# A separate build tree so sanitized objects never mix with normal ones.
asan: $(BUILD)/.deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g" \
	    SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	    build-all test-gen
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(MAKE) --no-print-directory BUILD=build-asan unit e2e

bench: all $(BENCHES) $(BENCH_BPF_OBJ)
	@BUILD=$(BUILD) bench/run.sh

# the fleet of 100,000 stacked traces alone (BENCH_SCALE_TRACES=N for fewer,
# BENCH_SCALE_ROUNDS=R rounds of 1 and 2 workers; bench/bench_fleet_scale.sh)
bench-fleet-scale: all
	@BUILD=$(BUILD) TOP=$(CURDIR) sh bench/bench_fleet_scale.sh

fuzz: $(BUILD)/.deps
	@BUILD=$(BUILD) tests/fuzz/run.sh $(FUZZ_SECONDS)

# Not part of make test: it needs the programs' packages and takes minutes.
# The harness installs nothing; realworld-deps does, as root. ONLY=a,b runs
# only those programs.
realworld: all
	@/usr/bin/python3 tests/realworld/run.py --build $(BUILD) $(if $(ONLY),--only $(ONLY))

realworld-deps:
	apt-get install -y --no-install-recommends $$(/usr/bin/python3 tests/realworld/run.py --apt-packages)

# Installing needs only the programs, the library and files of the tree:
# no test target, so no CUnit. Every installed path is in INSTALLED, which
# uninstall removes, so the two cannot drift apart.
# The plugin headers: rule.h and the helpers it publishes (parts.mk,
# rules.installs); jansson comes from the system, named in ioscope.pc's
# Requires.
INSTALL_HEADERS := $(rules.installs)
# The docs keep their layout under DOCDIR, so the README's links work there.
INSTALL_DOCS    := README.md $(wildcard docs/*.md docs/*.png) rules/TEMPLATE.md
INSTALL_MANS    := $(wildcard man/*.1)
IOSCOPE_PC      := $(BUILD)/gen/ioscope.pc
INSTALLED := $(BINDIR)/ioanalyze $(BINDIR)/iorecord $(PKGLIBDIR)/libiorecord.so \
    $(addprefix $(INCLUDEDIR)/ioscope/,$(notdir $(INSTALL_HEADERS))) \
    $(PKGCONFIGDIR)/ioscope.pc $(addprefix $(MANDIR)/man1/,$(notdir $(INSTALL_MANS))) \
    $(addprefix $(DOCDIR)/,$(INSTALL_DOCS)) $(BASHCOMPDIR)/ioanalyze $(BASHCOMPDIR)/iorecord \
    $(addprefix $(PKGLIBDIR)/fleet/,$(notdir $(FLEET_SRC)))
# The directories that are ioscope's own, deepest first: uninstall removes
# them once empty; the shared ones (bin, man1, ...) stay.
INSTALLED_DIRS := $(PKGLIBDIR)/fleet $(PKGLIBDIR) $(INCLUDEDIR)/ioscope $(DOCDIR)/docs $(DOCDIR)/rules $(DOCDIR)

# iorecord looks for the library in PKGLIBDIR, seen from BINDIR
# (recorder/launcher/launch_library.c): the two are compiled in through a header rewritten
# only when they change, so `make install PREFIX=...` after `make` rebuilds
# iorecord for the new place, and a plain `make` rebuilds nothing.
$(BUILD)/gen/install_dirs.h: FORCE
	@mkdir -p $(dir $@)
	@printf '/* made by the Makefile: where make install puts things */\n#define IOSCOPE_BINDIR "%s"\n#define IOSCOPE_PKGLIBDIR "%s"\n' \
	    '$(BINDIR)' '$(PKGLIBDIR)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(OBJ)/recorder/launcher/launch_library.o: $(BUILD)/gen/install_dirs.h
$(OBJ)/recorder/launcher/launch_library.o: CPPFLAGS += -I$(BUILD)/gen
$(OBJ)/analyzer/cli/cmd_fleet.o: $(BUILD)/gen/install_dirs.h
$(OBJ)/analyzer/cli/cmd_fleet.o: CPPFLAGS += -I$(BUILD)/gen

# The pkg-config file plugins build with; paths under PREFIX stay relative
# to ${prefix}, so that PKG_CONFIG_SYSROOT_DIR and relocation work.
$(IOSCOPE_PC): rules/ioscope.pc.in common/version.h FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e 's|@PKGLIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(PKGLIBDIR))|' \
	    -e "s|@VERSION@|$$(sed -n 's/^#define IOSCOPE_VERSION "\(.*\)"/\1/p' common/version.h)|" \
	    -e "s|@URL@|$$(sed -n 's/^#define IOSCOPE_URL "\(.*\)"/\1/p' common/version.h)|" \
	    rules/ioscope.pc.in >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

.PHONY: FORCE
FORCE:

install: $(BUILD)/.deps-programs
	@$(MAKE) --no-print-directory $(IOANALYZE) $(IORECORD) $(LIBIORECORD) $(IOSCOPE_PC)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR)/fleet $(DESTDIR)$(INCLUDEDIR)/ioscope \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/rules
	install -m 755 $(IOANALYZE) $(IORECORD) $(DESTDIR)$(BINDIR)/
	install -m 644 $(LIBIORECORD) $(DESTDIR)$(PKGLIBDIR)/
	install -m 755 fleet/ioanalyze-fleet $(DESTDIR)$(PKGLIBDIR)/fleet/
	install -m 644 $(filter %.py,$(FLEET_SRC)) $(DESTDIR)$(PKGLIBDIR)/fleet/
	install -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/ioscope/
	install -m 644 $(IOSCOPE_PC) $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 $(INSTALL_MANS) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 analyzer/cli/ioanalyze.bash-completion $(DESTDIR)$(BASHCOMPDIR)/ioanalyze
	install -m 644 recorder/launcher/iorecord.bash-completion $(DESTDIR)$(BASHCOMPDIR)/iorecord
	for f in $(INSTALL_DOCS); do install -m 644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; done

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	for d in $(addprefix $(DESTDIR),$(INSTALLED_DIRS)); do [ ! -d $$d ] || rmdir $$d || true; done

# The build dependencies of the programs alone (no CUnit): what install needs.
$(BUILD)/.deps-programs: .ci/install-deps
	@.ci/install-deps --programs
	@mkdir -p $(BUILD) && touch $@

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
