# ioscope - build, test, demo, bench.
#
#   make            build everything into build/
#   make test       unit tests, fuzz corpus replay, end-to-end tests
#   make demo       record the bundled samples and analyze them
#   make asan       the tests again under AddressSanitizer + UBSan
#   make bench      throughput and overhead figures (never pass/fail)
#   make fuzz       run the libFuzzer targets (clang; FUZZ_SECONDS=N each)
#   make install    PREFIX=/usr/local DESTDIR=
#
# Every .c file in a part's folder belongs to that part, so adding a file
# needs no edit here.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g

PKGS := jansson libzstd libpcre2-8 cunit libdw

WARN     := -Wall -Wextra -Werror
CPPFLAGS += -D_GNU_SOURCE -Iformats -Ianalyzer -Irules
CFLAGS   += -std=c11 $(OPT) $(WARN) -fPIC $(SANITIZE)
LDFLAGS  += $(SANITIZE)

# pkg-config is asked only once the dependency check has run (see deps).
# The programs need the first three libraries; only the unit tests need CUnit.
# The analyzer also needs libdw (elfutils) to symbolize stacks offline; the
# recorder and the launcher do not.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs jansson libzstd libpcre2-8 2>/dev/null)
DW_LIBS    = $(shell pkg-config --libs libdw 2>/dev/null)
TEST_LIBS  = $(shell pkg-config --libs cunit 2>/dev/null)
CPPFLAGS  += $(PKG_CFLAGS)

BIN := $(BUILD)/bin
LIB := $(BUILD)/lib
OBJ := $(BUILD)/obj

FORMATS_SRC  := $(wildcard formats/*.c)
RULES_SRC    := $(wildcard rules/*.c)
ANALYZER_SRC := $(wildcard analyzer/*.c)
RECLIB_SRC   := $(filter-out recorder/iorecord.c recorder/collector.c,$(wildcard recorder/*.c))
UNIT_SRC     := $(wildcard tests/unit/*.c)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
SAMPLE_SRC   := $(wildcard samples/*.c)
PROG_SRC     := $(wildcard tests/progs/*.c)
BENCH_SRC    := $(wildcard bench/*.c)

obj = $(patsubst %.c,$(OBJ)/%.o,$(1))

LIBIOTRACE  := $(LIB)/libiotrace.a
IOANALYZE   := $(BIN)/ioanalyze
IORECORD    := $(BIN)/iorecord
LIBIORECORD := $(LIB)/libiorecord.so
UNIT_TESTS  := $(BIN)/unit_tests
FUZZ_REPLAY := $(BIN)/fuzz_replay
SAMPLES     := $(patsubst samples/%.c,$(BIN)/samples/%,$(SAMPLE_SRC))
PROGS       := $(patsubst tests/progs/%.c,$(BIN)/progs/%,$(PROG_SRC))
BENCHES     := $(patsubst bench/%.c,$(BIN)/bench/%,$(BENCH_SRC))

ALL := $(LIBIOTRACE) $(IOANALYZE) $(UNIT_TESTS) $(FUZZ_REPLAY) $(SAMPLES) $(PROGS)
ifneq ($(RECLIB_SRC),)
ALL += $(LIBIORECORD) $(IORECORD)
endif

.PHONY: all deps test unit e2e demo asan bench fuzz install uninstall clean

all: $(BUILD)/.deps
	@$(MAKE) --no-print-directory build-all

.PHONY: build-all
build-all: $(ALL)

# Missing libraries are installed (root + apt-get) or named with the exact
# command to run, before any compiler error about a missing header.
$(BUILD)/.deps: .ci/install-deps
	@.ci/install-deps
	@mkdir -p $(BUILD) && touch $@
deps: $(BUILD)/.deps

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The HTML report's script and style are embedded whole (.incbin in
# report_html.c), which the compiler's dependency lists do not see.
$(OBJ)/analyzer/report_html.o: analyzer/report_html.js analyzer/report_html.css

$(LIBIOTRACE): $(call obj,$(FORMATS_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(IOANALYZE): $(call obj,$(ANALYZER_SRC) $(RULES_SRC)) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $^ $(PKG_LIBS) $(DW_LIBS) -ldl -lpthread -lm

# The preload library links the format library statically so it carries no
# dependency the traced program might lack, except libzstd; its symbols stay
# hidden (--exclude-libs) so they can never stand in for a program's own.
$(LIBIORECORD): $(call obj,$(RECLIB_SRC)) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -shared -Wl,-z,defs -Wl,--exclude-libs,ALL -o $@ $^ $(shell pkg-config --libs libzstd 2>/dev/null) -ldl -lpthread

$(IORECORD): $(call obj,recorder/iorecord.c recorder/collector.c recorder/segment.c recorder/frame.c) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# Unit tests link the analyzer's objects except its main().
ANALYZER_LIB_OBJ := $(call obj,$(filter-out analyzer/main.c,$(ANALYZER_SRC)) $(RULES_SRC))
$(UNIT_TESTS): $(call obj,$(UNIT_SRC)) $(ANALYZER_LIB_OBJ) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(DW_LIBS) $(TEST_LIBS) -ldl -lpthread -lm

$(FUZZ_REPLAY): $(call obj,tests/fuzz/replay.c $(FUZZ_SRC)) $(ANALYZER_LIB_OBJ) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(DW_LIBS) -ldl -lpthread -lm

# Samples and test programs are ordinary programs: no ioscope code inside.
# Samples export their symbols (-rdynamic) so stacks in their issues name
# functions, as a program built with symbols would.
$(BIN)/samples/%: samples/%.c $(wildcard samples/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -D_GNU_SOURCE $(WARN) -rdynamic -o $@ $< -lpthread

$(BIN)/progs/%: tests/progs/%.c $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O1 -g -D_GNU_SOURCE $(WARN) -o $@ $< -lpthread

$(BIN)/bench/%: bench/%.c $(ANALYZER_LIB_OBJ) $(LIBIOTRACE)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(DW_LIBS) -ldl -lpthread -lm

test: all
	@$(MAKE) --no-print-directory unit e2e

unit:
	$(UNIT_TESTS)
	$(FUZZ_REPLAY) tests/fuzz/corpus

e2e:
	@BUILD=$(BUILD) tests/e2e/run.sh

demo: all
	@BUILD=$(BUILD) samples/demo.sh

# A separate build tree so sanitized objects never mix with normal ones.
asan: $(BUILD)/.deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g" \
	    SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	    build-all
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(MAKE) --no-print-directory BUILD=build-asan unit e2e

bench: all $(BENCHES)
	@BUILD=$(BUILD) bench/run.sh

fuzz: $(BUILD)/.deps
	@BUILD=$(BUILD) tests/fuzz/run.sh $(FUZZ_SECONDS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(IOANALYZE) $(DESTDIR)$(PREFIX)/bin/ioanalyze
	install -m 755 $(IORECORD) $(DESTDIR)$(PREFIX)/bin/iorecord
	install -m 755 $(LIBIORECORD) $(DESTDIR)$(PREFIX)/lib/libiorecord.so
	if [ -d man ]; then install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ioanalyze $(DESTDIR)$(PREFIX)/bin/iorecord \
	      $(DESTDIR)$(PREFIX)/lib/libiorecord.so \
	      $(DESTDIR)$(PREFIX)/share/man/man1/iorecord.1 $(DESTDIR)$(PREFIX)/share/man/man1/ioanalyze.1

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
