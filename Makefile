# mod_placement: build, run and test.
#
#   make          build $(O)/mod_placement.so
#   make run      install what is missing, build, serve on 127.0.0.1:8780
#   make test     install what is missing, build, run every test on
#                 SQLite, PostgreSQL and MariaDB
#   make unit     C unit tests of the library (no httpd)
#   make lib      $(O)/libplacement.a: every layer below the glue
#   make tools    $(O)/mod-placement-manage: placement-manage's and
#                 placement-status's verbs in C (tools/manage/, part of all)
#   make $(O)/ac-engine  the candidate engine alone (bench/ac-engine.c)
#   make $(O)/json-cost  json-c's cost per shape of body (bench/json-cost.c)
#   make clang    the module and the unit tests built by clang -Werror
#                 into build-clang/ (a second compiler's warnings)
#   make test-asan the module built with ASan + UBSan (build-asan/) serving
#                 the API tests on SQLite (t/run-asan), then PostgreSQL
#                 failing under it (t/concurrency/run-asan, t/fault/run)
#   make format   rewrite the C files in the style of .clang-format;
#                 make format-check lists those that differ (make test)
#   make lint     cppcheck and clang-tidy (.clang-tidy) on every C file of
#                 mod_placement/, the log numbers against docs/log-numbers
#                 (scripts/lint.sh; not part of make test)
#   make fault-long  the database failures of issue 35 at length (t/fault,
#                 t/concurrency: sessions ended, MariaDB restarted)
#   make fuzz     libFuzzer harnesses of the pure parsers (t/fuzz/, clang,
#                 build-fuzz/), FUZZ_SECONDS (20) each; make fuzz-long: 600
#   make install  copy the module into httpd's module directory; on Debian
#                 also placement.load/.conf into /etc/apache2/mods-available
#                 (for a2enmod; DESTDIR honoured)
#
# Build output goes to $(O) (default build/), so several builds can live
# side by side: make O=/tmp/other.

APXS    ?= apxs
O       ?= build
CC      ?= gcc
WERROR  ?=

APXS_INCLUDEDIR := $(shell $(APXS) -q INCLUDEDIR 2>/dev/null)
APR_CFLAGS      := $(shell apr-1-config --cppflags --cflags --includes 2>/dev/null) \
                   $(shell apu-1-config --includes 2>/dev/null)
APR_LIBS        := $(shell apr-1-config --link-ld --libs 2>/dev/null) \
                   $(shell apu-1-config --link-ld --libs 2>/dev/null)
JSON_CFLAGS     := $(shell pkg-config --cflags json-c 2>/dev/null)
JSON_LIBS       := $(shell pkg-config --libs json-c 2>/dev/null)
# libcurl talks to Keystone; libyaml reads policy files
CURL_CFLAGS     := $(shell pkg-config --cflags libcurl 2>/dev/null)
CURL_LIBS       := $(shell pkg-config --libs libcurl 2>/dev/null)
YAML_CFLAGS     := $(shell pkg-config --cflags yaml-0.1 2>/dev/null)
YAML_LIBS       := $(shell pkg-config --libs yaml-0.1 2>/dev/null)

# SAN_FLAGS: sanitizer options for compiling and linking (make test-asan)
SAN_FLAGS ?=

# Two sets of flags, one per side of the line the layers draw
# (docs/architecture.md). The library below the glue is compiled WITHOUT
# httpd's include directory, so a store, engine, identity or compat file
# that reaches for httpd fails to compile; only the glue (httpd/, api/
# and, at the top of mod_placement/, the module's entry and the request
# pipeline) sees httpd. A folder's private headers sit
# beside its sources ("x.h" is looked up beside the including file first).
CFLAGS_BASE = $(SAN_FLAGS) -std=gnu99 -O2 -g -fPIC -Wall -Wextra -Wno-unused-parameter \
              -Wno-missing-field-initializers $(if $(WERROR),-Werror) \
              -Iinclude $(APR_CFLAGS) $(JSON_CFLAGS) $(CURL_CFLAGS) $(YAML_CFLAGS) \
              $(CPPFLAGS) $(CFLAGS)
CFLAGS_LIB  = $(CFLAGS_BASE)
CFLAGS_MOD  = $(CFLAGS_BASE) -Imod_placement/httpd -Imod_placement/api -I$(APXS_INCLUDEDIR)

# The layers, lowest first. Everything but the glue is libplacement.a,
# linked by the module, the unit tests, the fuzzers and bench/ac-engine.
LIB_DIRS  := common compat identity store candidates
GLUE_DIRS := httpd api
LIB_SRCS  := $(foreach d,$(LIB_DIRS),$(wildcard mod_placement/$(d)/*.c))
MOD_SRCS  := $(wildcard mod_placement/*.c) $(foreach d,$(GLUE_DIRS),$(wildcard mod_placement/$(d)/*.c))
LIB_OBJS  := $(patsubst mod_placement/%.c,$(O)/lib/%.o,$(LIB_SRCS)) $(O)/lib/pl_std_data.o
MOD_OBJS  := $(patsubst mod_placement/%.c,$(O)/mod/%.o,$(MOD_SRCS))
LIB       := $(O)/libplacement.a
LIB_HDRS  := $(wildcard include/*.h) $(foreach d,$(LIB_DIRS),$(wildcard mod_placement/$(d)/*.h))
MOD_HDRS  := $(LIB_HDRS) $(wildcard mod_placement/*.h) $(foreach d,$(GLUE_DIRS),$(wildcard mod_placement/$(d)/*.h))
LIB_LIBS  := $(APR_LIBS) $(JSON_LIBS) $(CURL_LIBS) $(YAML_LIBS) -luuid

# Unit tests may look into the private headers of the layers they test.
UNIT_CFLAGS := $(CFLAGS_LIB) $(foreach d,$(LIB_DIRS),-Imod_placement/$(d))
UNIT_SRCS := $(wildcard t/unit/test_*.c)
UNIT_BINS := $(patsubst t/unit/%.c,$(O)/unit/%,$(UNIT_SRCS))

.PHONY: all lib tools deps deps-run run test stress unit install clean clang asan-build test-asan format format-check \
        fuzz fuzz-long fuzz-build fuzz-bins lint

all: $(O)/mod_placement.so tools

lib: $(LIB)

$(O)/mod_placement.so: $(MOD_OBJS) $(LIB)
	$(CC) $(SAN_FLAGS) -shared $(LDFLAGS) -o $@ $(MOD_OBJS) $(LIB) $(JSON_LIBS) $(CURL_LIBS) $(YAML_LIBS) -luuid

$(LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(O)/lib/%.o: mod_placement/%.c $(LIB_HDRS) | $(O)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) -c -o $@ $<

$(O)/mod/%.o: mod_placement/%.c $(MOD_HDRS) | $(O)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_MOD) -c -o $@ $<

$(O)/pl_std_data.c: sql/resource_classes.txt sql/traits.txt scripts/gen-std-data.sh | $(O)
	scripts/gen-std-data.sh --c $@

$(O)/lib/pl_std_data.o: $(O)/pl_std_data.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) -c -o $@ $<

$(O):
	mkdir -p $(O)/unit

$(O)/unit/%: t/unit/%.c $(LIB) $(LIB_HDRS) $(wildcard t/unit/*.h) | $(O)
	$(CC) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIB_LIBS)

# The candidate engine alone, no database (bench/ac-engine.c; docs/benchmarks.md).
$(O)/ac-engine: bench/ac-engine.c $(LIB) $(LIB_HDRS) | $(O)
	$(CC) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIB_LIBS)

# What json-c spends per shape of body, beside pl_json_scan's price
# (bench/json-cost.c; docs/reliability.md).
$(O)/json-cost: bench/json-cost.c $(LIB) $(LIB_HDRS) | $(O)
	$(CC) $(UNIT_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LIB_LIBS)

# mod-placement-manage (tools/manage/, docs/operations.md): the schema
# tool on the library, the SQL of sql/migrations/ built into it.
MANAGE_SRCS := $(wildcard tools/manage/*.c)
MANAGE_OBJS := $(patsubst tools/manage/%.c,$(O)/manage/%.o,$(MANAGE_SRCS)) \
               $(O)/manage/pm_sql_data.o
tools: $(O)/mod-placement-manage

$(O)/mod-placement-manage: $(MANAGE_OBJS) $(LIB)
	$(CC) $(SAN_FLAGS) $(LDFLAGS) -o $@ $(MANAGE_OBJS) $(LIB) $(LIB_LIBS)

$(O)/manage/%.o: tools/manage/%.c tools/manage/pm.h $(LIB_HDRS) | $(O)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_LIB) -Itools/manage -c -o $@ $<

# config import writes LoadModule lines for httpd's module directory
$(O)/manage/pm_import.o: CFLAGS_LIB += \
    $(if $(APACHE_LIBEXECDIR),-DPM_MODULE_DIR='"$(APACHE_LIBEXECDIR)"')

# The tool's placement.conf reader has unit tests of its own: they link
# its object (it calls nothing else of the tool).
PM_READER_OBJS := $(O)/manage/pm_oslo_conf.o
$(O)/unit/test_oslo_conf: t/unit/test_oslo_conf.c $(PM_READER_OBJS) $(LIB) \
                          tools/manage/pm.h t/unit/tap.h | $(O)
	$(CC) $(UNIT_CFLAGS) -Itools/manage $(LDFLAGS) -o $@ $< \
	    $(PM_READER_OBJS) $(LIB) $(LIB_LIBS)

$(O)/manage/pm_sql_data.c: $(wildcard sql/migrations/*.sql) tools/manage/gen-sql.sh | $(O)
	@mkdir -p $(@D)
	tools/manage/gen-sql.sh $@

$(O)/manage/pm_sql_data.o: $(O)/manage/pm_sql_data.c tools/manage/pm.h
	$(CC) $(CFLAGS_LIB) -Itools/manage -c -o $@ $<

# Each binary runs once: its TAP lines are counted, and a non-zero exit
# without a "not ok" line (a crash, an abort) counts as one failure.
unit: $(UNIT_BINS)
	@pass=0; fail=0; \
	for t in $(UNIT_BINS); do \
	    out=$$($$t 2>&1); rc=$$?; echo "$$out"; \
	    p=$$(printf '%s\n' "$$out" | grep -c '^ok '); \
	    f=$$(printf '%s\n' "$$out" | grep -c '^not ok '); \
	    pass=$$((pass + p)); fail=$$((fail + f)); \
	    [ $$rc -eq 0 ] || [ $$f -gt 0 ] || fail=$$((fail + 1)); \
	done; \
	echo "unit: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]

# clang with -Wall -Wextra -Werror must build everything gcc builds; one
# summary line for t/run-all.
CLANG_O ?= build-clang
clang:
	@if $(MAKE) --no-print-directory -s O=$(CLANG_O) CC=clang WERROR=1 \
	        all $(patsubst $(O)/%,$(CLANG_O)/%,$(UNIT_BINS)); then \
	    echo "clang: 1 passed, 0 failed"; \
	else echo "clang: 0 passed, 1 failed"; exit 1; fi

# The module under AddressSanitizer and UndefinedBehaviorSanitizer serving
# every API test file, then PostgreSQL's sessions ended and the server
# restarted under writers, then its connection cut under driver calls; any
# report fails (t/run-asan, t/concurrency/run-asan, t/fault/run,
# docs/reliability.md). make test runs the last two (shorter).
ASAN_O ?= build-asan
asan-build:
	$(MAKE) --no-print-directory O=$(ASAN_O) WERROR=1 \
	    SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer \
	               -fno-sanitize-recover=undefined" all
test-asan: asan-build
	MOD_PLACEMENT=$(abspath $(ASAN_O))/mod_placement.so t/run-asan
	MOD_PLACEMENT=$(abspath $(ASAN_O))/mod_placement.so t/concurrency/run-asan
	MOD_PLACEMENT=$(abspath $(ASAN_O))/mod_placement.so t/fault/run

# Static analysis: cppcheck and clang-tidy with the flags above, a report
# per finding and "lint: N passed, M failed" (files clean / with reports);
# then scripts/check-log-numbers.sh (docs/log-numbers) as one more.
lint:
	APXS=$(APXS) scripts/lint.sh

# libFuzzer harnesses (t/fuzz/fuzz_<name>.c) on the pure objects, built by
# clang with ASan + UBSan into $(FUZZ_O); t/fuzz/run runs each one.
FUZZ_O       ?= build-fuzz
FUZZ_SECONDS ?= 20
FUZZ_NAMES   := $(patsubst t/fuzz/fuzz_%.c,%,$(wildcard t/fuzz/fuzz_*.c))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
fuzz-bins: $(patsubst %,$(O)/fuzz/fuzz_%,$(FUZZ_NAMES))

$(O)/fuzz/fuzz_%: t/fuzz/fuzz_%.c t/fuzz/fuzz.h $(LIB) $(LIB_HDRS) | $(O)
	@mkdir -p $(O)/fuzz
	$(CC) $(UNIT_CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB) $(LIB_LIBS)

fuzz-build:
	$(MAKE) --no-print-directory O=$(FUZZ_O) CC=clang WERROR=1 \
	    SAN_FLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" fuzz-bins

fuzz: fuzz-build
	FUZZ_O=$(FUZZ_O) t/fuzz/run $(FUZZ_SECONDS)

fuzz-long: fuzz-build
	FUZZ_O=$(FUZZ_O) t/fuzz/run $(or $(FUZZ_LONG_SECONDS),600)

deps:
	scripts/install-deps.sh

deps-run:
	scripts/install-deps.sh --run

run: deps-run
	$(MAKE) all
	exec env MOD_PLACEMENT=$(abspath $(O))/mod_placement.so scripts/run.sh

test: deps
	$(MAKE) all WERROR=1
	MOD_PLACEMENT=$(abspath $(O))/mod_placement.so O=$(O) t/run-all

# The long stress run of issue 23 (ten times the slice's sizes, 500 slow
# clients for 100 s) on the three databases: about 15 minutes.
stress: deps all
	MOD_PLACEMENT=$(abspath $(O))/mod_placement.so t/stress/run --long \
	    --backend sqlite --backend pgsql --backend mysql

# Issue 35's database failures at length (make test runs a slice): the
# PostgreSQL and MariaDB connections cut under one driver call in 11 to
# 97, and writers through two servers while every session is ended 20
# times and the database restarted 3 times. About 4 minutes.
.PHONY: fault-long
fault-long: deps all
	MOD_PLACEMENT=$(abspath $(O))/mod_placement.so t/fault/run \
	    --backend pgsql --backend mysql 11 17 23 47 97
	MOD_PLACEMENT=$(abspath $(O))/mod_placement.so t/concurrency/run \
	    --kills 0 --ends 20 --restarts 3 --seconds 120

# Issue 24: a small real OpenStack in one Apache (Keystone, nova's API and
# the module side by side) with nova's services beside it, on 127.0.0.1;
# Ctrl-C stops it (scripts/cloud/cloud.sh, docs/cloud.md). REFERENCE=1
# serves upstream placement 8.0.0 instead; CLOUD_DB=mysql, CLOUD_POLICY=current.
.PHONY: cloud test-cloud
cloud:
	scripts/install-deps.sh --cloud
	$(MAKE) all
	d=$$(mktemp -d /tmp/cloud.XXXXXX) && chmod 755 $$d && \
	exec env MOD_PLACEMENT=$(abspath $(O))/mod_placement.so REFERENCE=$(REFERENCE) \
	    $(if $(CLOUD_DB),CLOUD_DB=$(CLOUD_DB)) $(if $(CLOUD_POLICY),CLOUD_POLICY=$(CLOUD_POLICY)) \
	    scripts/cloud/cloud.sh run $$d/cloud

# The scenario and the boot storm on that cloud, with both policy releases
# and with the reference (t/cloud/run); .ci/run calls it after make test.
test-cloud:
	scripts/install-deps.sh --cloud
	$(MAKE) all WERROR=1
	MOD_PLACEMENT=$(abspath $(O))/mod_placement.so t/cloud/run

# Issue 25: upstream placement master's own gabbits (extracted from a git
# directory of upstream's repository into /tmp) on the module with
# PlacementPolicyDefaults 2026.1, PostgreSQL then MariaDB; a yardstick the
# team runs by hand (CI has no network), not a step of make test.
#   make conformance-master PLACEMENT_GIT=/path/to/placement.git
# [PLACEMENT_REF=master] [CONFORMANCE_BACKEND=pgsql]
.PHONY: conformance-master
conformance-master: all
	MOD_PLACEMENT=$(abspath $(O))/mod_placement.so t/conformance/master \
	    $(if $(PLACEMENT_REF),--ref $(PLACEMENT_REF)) \
	    $(if $(CONFORMANCE_BACKEND),--backend $(CONFORMANCE_BACKEND)) \
	    $(or $(PLACEMENT_GIT),$(error set PLACEMENT_GIT to a git directory of upstream placement))

# Debian's layout: a2enmod reads $(APACHE_CONFDIR)/mods-available. The
# .load is always refreshed; a placement.conf an operator may have edited is
# left as it is. The API is mounted by a snippet of the operator's
# (conf/apache2/placement-api.conf or placement-vhost.conf, edited).
APACHE_LIBEXECDIR := $(shell $(APXS) -q LIBEXECDIR 2>/dev/null)
APACHE_CONFDIR    ?= $(shell $(APXS) -q SYSCONFDIR 2>/dev/null)
BINDIR            ?= /usr/bin
DEBIAN_LAYOUT     ?= $(if $(wildcard $(APACHE_CONFDIR)/mods-available),1)

install: all
	install -d $(DESTDIR)$(APACHE_LIBEXECDIR)
	install -m 644 $(O)/mod_placement.so $(DESTDIR)$(APACHE_LIBEXECDIR)/mod_placement.so
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(O)/mod-placement-manage $(DESTDIR)$(BINDIR)/mod-placement-manage
ifeq ($(DEBIAN_LAYOUT),1)
	install -d $(DESTDIR)$(APACHE_CONFDIR)/mods-available
	sed 's|/usr/lib/apache2/modules/|$(APACHE_LIBEXECDIR)/|' conf/apache2/placement.load \
	    >$(DESTDIR)$(APACHE_CONFDIR)/mods-available/placement.load
	chmod 644 $(DESTDIR)$(APACHE_CONFDIR)/mods-available/placement.load
	@f=$(DESTDIR)$(APACHE_CONFDIR)/mods-available/placement.conf; \
	if [ -e $$f ]; then echo "make install: $$f exists, left as it is"; \
	else echo "install -m 644 conf/apache2/placement.conf $$f"; \
	     install -m 644 conf/apache2/placement.conf $$f; fi
	@echo "make install: next: a2enmod placement; mount the API with an edited copy of" \
	      "conf/apache2/placement-api.conf (a2enconf) or placement-vhost.conf (a2ensite);" \
	      "apache2ctl configtest"
endif

clean:
	rm -rf $(O)

# The house style (.clang-format; ../shared/docs/STYLE.md 3.3) on every C
# file of the project: `make format` rewrites them, `make format-check`
# lists those that differ (one summary line for t/run-all).
CLANG_FORMAT ?= clang-format
FORMAT_SRCS   = $(wildcard mod_placement/*.[ch] mod_placement/*/*.[ch] include/*.h \
                           t/unit/*.c t/unit/*.h t/fuzz/*.c bench/*.c bench/cloud/*.c \
                           tools/manage/*.[ch])
format:
	$(CLANG_FORMAT) -i $(FORMAT_SRCS)

format-check:
	@bad=0; for f in $(FORMAT_SRCS); do \
	    if ! $(CLANG_FORMAT) --dry-run -Werror $$f >/dev/null 2>&1; then \
	        echo "not formatted: $$f (make format)"; bad=$$((bad + 1)); fi; \
	done; \
	echo "format: $$(( $(words $(FORMAT_SRCS)) - bad )) passed, $$bad failed"; \
	[ $$bad -eq 0 ]
