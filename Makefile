# cassette — one non-recursive Makefile. Objects go to build/<mode>/ so a
# sanitizer build never links into a release one.
#
#   make            libcassette.a, libcassette.so and the cassette shell (build/release/)
#   make test       build and run every test; last line "N passed, N failed"
#   make test-asan  the same tests under AddressSanitizer + UBSan
#   make test-tsan  the tests that start threads under ThreadSanitizer (build/tsan/); any report fails
#   make test-long  the same tests with crash loops and races at full length
#   make test-corrupt  1,000 byte-flip corruption trials on a new seed
#   make bench      every benchmark in its quick form, under 2 minutes (figures: docs/benchmarks.md)
#   make bench-full every benchmark at full size, then the peers and seeds sections of
#                   docs/benchmarks.md and the peers charts regenerated (PEERS_ARGS=--huge adds
#                   10^7 messages)
#   make fuzz       libFuzzer targets (clang) for FUZZ_SECONDS each; new finds merged into
#                   tests/fuzz/corpus/, which `make test` replays
#   make demo       build and run the main job
#   make install PREFIX=/usr/local [DESTDIR=...]
#   make deps       install missing Debian packages (test, demo, bench do it first)

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
OPT     ?= -O2 -g
MODE    ?= release
VERSION  = 0.1.0

WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wno-format-nonliteral
PKGS     = lmdb libxxhash uuid liblz4 snappy zlib libuv openssl libxcrypt
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -llmdb -lxxhash -luuid -llz4 -lsnappy -lz -luv -lssl -lcrypto -lcrypt)

ifeq ($(MODE),asan)
OPT      = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDSAN    = -fsanitize=address,undefined
endif
ifeq ($(MODE),tsan)
OPT      = -O1 -g -fsanitize=thread -fno-omit-frame-pointer
LDSAN    = -fsanitize=thread
endif
# The fuzzing build: clang's libFuzzer. The library is instrumented for coverage
# (fuzzer-no-link); only the targets link libFuzzer's main.
ifeq ($(MODE),fuzz)
CC       = clang
OPT      = -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
           -fno-omit-frame-pointer
LDSAN    = -fsanitize=address,undefined
endif

B        = build/$(MODE)
CPPFLAGS += -D_GNU_SOURCE -I. -Iinclude $(PKG_CFLAGS)
CFLAGS   += -std=c11 -fPIC -fvisibility=hidden $(OPT) $(WARN) -MMD -MP
LDLIBS   += $(PKG_LIBS) -lpthread -lm
LDFLAGS  += $(LDSAN)

ENGINE_SRC = $(sort $(wildcard engine/value/*.c engine/store/*.c))
CQL_SRC    = $(sort $(wildcard cql/*.c cql/lang/*.c cql/exec/*.c cql/proto/*.c cql/client/*.c \
                             cql/server/*.c cql/driver/*.c))
LIB_SRC    = $(ENGINE_SRC) $(CQL_SRC)
LIB_OBJ    = $(LIB_SRC:%.c=$(B)/%.o)
# The shell is a program of its own, not part of libcassette.
SHELL_SRC  = $(sort $(wildcard cql/shell/*.c))
SHELL_OBJ  = $(filter-out $(B)/cql/shell/main.o,$(SHELL_SRC:%.c=$(B)/%.o))

TEST_SRC   = $(sort $(wildcard tests/engine/test_*.c tests/cql/test_*.c tests/driver/test_*.c \
                                tests/shell/test_*.c tests/concurrency/test_*.c \
                                tests/corrupt/test_*.c tests/proto/test_*.c \
                                tests/examples/test_*.c))
TEST_BIN   = $(TEST_SRC:%.c=$(B)/%)
# The tests that start threads: the concurrency suite, every other test file calling
# pthread_create, and the remote backend's cluster (its monitor and connection threads).
# `make test-tsan` runs these under ThreadSanitizer.
TSAN_TEST_SRC = $(sort $(wildcard tests/concurrency/test_*.c) tests/driver/test_cluster.c \
                       $(shell grep -l pthread_create $(TEST_SRC) /dev/null))
TSAN_TEST_BIN = $(TSAN_TEST_SRC:%.c=$(B)/%)
TEST_SCRIPTS = tests/install/run.sh tests/shell/run.sh tests/cql/run.sh tests/cql/remote.sh \
               tests/server/run.sh \
               tests/server/gocql/run.sh
HARNESS    = $(B)/tests/harness.o $(B)/tests/render_cqlsh.o $(B)/tests/driver/remote_harness.o

# Fuzz targets (tests/fuzz/fuzz_NAME.c): libFuzzer programs in MODE=fuzz, corpus replayers
# (tests/fuzz/replay.c) in every other mode, which `make test` runs.
FUZZ_ALL     = $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_SECONDS ?= 60
FUZZ_MINIMIZE ?= 0
FUZZ_BIN   = $(FUZZ_TARGETS:%=$(B)/tests/fuzz/fuzz_%)
FUZZ_ALL_BIN = $(FUZZ_ALL:%=$(B)/tests/fuzz/fuzz_%)
FUZZ_LIB   = $(B)/tests/fuzz/values.o $(SHELL_OBJ)
ifeq ($(MODE),fuzz)
FUZZ_MAIN  = -fsanitize=fuzzer
else
FUZZ_LIB  += $(B)/tests/fuzz/replay.o
endif

# The example applications (examples/APP/, docs/examples.md), on <cassandra.h> alone: every
# data layer and examples/common go into one archive; examples/APP/cli.c builds the program
# $(B)/bin/APP and examples/APP/demo.c $(B)/bin/APP-demo. `make install` leaves them out.
EXAMPLE_LIB_SRC  = $(filter-out %/cli.c %/demo.c,$(sort $(wildcard examples/*/*.c)))
EXAMPLE_LIB_OBJ  = $(EXAMPLE_LIB_SRC:%.c=$(B)/%.o)
EXAMPLE_BIN      = $(patsubst examples/%/cli.c,$(B)/bin/%,$(sort $(wildcard examples/*/cli.c))) \
                   $(patsubst examples/%/demo.c,$(B)/bin/%-demo,$(sort $(wildcard examples/*/demo.c)))
EXAMPLE_LIBS     = -lsodium -lutil

BENCH_SRC  = $(sort $(wildcard bench/*_bench.c))
BENCH_BIN  = $(BENCH_SRC:%.c=$(B)/%)

.PHONY: all lib test test-asan test-tsan test-long test-corrupt bench bench-run bench-full \
        bench-full-run demo deps install uninstall \
        clean check-layers check-symbols examples test-run tsan-run fuzz fuzz-run fuzz-seed fuzz-seed-run

# The packages come first: a fresh machine needs only `make`.
all: deps
	@$(MAKE) --no-print-directory lib

lib: $(B)/libcassette.a $(B)/libcassette.so $(B)/cassette

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/libcassette.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The soname link beside it, so a program linked against this build folder starts
# (LD_LIBRARY_PATH=build/release) without an install.
$(B)/libcassette.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libcassette.so.0 $(LDFLAGS) -o $@ $^ $(LDLIBS)
	ln -sf libcassette.so $(B)/libcassette.so.0

# The shell: one program over the static library (cql/shell/).
$(B)/cassette: $(B)/cql/shell/main.o $(SHELL_OBJ) $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(B)/cql/shell/main.o $(SHELL_OBJ) $(B)/libcassette.a $(LDLIBS)

# Every test program links the shell's objects too: the tests' cqlsh renderer
# (tests/render_cqlsh.c) shares the shell's scalar formatting.
$(B)/tests/%: tests/%.c $(HARNESS) $(SHELL_OBJ) $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) -o $@ $< $(HARNESS) $(SHELL_OBJ) $(B)/libcassette.a $(LDLIBS)

# The example applications' tests link their data layers.
$(B)/tests/examples/%: tests/examples/%.c $(HARNESS) $(SHELL_OBJ) $(B)/examples/libexamples.a \
                       $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests -Iexamples $(CFLAGS) $(LDFLAGS) -o $@ $< $(HARNESS) $(SHELL_OBJ) \
	    $(B)/examples/libexamples.a $(B)/libcassette.a $(LDLIBS) $(EXAMPLE_LIBS)

examples: deps
	@$(MAKE) --no-print-directory $(EXAMPLE_BIN)

$(B)/examples/libexamples.a: $(EXAMPLE_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/bin/%-demo: examples/%/demo.c $(B)/examples/libexamples.a $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iexamples $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/examples/libexamples.a \
	    $(B)/libcassette.a $(LDLIBS) $(EXAMPLE_LIBS)

$(B)/bin/%: examples/%/cli.c $(B)/examples/libexamples.a $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iexamples $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/examples/libexamples.a \
	    $(B)/libcassette.a $(LDLIBS) $(EXAMPLE_LIBS)

# The driver tests' remote mode (CASSETTE_TEST_REMOTE=1), part of the harness.
$(B)/tests/driver/remote_harness.o: tests/driver/remote_harness.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -c $< -o $@

$(B)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -c $< -o $@

# A static pattern: it must win over the test programs' rule for tests/fuzz/fuzz_*.c.
$(FUZZ_ALL_BIN): $(B)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(B)/libcassette.a
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) $(LDFLAGS) $(FUZZ_MAIN) -o $@ $< $(FUZZ_LIB) \
	    $(B)/libcassette.a $(LDLIBS)

# The chat workload runs the KillrChat data layer (examples/killrchat).
$(B)/bench/chat_bench: bench/chat_bench.c $(B)/examples/libexamples.a $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iexamples $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/examples/libexamples.a \
	    $(B)/libcassette.a $(LDLIBS) $(EXAMPLE_LIBS)

# The seeds' workloads run every example data layer, beside SQLite (BENCH_LIBS) and raw LMDB.
$(B)/bench/seeds_bench: bench/seeds_bench.c $(B)/examples/libexamples.a $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iexamples $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/examples/libexamples.a \
	    $(B)/libcassette.a $(LDLIBS) $(BENCH_LIBS) $(EXAMPLE_LIBS)

$(B)/bench/%: bench/%.c $(B)/libcassette.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libcassette.a $(LDLIBS) $(BENCH_LIBS)

deps:
	@sh scripts/deps.sh

# Runs the tests of the current MODE; `make test` first makes sure the
# packages are there, then builds and runs everything. The CQL golden
# tests (tests/cql/run.sh) run the shell of the same MODE.
test-run: $(TEST_BIN) $(FUZZ_ALL_BIN) $(EXAMPLE_BIN) $(B)/cassette check-layers check-symbols
	@MODE=$(MODE) CASSETTE=$(B)/cassette sh tests/run.sh $(TEST_BIN) $(FUZZ_ALL_BIN) $(TEST_SCRIPTS)

test: deps
	@sh scripts/deps.sh test
	@$(MAKE) --no-print-directory MODE=release test-run

test-asan: deps
	@sh scripts/deps.sh test
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    $(MAKE) --no-print-directory MODE=asan test-run

# ThreadSanitizer over the tests that start threads (TSAN_TEST_SRC) and the shell they run.
# halt_on_error: the first report ends the process with status 66, so the harness counts the
# test as failed; tests/run.sh also fails a program whose output holds a report (a forked
# worker's, say). LMDB's locks are pthread mutexes, which ThreadSanitizer intercepts even in
# uninstrumented code; the one suppression (tests/tsan.supp) is a descriptor libuv closes where
# ThreadSanitizer cannot see it, and says so.
test-tsan: deps
	@sh scripts/deps.sh test
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp $(TSAN_OPTIONS)" \
	    $(MAKE) --no-print-directory MODE=tsan tsan-run

tsan-run: $(TSAN_TEST_BIN) $(EXAMPLE_BIN) $(B)/cassette
	@MODE=$(MODE) CASSETTE=$(B)/cassette sh tests/run.sh $(TSAN_TEST_BIN) tests/server/run.sh tests/cql/remote.sh \
	    tests/server/gocql/run.sh

# The long mode: crash loops and races at their full counts (see README).
test-long: deps
	@sh scripts/deps.sh test
	@CASSETTE_LONG=1 CASSETTE_TEST_TIMEOUT=3600 $(MAKE) --no-print-directory MODE=release test-run

# The corruption trials alone, 1,000 of them on a new seed (tests/corrupt/test_corrupt.c).
test-corrupt: deps
	@$(MAKE) --no-print-directory MODE=release $(B)/tests/corrupt/test_corrupt
	@CASSETTE_CORRUPT_RANDOM=1 CASSETTE_CORRUPT_TRIALS=$${CASSETTE_CORRUPT_TRIALS:-1000} \
	    CASSETTE_TEST_TIMEOUT=3600 $(B)/tests/corrupt/test_corrupt

# Each target runs FUZZ_SECONDS on a scratch corpus (build/fuzz/work/) beside its kept one,
# then -merge=1 adds to tests/fuzz/corpus/NAME/ only the new inputs that reach new coverage,
# so the corpus stays small (FUZZ_MINIMIZE=1: rebuilt as the fewest inputs reaching it all).
# A crash leaves its reproducer in build/fuzz/crashes/NAME/ and fails the run
# (scripts/fuzz.sh).
fuzz: deps
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory MODE=fuzz fuzz-run

fuzz-run: $(FUZZ_BIN)
	@FUZZ_MINIMIZE=$(FUZZ_MINIMIZE) sh scripts/fuzz.sh $(B) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Seeds (tests/fuzz/seed.sh: the golden scripts' statements, literal texts, byte patterns)
# merged into the kept corpora: only those that add coverage stay.
fuzz-seed: deps
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory MODE=fuzz fuzz-seed-run

fuzz-seed-run: $(FUZZ_BIN)
	@rm -rf $(B)/seeds && sh tests/fuzz/seed.sh $(B)/seeds
	@for t in $(FUZZ_TARGETS); do mkdir -p tests/fuzz/corpus/$$t; \
	    $(B)/tests/fuzz/fuzz_$$t -merge=1 -timeout=10 -max_len=4096 tests/fuzz/corpus/$$t \
	        $(B)/seeds/$$t >$(B)/seed_$$t.log 2>&1 || { echo "fuzz_$$t: merge failed"; exit 1; }; \
	    echo "fuzz_$$t: corpus of $$(ls tests/fuzz/corpus/$$t | wc -l) files"; done

bench: deps
	@sh scripts/deps.sh bench
	@$(MAKE) --no-print-directory MODE=release BENCH_LIBS="-lsqlite3" bench-run

# The quick forms: --quick, or short rounds for the two that time by the second. The peers
# benchmark leaves every figure in $(B)/bench/peers.csv (scripts/bench-report.sh reads it), the
# seeds' workloads theirs in $(B)/bench/seeds.csv.
bench-run: $(BENCH_BIN) $(B)/cassette
	@for b in $(BENCH_BIN); do echo "== $$b"; \
	    case $$b in \
	    */remote_bench|*/server_bench) $$b --seconds 0.3 --cassette $(B)/cassette ;; \
	    */peers_bench) $$b --quick --cassette $(B)/cassette --csv $(B)/bench/peers.csv ;; \
	    */seeds_bench) $$b --quick --cassette $(B)/cassette --csv $(B)/bench/seeds.csv ;; \
	    *) $$b --quick ;; \
	    esac || exit 1; done

bench-full: deps
	@sh scripts/deps.sh bench
	@$(MAKE) --no-print-directory MODE=release BENCH_LIBS="-lsqlite3" bench-full-run

PEERS_ARGS ?=
bench-full-run: $(BENCH_BIN) $(B)/cassette
	@for b in $(filter-out %/peers_bench %/seeds_bench,$(BENCH_BIN)); do echo "== $$b"; \
	    $$b || exit 1; done
	@echo "== $(B)/bench/peers_bench"
	@$(B)/bench/peers_bench $(PEERS_ARGS) --cassette $(B)/cassette --csv $(B)/bench/peers.csv
	@sh scripts/bench-report.sh $(B)/bench/peers.csv docs/benchmarks.md
	@sh scripts/bench-charts.sh $(B)/bench/peers.csv $(B)/bench/charts
	@echo "== $(B)/bench/seeds_bench"
	@$(B)/bench/seeds_bench --cassette $(B)/cassette --csv $(B)/bench/seeds.csv \
	    --report $(B)/bench/seeds.md
	@sh scripts/bench-splice.sh $(B)/bench/seeds.md seeds docs/benchmarks.md

# The main job: a narrated KillrChat scenario (examples/killrchat/demo.c) on an embedded
# database in a new directory under /tmp, which the interactive client then opens.
demo: deps
	@$(MAKE) --no-print-directory MODE=release examples
	@$(B)/bin/killrchat-demo

# The layer table of docs/hacking.md, checked over every include, and no dependency cycle
# between the library's objects (scripts/check-layers.sh reads their symbols with nm).
check-layers: $(B)/libcassette.a
	@sh scripts/check-layers.sh $(B)

# Every global symbol is a driver API name, a cassette_ extension or an
# eng_/cql_ internal, so the static library cannot collide with an application.
# (AddressSanitizer adds an __odr_asan.NAME beside each global: its own.)
check-symbols: $(B)/libcassette.a
	@bad=$$(nm -g --defined-only $(B)/libcassette.a | awk 'NF==3 {print $$3}' | \
	    grep -vE '^(cass_|cassette_|eng_|cql_|__odr_asan\.)' || true); \
	if [ -n "$$bad" ]; then echo "unprefixed globals:"; echo "$$bad"; exit 1; fi

# Installs the headers, libraries, shell and pkg-config file; into /usr or /usr/local (no
# DESTDIR) it also refreshes the loader's cache (as root; else it says to), so a program
# linked with `pkg-config --libs cassette` starts at once.
install: deps
	@$(MAKE) --no-print-directory lib
	install -d $(DESTDIR)$(PREFIX)/include/cassette $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(B)/cassette $(DESTDIR)$(PREFIX)/bin/
	for h in include/*.h; do [ -f "$$h" ] && install -m 644 $$h $(DESTDIR)$(PREFIX)/include/cassette/; done; true
	install -m 644 $(B)/libcassette.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(B)/libcassette.so $(DESTDIR)$(PREFIX)/lib/libcassette.so.$(VERSION)
	ln -sf libcassette.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libcassette.so.0
	ln -sf libcassette.so.0 $(DESTDIR)$(PREFIX)/lib/libcassette.so
	sed -e 's|@prefix@|$(PREFIX)|g' -e 's|@version@|$(VERSION)|g' cassette.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cassette.pc
	@case "$(DESTDIR):$(PREFIX)" in \
	:/usr|:/usr/local) \
	    if [ "$$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null; then ldconfig; \
	    else echo "cassette: run 'sudo ldconfig' so programs find libcassette.so"; fi ;; \
	esac

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/include/cassette
	rm -f $(DESTDIR)$(PREFIX)/lib/libcassette.a $(DESTDIR)$(PREFIX)/lib/libcassette.so*
	rm -f $(DESTDIR)$(PREFIX)/lib/pkgconfig/cassette.pc
	rm -f $(DESTDIR)$(PREFIX)/bin/cassette

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
.SECONDARY:
