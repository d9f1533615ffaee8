# segscan — plain Makefile. `make run` and `make test` work on a fresh Debian machine:
# the deps stamp installs missing packages first (scripts/install-deps.sh).
#
# Build trees: build/ (release, -O2), build/asan (ASan+UBSan), build/tsan (TSan); the
# sanitizer trees have ss_assert on. MODE=debug B=build/debug: -O0 with ss_assert.
# Sources are picked up by wildcard so a new module or test needs no Makefile edit.

CC       ?= cc
# The version lives in include/segscan_version.h (the header an embedder compiles against).
VERSION  := $(shell sed -n 's/^\#define SEGSCAN_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' include/segscan_version.h | paste -sd.)
# LIB_PKGS: what libsegscan itself links (the scanner, formats, evaluator, outputs; its
# DT_NEEDED list is checked by tests/install.sh, docs/install.md says why each is there).
# TOOL_PKGS: what only serve, dump, gen and merge add, in the binary (merge's reading of
# serve endpoints, src/merge/fetch.c, uses the library's libcurl: the s3:// remote store's,
# src/source/store_s3.c). No libnuma: the topology is
# read from sysfs (src/sched/topology.c).
LIB_PKGS := liburing jansson zlib liblz4 libzstd rdkafka libcurl expat
TOOL_PKGS := libmicrohttpd libxcrypt
PKGS     := $(LIB_PKGS) jemalloc $(TOOL_PKGS)
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
BASEFLAGS := -std=gnu11 -g -D_GNU_SOURCE -DSEGSCAN_VERSION=\"$(VERSION)\" -Iinclude -Isrc $(WARN) \
             -I/usr/include/x86_64-linux-gnu
B        ?= build
MODE     ?= release

# -DSS_ASSERTS turns ss_assert on (src/common/assert.h): in the sanitizer builds the test
# suites run and in MODE=debug (-O0, ss_assert, no sanitizer), never in release.
ifeq ($(MODE),asan)
  MODEFLAGS := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DSS_NO_JEMALLOC -DSS_ASSERTS
  MODELIBS  := -fsanitize=address,undefined
else ifeq ($(MODE),tsan)
  MODEFLAGS := -O1 -fno-omit-frame-pointer -fsanitize=thread -DSS_NO_JEMALLOC -DSS_ASSERTS
  MODELIBS  := -fsanitize=thread
else ifeq ($(MODE),debug)
  MODEFLAGS := -O0 -DSS_ASSERTS
  MODELIBS  :=
else
  MODEFLAGS := -O2
  MODELIBS  :=
endif

# pkg-config runs when a recipe needs the flags (after the deps stamp has installed what is
# missing). Its own message ("Package liburing was not found ...") goes to stderr untouched
# and a failure stops the build instead of compiling on without the flags.
pkgconf = $(shell pkg-config $(1) $(PKGS))$(if $(filter 0,$(.SHELLSTATUS)),,$(error pkg-config $(1) $(PKGS) failed: see its message above))
PKG_CFLAGS = $(call pkgconf,--cflags)
PKG_LIBS   = $(call pkgconf,--libs) -lsnappy -lpthread -lm
# the library's own link (libsegscan.so): its packages only
LIB_LIBS   = $(shell pkg-config --libs $(LIB_PKGS)) -lsnappy -lpthread -lm
ifeq ($(MODE),release)
  LIBS = $(PKG_LIBS)
else
  LIBS = $(filter-out -ljemalloc,$(PKG_LIBS))
endif
# libsystemd is optional: with it serve's Type=notify messages go through sd_notify(3),
# without it through src/service/notify.c's own writer of the same datagram protocol.
ifeq ($(shell pkg-config --exists libsystemd 2>/dev/null && echo yes),yes)
  PKGS      += libsystemd
  BASEFLAGS += -DSS_HAVE_LIBSYSTEMD
endif
CFLAGS_ALL = $(BASEFLAGS) $(MODEFLAGS) $(PKG_CFLAGS) $(CFLAGS)

# EXCLUDE_SRCS=src/x.c leaves a library source out of a build (a module mid-rewrite).
# libsegscan (.a and .so) is the scanner, the formats, the evaluator and the outputs. serve,
# dump and gen (TOOL_DIRS) are the binary's: each folder is an internal archive,
# $(B)/libss_<folder>.a, that the binary and the tests link before libsegscan.a and that is
# never installed (docs/architecture.md, the layer table).
TOOL_DIRS := service dump gen merge
SRCS      := $(filter-out $(EXCLUDE_SRCS),$(sort $(shell find src -name '*.c' -not -path 'src/cli/*')))
TOOL_SRCS := $(filter $(TOOL_DIRS:%=src/%/%),$(SRCS))
LIB_SRCS  := $(filter-out $(TOOL_SRCS),$(SRCS))
CLI_SRCS  := $(sort $(wildcard src/cli/*.c))
TEST_SRCS := $(sort $(wildcard tests/test_*.c))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(B)/obj/%.o)
TOOL_OBJS := $(TOOL_SRCS:%.c=$(B)/obj/%.o)
TOOL_ARS  := $(TOOL_DIRS:%=$(B)/libss_%.a)
CLI_OBJS  := $(CLI_SRCS:%.c=$(B)/obj/%.o)
TESTS     := $(TEST_SRCS:tests/%.c=$(B)/tests/%)
DEPS_STAMP := build/.deps-installed
# Sanitizer build trees, overridable so that several checkouts' builds do not share objects.
ASAN_B   ?= build/asan
TSAN_B   ?= build/tsan

.PHONY: all deps run test test-unit test-asan asan-build test-tsan check-layers fuzz bench bench-selftest conformance clean shared install uninstall
all: $(B)/segscan $(B)/libsegscan.a $(TOOL_ARS)

$(DEPS_STAMP): scripts/install-deps.sh
	@mkdir -p build
	@bash scripts/install-deps.sh
	@touch $@
deps: $(DEPS_STAMP)

# Each object and test depends on the headers it really includes: the compiler writes them
# to a .d file beside it (-MMD), with an empty rule per header (-MP) so a deleted or moved
# header does not stop the build. An object without its .d file (built before, or the .d
# lost) is rebuilt once: the .d is a prerequisite with an empty rule (P. Smith's
# "Auto-Dependency Generation").
DEPFLAGS = -MMD -MP -MF $@.d -MT $@

$(B)/obj/%.o: %.c $(B)/obj/%.o.d | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) $(DEPFLAGS) -c $< -o $@

# The archives and the .so also depend on the Makefile: what goes into them is decided here.
$(B)/libsegscan.a: $(LIB_OBJS) Makefile
	@mkdir -p $(dir $@)
	@echo "  AR      $@"
	@rm -f $@ && ar rcs $@ $(LIB_OBJS)

# One internal archive per tool folder (TOOL_DIRS), from that folder's objects.
define tool_archive
$(B)/libss_$(1).a: $(filter $(B)/obj/src/$(1)/%,$(TOOL_OBJS)) Makefile
	@echo "  AR      $$@"
	@rm -f $$@ && ar rcs $$@ $(filter $(B)/obj/src/$(1)/%,$(TOOL_OBJS))
endef
$(foreach d,$(TOOL_DIRS),$(eval $(call tool_archive,$(d))))

$(B)/segscan: $(CLI_OBJS) $(TOOL_ARS) $(B)/libsegscan.a
	@echo "  LD      $@"
	@$(CC) $(MODELIBS) -o $@ $(CLI_OBJS) $(TOOL_ARS) $(B)/libsegscan.a $(LIBS)

# A test's dependency file lives in obj/, not beside it: tests/run.sh runs every test_* there.
# Tests of serve, dump and gen internals link their archives; the others take nothing from them.
$(B)/tests/%: tests/%.c $(TOOL_ARS) $(B)/libsegscan.a $(B)/obj/tests/%.test.d | $(DEPS_STAMP)
	@mkdir -p $(dir $@) $(B)/obj/tests
	@echo "  TEST    $@"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -MF $(B)/obj/tests/$*.test.d -MT $@ -Itests -o $@ $< $(TOOL_ARS) $(B)/libsegscan.a $(LIBS) -lcmocka $(MODELIBS)

DEP_FILES := $(LIB_OBJS:%=%.d) $(TOOL_OBJS:%=%.d) $(LIB_SRCS:%.c=$(B)/pic/%.o.d) $(CLI_OBJS:%=%.d) $(TEST_SRCS:tests/%.c=$(B)/obj/tests/%.test.d)
$(DEP_FILES): ;
.PRECIOUS: $(DEP_FILES)
-include $(wildcard $(DEP_FILES))

# ---- run: build, generate a sample log dir, scan it, print the report -------------------
SAMPLE := build/sample
run: all
	@rm -rf $(SAMPLE)
	./build/segscan gen $(SAMPLE)/logdir --topics=3 --partitions=4 --segments=6 \
	    --segment-bytes=256KiB --single-record-tail=2 --seed=42 --remote-state=$(SAMPLE)/remote.ndjson
	./build/segscan scan --remote-state=$(SAMPLE)/remote.ndjson --topic-config=$(SAMPLE)/topic-config.txt \
	    --now=1700000000000 $(SAMPLE)/logdir

# ---- tests -------------------------------------------------------------------------------
# test: the three suites below, with REAL_TESTS in their own lane (tests/suite.sh).
# test-unit: every test, release build. test-asan: every test under ASan+UBSan.
# test-tsan: the ring, worker and scan tests under TSan (the thread code).
TSAN_TESTS := test_ring test_worker test_scan test_io test_races test_serve_lifecycle test_cancel test_log test_rescan test_serve_auth test_api
# REAL_TESTS start real Kafka brokers, Prometheus or an S3 server: `make test` runs them in a
# lane beside the other suites (tests/suite.sh says why); test-unit runs them in line.
# REAL_ASAN_TESTS: those of them that also run under ASan+UBSan (the others skip there).
REAL_TESTS := test_harness_smoke test_health_real test_audit_real test_fleet_real test_dellag_real test_broker_metrics_real test_live_cluster
REAL_ASAN_TESTS := test_live_cluster
test: check-layers all $(TESTS) | $(DEPS_STAMP)
	@ASAN_B=$(ASAN_B) ASAN_ENV="$(ASAN_ENV)" bash tests/suite.sh "$(MAKE)" $(B) "$(REAL_TESTS)" "$(REAL_ASAN_TESTS)"
	@echo "make test: all suites passed"

# The layering check (docs/architecture.md, "Checking the layering"): includes and calls
# ranked by the layer table, against scripts/layers-exceptions.txt. The self-test first
# proves it catches an injected violation.
check-layers: all
	@python3 scripts/check-layers.py --self-test $(B)
	@python3 scripts/check-layers.py $(B)

test-unit: all $(TESTS)
	@SEGSCAN=$(B)/segscan bash tests/run.sh $(B)/tests

ASAN_ENV = SEGSCAN=$(ASAN_B)/segscan SEGSCAN_LOAD_SECONDS=5 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
asan-build: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory B=$(ASAN_B) MODE=asan all $(TEST_SRCS:tests/%.c=$(ASAN_B)/tests/%)
test-asan: asan-build
	@$(ASAN_ENV) bash tests/run.sh $(ASAN_B)/tests

test-tsan: | $(DEPS_STAMP)
	@$(MAKE) --no-print-directory B=$(TSAN_B) MODE=tsan all $(addprefix $(TSAN_B)/tests/,$(filter $(TSAN_TESTS),$(TEST_SRCS:tests/%.c=%)))
	@SEGSCAN=$(TSAN_B)/segscan SEGSCAN_LOAD_SECONDS=5 \
	    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	    bash tests/run.sh $(TSAN_B)/tests $(filter $(TSAN_TESTS),$(TEST_SRCS:tests/%.c=%))

# ---- fuzz: each parser's libFuzzer target for a bounded time ---------------------------------
# From the committed corpus tests/fuzz/corpus/<target>/, which each run grows (minimised)
# and whose executions it adds to tests/fuzz/executions.tsv (docs/fuzzing.md); FUZZ_MERGE=0
# leaves both alone, FUZZ_ONLY="fuzz_a fuzz_b" runs those. Long soaks: tests/fuzz/soak.sh.
FUZZ_SECONDS ?= 20
fuzz: | $(DEPS_STAMP)
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS)

# Benchmarks (not part of make test): side by side with the floors and peers, see
# docs/performance.md. BENCH_SCALE=large for >= 1M segments; BENCH_ONLY= for a subset.
bench: all
	@bash scripts/install-deps.sh --bench
	@B=$(B) bash bench/run.sh

bench-selftest: all
	@B=$(B) bash bench/selftest.sh

# ---- shared library, pkg-config, install, uninstall ---------------------------------------
# libsegscan.so is built from its own position-independent objects (build/pic/), so the
# binary and libsegscan.a keep their non-PIC code. It holds LIB_SRCS only (not serve, dump,
# gen) and links LIB_PKGS only, --as-needed, so its DT_NEEDED is what the scanner uses.
# src/lib/segscan.map exports segscan_* only; neither the .so nor segscan.pc brings jemalloc
# to an embedder (the arenas use it when the process has it, src/sched/arena.c); the soname
# carries the major version.
# tests/install.sh (run by test_install) installs into a temporary DESTDIR, builds
# examples/ against the installed segscan.pc (and statically against libsegscan.a), checks
# `nm -D`, the .so's DT_NEEDED list and that uninstall leaves nothing.
SOMAJOR    := $(firstword $(subst ., ,$(VERSION)))
SONAME     := libsegscan.so.$(SOMAJOR)
PIC_OBJS   := $(LIB_SRCS:%.c=$(B)/pic/%.o)
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/segscan
PKGDATADIR ?= $(DATADIR)/segscan
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
UNITDIR    ?= $(PREFIX)/lib/systemd/system
LDCONFIG   ?= ldconfig
MAN1       := $(sort $(wildcard man/*.1))
MAN7       := $(sort $(wildcard man/*.7))
DOCS       := README.md $(sort $(wildcard docs/*.md))
EXAMPLES   := $(sort $(wildcard examples/*.c examples/Makefile))
CONTRIB    := $(sort $(wildcard contrib/prometheus/*.yml contrib/grafana/*.json))
HEADERS    := include/segscan.h include/segscan_version.h

$(B)/pic/%.o: %.c $(B)/pic/%.o.d | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC PIC  $<"
	@$(CC) $(CFLAGS_ALL) -fPIC $(DEPFLAGS) -c $< -o $@

$(B)/libsegscan.so.$(VERSION): $(PIC_OBJS) src/lib/segscan.map Makefile
	@echo "  LD      $@"
	@$(CC) $(MODELIBS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/lib/segscan.map \
	    -Wl,--no-undefined -Wl,--as-needed -o $@ $(PIC_OBJS) $(LIB_LIBS)
	@ln -sf libsegscan.so.$(VERSION) $(B)/$(SONAME)
	@ln -sf $(SONAME) $(B)/libsegscan.so

$(B)/segscan.pc: segscan.pc.in Makefile
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@DOCDIR@|$(DOCDIR)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@REQUIRES@|$(LIB_PKGS)|' $< > $@

# The unit names the installed binary.
$(B)/segscan.service: scripts/segscan.service Makefile
	@mkdir -p $(dir $@)
	@sed -e 's|/usr/local/bin/segscan|$(BINDIR)/segscan|g' \
	    -e 's|/usr/share/doc/segscan|$(DOCDIR)|g' $< > $@

shared: $(B)/libsegscan.so.$(VERSION)

# The dynamic linker finds the new libsegscan.so.N through its cache: install refreshes
# it (LDCONFIG) when installing to this system as root; a staged (DESTDIR) install leaves
# it to the package's own step, and anyone else is told to run it.
install: all shared $(B)/segscan.pc $(B)/segscan.service
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DOCDIR)/examples \
	    $(DESTDIR)$(PKGDATADIR)/prometheus $(DESTDIR)$(PKGDATADIR)/grafana \
	    $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(UNITDIR)
	install -m 0755 $(B)/segscan $(DESTDIR)$(BINDIR)/segscan
	install -m 0755 $(B)/libsegscan.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libsegscan.so.$(VERSION)
	ln -sf libsegscan.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libsegscan.so
	install -m 0644 $(B)/libsegscan.a $(DESTDIR)$(LIBDIR)/libsegscan.a
	install -m 0644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 $(B)/segscan.pc $(DESTDIR)$(PKGCONFIGDIR)/segscan.pc
	$(if $(MAN1),install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN7),install -m 0644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/)
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	$(if $(EXAMPLES),install -m 0644 $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/)
	$(if $(wildcard contrib/prometheus/*.yml),install -m 0644 $(wildcard contrib/prometheus/*.yml) $(DESTDIR)$(PKGDATADIR)/prometheus/)
	$(if $(wildcard contrib/grafana/*.json),install -m 0644 $(wildcard contrib/grafana/*.json) $(DESTDIR)$(PKGDATADIR)/grafana/)
	$(if $(wildcard completions/segscan.bash),install -m 0644 completions/segscan.bash $(DESTDIR)$(BASHCOMPDIR)/segscan)
	$(if $(wildcard completions/_segscan),install -m 0644 completions/_segscan $(DESTDIR)$(ZSHCOMPDIR)/_segscan)
	install -m 0644 $(B)/segscan.service $(DESTDIR)$(UNITDIR)/segscan.service
	@if [ -n "$(DESTDIR)" ]; then \
	    echo "note: staged in DESTDIR; run ldconfig on the target system after installing $(LIBDIR)/$(SONAME)"; \
	elif [ "$$(id -u)" != 0 ]; then \
	    echo "note: not root: run 'sudo ldconfig' so the dynamic linker finds $(LIBDIR)/$(SONAME)"; \
	else \
	    echo "$(LDCONFIG)"; $(LDCONFIG) || exit 1; \
	    $(LDCONFIG) -p 2>/dev/null | grep -qF "$(LIBDIR)/$(SONAME)" || \
	    echo "note: $(LIBDIR) is not in the dynamic linker's search path: add it to /etc/ld.so.conf.d/ and run ldconfig, or set LD_LIBRARY_PATH"; \
	fi

# Removes exactly what install put there (by name: DOCDIR or PKGDATADIR may have been pointed
# at a shared directory), then segscan's own directories if they are empty.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/segscan $(DESTDIR)$(LIBDIR)/libsegscan.so.$(VERSION) \
	    $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libsegscan.so $(DESTDIR)$(LIBDIR)/libsegscan.a \
	    $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(notdir $(HEADERS))) $(DESTDIR)$(PKGCONFIGDIR)/segscan.pc \
	    $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7))) \
	    $(DESTDIR)$(BASHCOMPDIR)/segscan $(DESTDIR)$(ZSHCOMPDIR)/_segscan $(DESTDIR)$(UNITDIR)/segscan.service
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS))) \
	    $(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(notdir $(EXAMPLES))) \
	    $(addprefix $(DESTDIR)$(PKGDATADIR)/prometheus/,$(notdir $(wildcard contrib/prometheus/*.yml))) \
	    $(addprefix $(DESTDIR)$(PKGDATADIR)/grafana/,$(notdir $(wildcard contrib/grafana/*.json)))
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PKGDATADIR)/prometheus \
	    $(DESTDIR)$(PKGDATADIR)/grafana $(DESTDIR)$(PKGDATADIR) 2>/dev/null

# Regenerate the golden fixtures from a live Kafka broker (needs Java 17, Maven and Maven
# Central), then compare segscan with them.
conformance: all $(B)/tests/test_conformance
	@bash scripts/kafka-oracle/run.sh --update-fixtures
	@SEGSCAN=$(B)/segscan bash tests/run.sh $(B)/tests test_conformance

clean:
	rm -rf build/obj build/asan build/tsan build/tests build/segscan build/libsegscan.a build/libss_*.a build/sample
