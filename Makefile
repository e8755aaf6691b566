# proftools: one non-recursive Makefile, one pattern rule for every object.
#
#   make                 build every cmd/*.c into bin/ (and proftools-profile)
#   make check           unit + tool tests, then the same under ASan+UBSan
#   make demo            profile the bundled workload, print the result path
#   make fuzz            the libFuzzer targets, FUZZ_SECONDS (60) each (clang)
#   make install         PREFIX=/usr/local DESTDIR=
#   make BUILD=dir BINDIR=dir SANITIZE=address,undefined   out-of-tree builds
#   make WERROR=1        warnings are errors (CI)
#   make CPPFLAGS=... CFLAGS=... LDFLAGS=...   honoured (distribution builds)
#
# Libraries come from pkg-config (plain -lNAME without a .pc file); each
# tool links only those it uses (LIBS_tool below). Probes run once per
# build directory and are kept in $(BUILD)/config.mk.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
BINDIR  ?= bin
CC      ?= cc
PKG_CONFIG ?= pkg-config

WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -Wundef
CFLAGS  ?= -O2 -g

empty :=
space := $(empty) $(empty)
HASH  := \#

# ---- configuration, probed once per build directory -------------------------
# pkg-config's answers and the optional-library probes are cached in
# $(BUILD)/config.mk: a make run starts no shell for them once they are
# known. Only what was found is cached: a library or .pc file that was
# missing is looked for again by the next make, so one installed since
# (make deps, make demo on a fresh machine) is used without deleting the
# cache. The cache is dropped when what the answers depend on changes
# (compiler, flags, pkg-config and its search path); delete it to probe again.
CONFIG_MK  := $(BUILD)/config.mk
CONFIG_KEY := CC=$(CC) CPPFLAGS=$(CPPFLAGS) CFLAGS=$(CFLAGS) LDFLAGS=$(LDFLAGS) \
	PKG_CONFIG=$(PKG_CONFIG) PKG_CONFIG_PATH=$(PKG_CONFIG_PATH) PKG_CONFIG_LIBDIR=$(PKG_CONFIG_LIBDIR) \
	PKG_CONFIG_SYSROOT_DIR=$(PKG_CONFIG_SYSROOT_DIR)
# Values are written as make reads them back ('#' and '$' escaped).
config_quote = $(subst $(HASH),\$(HASH),$(subst $$,$$$$,$(1)))
# $(call config_set,NAME,VALUE): config.NAME := VALUE, here and in the cache.
config_set = $(eval config.$(1) := $(call config_quote,$(2)))$(file >>$(CONFIG_MK),config.$(1) := $(call config_quote,$(2)))
# $(call cached,NAME,COMMAND): the output of the shell COMMAND, run once per
# build directory. NAME: no whitespace, ':', '=' or '#'.
cached = $(if $(filter undefined,$(origin config.$(1))),$(call config_set,$(1),$(strip $(shell $(2)))))$(config.$(1))
# $(call cached_found,NAME,COMMAND): the same, but an empty output (not
# found) is kept for this make run only, never written to the cache.
cached_found = $(if $(filter undefined,$(origin config.$(1))),$(call keep_found,$(1),$(strip $(shell $(2)))))$(config.$(1))
keep_found = $(if $(2),$(call config_set,$(1),$(2)),$(eval config.$(1) :=))

-include $(CONFIG_MK)
ifneq ($(config.key),$(strip $(CONFIG_KEY)))
$(foreach v,$(filter config.%,$(.VARIABLES)),$(eval undefine $(v)))
$(shell mkdir -p $(BUILD))
$(file >$(CONFIG_MK),$(HASH) proftools build configuration, written by the Makefile (delete it to probe again))
$(call config_set,key,$(strip $(CONFIG_KEY)))
endif

# $(call have_lib,HEADER,LIBS): "yes" when HEADER compiles and LIBS link
# (optional libraries, probed by the lib/**/*.mk fragments).
have_lib = $(call cached_found,have_lib.$(subst $(space),_,$(strip $(1) $(2))),printf '$(HASH)include <$(1)>\nint main(void){return 0;}\n' | \
	$(CC) $(CPPFLAGS) $(CFLAGS) -x c - $(LDFLAGS) -o /dev/null $(2) >/dev/null 2>&1 && echo yes)

# ---- libraries ----------------------------------------------------------------
# A library is named by its -l name. PC_NAME is its pkg-config module:
# compile and link flags come from it when its .pc file is installed, else
# the library is linked with plain -lNAME (libm, libdl, and libiberty and
# libbz2, whose Debian packages ship no .pc file).
PC_dw       := libdw
PC_elf      := libelf
PC_zstd     := libzstd
PC_lz4      := liblz4
PC_z        := zlib
PC_capstone := capstone
PC_brotlienc := libbrotlienc
PC_brotlidec := libbrotlidec
PC_lzma     := liblzma
PC_snappy   := snappy
PC_deflate  := libdeflate
# $(call lib_cflags,NAMES) and $(call lib_ldlibs,NAMES): their flags.
# A module pkg-config does not know (its -dev package not yet installed)
# gives no cflags and a plain -lNAME, and is asked again by the next make.
pc_flags = $(filter-out pkg-config-found,$(call cached_found,$(2).$(1),$(PKG_CONFIG) --$(2) $(PC_$(1)) 2>/dev/null && echo pkg-config-found))
lib_cflags = $(foreach l,$(1),$(if $(PC_$(l)),$(call pc_flags,$(l),cflags)))
lib_ldlibs = $(foreach l,$(1),$(if $(PC_$(l)),$(or $(call pc_flags,$(l),libs),-l$(l)),-l$(l)))

# The libraries each tool links (LIBS_tool): only those whose code it
# uses. Every tool reads or writes streams through lib/io (zstd, lz4,
# zlib) and formats numbers with libm; profrec and profheap symbolize
# (libdw, libelf); dl where lib/ calls dlopen (symbolize: libdebuginfod;
# gpu: NVML); iberty (libiberty.a, base/demangle.c) where names are
# demangled: the symbolizer and the perf script reader of every tool that
# reads profiles. profcompress's optional codec libraries come from
# lib/codec/codec.mk (EXTRA_LIBS). A tool not listed here links the
# libraries of all the others.
LIBS_io           := zstd lz4 z
LIBS_proffold     := $(LIBS_io) iberty m
LIBS_profflame    := $(LIBS_io) iberty m
LIBS_profcompress := $(LIBS_io) m
LIBS_profcmp      := $(LIBS_io) iberty m
LIBS_profreport   := $(LIBS_io) iberty m
LIBS_profgpu      := dw elf $(LIBS_io) iberty m dl
LIBS_profrec      := dw elf $(LIBS_io) iberty m dl
LIBS_profheap     := dw elf $(LIBS_io) iberty m dl
LIBS_profannotate := dw elf capstone $(LIBS_io) iberty m dl
tool_libs = $(call lib_ldlibs,$(or $(LIBS_$(1)),$(LIBS_ALL)))

# The libraries of the design are required, not optional: a build without
# one of them would be a crippled toolkit (profannotate without capstone,
# no Rust or C++ names without libiberty) that tests could only skip.
# Before the first object is compiled, each is compiled and linked with
# the build's flags once per build directory; a missing one stops the
# build here, naming every missing package and the line that installs
# them, rather than in a compiler error. Entries: -l name, a header, its
# Debian package; REQUIRED_MAIN_name is the probe's main (libiberty's must
# have the Rust demangler, which older releases lack).
REQUIRED_LIBS := elf:libelf.h:libelf-dev dw:elfutils/libdw.h:libdw-dev \
	zstd:zstd.h:libzstd-dev lz4:lz4.h:liblz4-dev z:zlib.h:zlib1g-dev \
	capstone:capstone/capstone.h:libcapstone-dev iberty:libiberty/demangle.h:libiberty-dev
REQUIRED_MAIN_iberty := return rust_demangle("_RNvC1a1b", 0) == 0;
DEPS_OK := $(BUILD)/.deps-ok
# $(call required_probe,NAME,HEADER,PACKAGE): shell that adds PACKAGE to
# $$missing unless HEADER compiles and NAME links.
required_probe = printf '$(HASH)include <$(2)>\nint main(void) { $(or $(REQUIRED_MAIN_$(1)),return 0;) }\n' | \
	$(CC) $(ALL_CFLAGS) $(call lib_cflags,$(1)) -x c - $(ALL_LDFLAGS) $(call lib_ldlibs,$(1)) \
	-o $@.probe >/dev/null 2>&1 || missing="$$missing $(3)";
$(DEPS_OK):
	@mkdir -p $(@D)
	@missing=; $(foreach r,$(REQUIRED_LIBS),$(call required_probe,$(word 1,$(subst :, ,$(r))),$(word 2,$(subst :, ,$(r))),$(word 3,$(subst :, ,$(r))))) \
	rm -f $@.probe; \
	if [ -n "$$missing" ]; then \
		echo "proftools: required libraries are missing (Debian packages:$$missing)" >&2; \
		echo "proftools: install them with make deps (scripts/install-deps.sh), or: sudo apt-get install$$missing" >&2; \
		exit 1; \
	fi; touch $@

# ---- flags ----------------------------------------------------------------------
ALL_CFLAGS := -std=gnu11 -Ilib $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -D_GNU_SOURCE -pthread
ifneq ($(WERROR),)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif
# the fuzz build (make fuzz-build): every object gets libFuzzer's coverage
ifneq ($(FUZZING),)
ALL_CFLAGS += -fsanitize=fuzzer-no-link
endif
ALL_LDFLAGS += $(LDFLAGS) -pthread

# Make fragments of lib/ folders (lib/FOLDER/*.mk), included before the
# object lists: a fragment may add to LIB_EXCLUDE (sources left out of
# libcommon.a, e.g. a codec whose library is missing), set target-specific
# EXTRA_CFLAGS/EXTRA_LIBS, and add EXTRA_TARGETS (such as profheap's
# preloaded shim) and INSTALL_LIBS (shared objects installed in
# $(PREFIX)/lib/proftools).
.DEFAULT_GOAL := all
EXTRA_TARGETS :=
INSTALL_LIBS :=
LIB_EXCLUDE :=
FLAGS_STAMP := $(BUILD)/.flags
-include $(wildcard lib/*/*.mk lib/*/*/*.mk)

# lib/ is one folder per concern (lib/README); the heap shim is not in
# libcommon.a: lib/heap/shim/shim.mk builds it.
LIB_SRC   := $(sort $(filter-out lib/heap/shim/% $(LIB_EXCLUDE),$(wildcard lib/*/*.c lib/*/*/*.c)))
CMD_SRC   := $(sort $(wildcard cmd/*.c))
TOOLS     := $(patsubst cmd/%.c,%,$(CMD_SRC))
LIB_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
LIBCOMMON := $(BUILD)/lib/libcommon.a
PROGS     := $(addprefix $(BINDIR)/,$(TOOLS))
# Tools written in shell: scripts/profile.sh is proftools-profile,
# scripts/proftools-push is proftools-push.
SHELL_TOOLS := proftools-profile proftools-push
SHELL_PROGS := $(addprefix $(BINDIR)/,$(SHELL_TOOLS))

UNIT_SRC  := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TTOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TTOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TTOOL_SRC))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRC))

# Every library some tool links: their compile flags apply to every
# object; unit tests and test tools link them all.
LIBS_ALL  := $(sort $(foreach t,$(TOOLS),$(LIBS_$(t))))
ALL_CFLAGS += $(call lib_cflags,$(LIBS_ALL))
TEST_LIBS := $(call lib_ldlibs,$(LIBS_ALL))

all: $(PROGS) $(SHELL_PROGS) $(EXTRA_TARGETS)

# The release number (VERSION) goes into the script, which writes it into
# every run directory it makes.
PROFTOOLS_VERSION := $(shell cat VERSION 2>/dev/null || echo unknown)
$(BINDIR)/proftools-profile: scripts/profile.sh VERSION
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(PROFTOOLS_VERSION)/' scripts/profile.sh >$@ && chmod 755 $@
$(BINDIR)/proftools-push: scripts/proftools-push VERSION
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(PROFTOOLS_VERSION)/' scripts/proftools-push >$@ && chmod 755 $@

# Rebuild everything when the flags change; relink the tools when the
# libraries of one change.
LINK_STAMP := $(BUILD)/.link-flags
LINK_KEY := $(foreach t,$(TOOLS),$(t):$(LIBS_$(t)))
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(COMPRESS_DEFS) lzma=$(SYMBOLIZE_LZMA)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(COMPRESS_DEFS) lzma=$(SYMBOLIZE_LZMA)' > $@
$(LINK_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(LINK_KEY)' | cmp -s - $@ || echo '$(LINK_KEY)' > $@

$(BUILD)/%.o: %.c $(FLAGS_STAMP) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

$(LIBCOMMON): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BINDIR)/%: $(BUILD)/cmd/%.o $(LIBCOMMON) $(LINK_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $< $(LIBCOMMON) $(call tool_libs,$*) $(EXTRA_LIBS) -o $@

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) $< $(LIBCOMMON) $(TEST_LIBS) $(EXTRA_LIBS) -o $@

# The busy/sleep and load test programs keep their frames and functions.
$(BUILD)/tests/tools/stripes.o $(BUILD)/tests/tools/loadgen.o: EXTRA_CFLAGS += -O1 -fno-omit-frame-pointer

$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) $< $(LIBCOMMON) $(TEST_LIBS) $(EXTRA_LIBS) -o $@

tests-build: all $(UNIT_BIN) $(TTOOL_BIN)

# libFuzzer targets (tests/fuzz/README): built by clang under ASan+UBSan
# in $(BUILD)/fuzz, a build directory of their own; skipped, with the
# reason, when the compiler has no libFuzzer. make fuzz runs each for
# FUZZ_SECONDS; make check runs each for a few (tests/fuzz.sh).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
# (linked like the unit tests, the optional libraries of lib/*/*.mk too)
FUZZ_LIBS = $(TEST_LIBS) $(EXTRA_LIBS) $(COMPRESS_LIBS) \
	$(if $(SYMBOLIZE_LZMA),$(call lib_ldlibs,lzma))
$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) -fsanitize=fuzzer $< $(LIBCOMMON) $(FUZZ_LIBS) -o $@
fuzz-targets: $(FUZZ_BIN)
fuzz-build:
	@if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
		$(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory fuzz-targets BUILD=$(BUILD)/fuzz CC=$(FUZZ_CC) \
			SANITIZE=address,undefined FUZZING=1 WERROR=; \
	else \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer does not link: no fuzz targets" \
			"(scripts/install-deps.sh installs clang)"; \
	fi
fuzz: fuzz-build
	@./tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

deps:
	@./scripts/install-deps.sh

# The test suite, twice: plain and under AddressSanitizer+UBSan. The
# sanitizer pass builds in its own directory (a preloaded shim is built
# there without ASan by its own rule).
SAN_BUILD := $(BUILD)/san
# The three builds run -j$(CHECK_JOBS) (every core by default) even
# when make check itself was started without -j.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check: deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) tests-build
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) tests-build BUILD=$(SAN_BUILD) BINDIR=$(SAN_BUILD)/bin \
		SANITIZE=address,undefined
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) fuzz-build
	@MAKE="$(MAKE)" ./tests/check.sh $(BUILD) $(BINDIR) $(SAN_BUILD) $(SAN_BUILD)/bin

# README's picture of a report (committed; redrawn with make doc).
doc: all
	@./scripts/doc-report.sh $(BINDIR) doc/report.png

# (deps first, then a new make: its probes see what deps installed)
demo: deps
	@$(MAKE) --no-print-directory all
	@./scripts/demo.sh $(BINDIR)

# Benchmarks against the reference tools (not tests: timings, noisy).
BENCHES := fold flame heatmap rec heap symbolize gopclntab gpu host compress cmp report load rotate python
bench: tests-build
	@./scripts/install-deps.sh --bench
	@failed=; for b in $(BENCHES); do echo "== tests/bench/$$b.sh"; \
		BIN=$(BINDIR) BUILD=$(BUILD) sh tests/bench/$$b.sh || failed="$$failed $$b"; done; \
		if [ -n "$$failed" ]; then echo "bench: missed targets or failed:$$failed"; exit 1; fi

MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
MAN7 := $(wildcard man/*.7)
# Every directory install may create, parents first. Those it did create
# are listed in $(INSTALLED_DIRS) so that uninstall removes them again
# (when empty), and only them.
INSTALL_DIRS := $(PREFIX) $(PREFIX)/bin $(PREFIX)/lib $(PREFIX)/lib/proftools \
	$(PREFIX)/share $(PREFIX)/share/man $(PREFIX)/share/man/man1 $(PREFIX)/share/man/man5 \
	$(PREFIX)/share/man/man7 \
	$(PREFIX)/share/bash-completion $(PREFIX)/share/bash-completion/completions \
	$(PREFIX)/share/zsh $(PREFIX)/share/zsh/site-functions
INSTALLED_DIRS := $(DESTDIR)$(PREFIX)/lib/proftools/installed-dirs
install: all
	@created=; for d in $(INSTALL_DIRS); do \
		[ -d "$(DESTDIR)$$d" ] || created="$$created $$d"; done; \
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS)) || exit 1; \
	old=; [ -f $(INSTALLED_DIRS) ] && old=$$(cat $(INSTALLED_DIRS)); \
	printf '%s\n' $$old $$created | sed '/^$$/d' | sort -u >$(INSTALLED_DIRS)
	install -m 755 $(PROGS) $(SHELL_PROGS) $(DESTDIR)$(PREFIX)/bin/
	$(if $(INSTALL_LIBS),install -m 644 $(INSTALL_LIBS) $(DESTDIR)$(PREFIX)/lib/proftools/)
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5/
	$(if $(MAN7),install -m 644 $(MAN7) $(DESTDIR)$(PREFIX)/share/man/man7/)
	for t in $(TOOLS) $(SHELL_TOOLS); do \
		install -m 644 completions/proftools.bash \
			$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t || exit 1; \
	done
	install -m 644 completions/_proftools $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_proftools

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(TOOLS) $(SHELL_TOOLS))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/proftools/,$(notdir $(INSTALL_LIBS)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man5/,$(notdir $(MAN5)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man7/,$(notdir $(MAN7)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/bash-completion/completions/,$(TOOLS) $(SHELL_TOOLS))
	rm -f $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_proftools
	@created=; [ -f $(INSTALLED_DIRS) ] && created=$$(sort -r $(INSTALLED_DIRS)); \
	rm -f $(INSTALLED_DIRS); \
	for d in $$created; do rmdir "$(DESTDIR)$$d" 2>/dev/null || :; done; \
	rmdir $(DESTDIR)$(PREFIX)/lib/proftools 2>/dev/null || :

lint-man:
	mandoc -Tlint -W warning $(MAN1) $(MAN5) $(MAN7)

clean:
	rm -rf $(BUILD) $(BINDIR)

FORCE:
.PHONY: all check deps demo doc bench install uninstall clean lint-man tests-build FORCE \
	fuzz fuzz-build fuzz-targets
.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(CMD_SRC:%.c=$(BUILD)/%.d) $(UNIT_SRC:%.c=$(BUILD)/%.d) $(TTOOL_SRC:%.c=$(BUILD)/%.d) \
	$(FUZZ_SRC:%.c=$(BUILD)/%.d)
