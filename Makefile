# proftools: one non-recursive Makefile, one pattern rule for every object.
#
#   make                 build every cmd/*.c into bin/
#   make check           unit + tool tests, then the same under ASan+UBSan
#   make demo            profile the bundled workload, print the result path
#   make install         PREFIX=/usr/local DESTDIR=
#   make BUILD=dir BINDIR=dir SANITIZE=address,undefined   out-of-tree builds
#   make WERROR=1        warnings are errors (CI)

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
BINDIR  ?= bin
CC      ?= cc

WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -Wundef
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(CFLAGS) $(WARNINGS) -D_GNU_SOURCE -Ilib -pthread
ifneq ($(WERROR),)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif
ALL_LDFLAGS += $(LDFLAGS) -pthread
LIBS := -ldw -lelf -lzstd -llz4 -lz -lm -ldl

# $(call have_lib,HEADER,LIBS): "yes" when HEADER compiles and LIBS link
# (optional libraries, probed by the lib/**/*.mk fragments).
have_lib = $(shell printf '#include <$(1)>\nint main(void){return 0;}\n' | \
	$(CC) -x c - -o /dev/null $(2) >/dev/null 2>&1 && echo yes)
ifeq ($(call have_lib,capstone/capstone.h,-lcapstone),yes)
CAPSTONE_DEFS := -DHAVE_CAPSTONE
CAPSTONE_LIBS := -lcapstone
endif

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

UNIT_SRC  := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TTOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TTOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TTOOL_SRC))


all: $(PROGS) $(EXTRA_TARGETS)

# Per-object extra flags.
$(BUILD)/lib/disasm.o: EXTRA_CFLAGS += $(CAPSTONE_DEFS)
EXTRA_LIBS += $(CAPSTONE_LIBS)

# Rebuild everything when the flags change.
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(COMPRESS_DEFS)' | cmp -s - $@ || \
		echo '$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(COMPRESS_DEFS)' > $@

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

$(LIBCOMMON): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BINDIR)/%: $(BUILD)/cmd/%.o $(LIBCOMMON)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $< $(LIBCOMMON) $(LIBS) $(EXTRA_LIBS) -o $@

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) $< $(LIBCOMMON) $(LIBS) $(EXTRA_LIBS) -o $@

$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIBCOMMON)
	$(CC) $(ALL_LDFLAGS) $< $(LIBCOMMON) $(LIBS) $(EXTRA_LIBS) -o $@

tests-build: all $(UNIT_BIN) $(TTOOL_BIN)

deps:
	@./scripts/install-deps.sh

# The test suite, twice: plain and under AddressSanitizer+UBSan. The
# sanitizer pass builds in its own directory (a preloaded shim is built
# there without ASan by its own rule).
SAN_BUILD := $(BUILD)/san
check: deps
	@$(MAKE) --no-print-directory tests-build
	@$(MAKE) --no-print-directory tests-build BUILD=$(SAN_BUILD) BINDIR=$(SAN_BUILD)/bin \
		SANITIZE=address,undefined
	@MAKE="$(MAKE)" ./tests/check.sh $(BUILD) $(BINDIR) $(SAN_BUILD) $(SAN_BUILD)/bin

demo: deps all
	@./scripts/demo.sh $(BINDIR)

# Benchmarks against the reference tools (not tests: timings, noisy).
BENCHES := fold flame rec heap gpu compress
bench: all
	@./scripts/install-deps.sh --bench
	@failed=; for b in $(BENCHES); do echo "== tests/bench/$$b.sh"; \
		BIN=$(BINDIR) sh tests/bench/$$b.sh || failed="$$failed $$b"; done; \
		if [ -n "$$failed" ]; then echo "bench: missed targets or failed:$$failed"; exit 1; fi

MAN1 := $(wildcard man/*.1)
MAN5 := $(wildcard man/*.5)
# Every directory install may create, parents first. Those it did create
# are listed in $(INSTALLED_DIRS) so that uninstall removes them again
# (when empty), and only them.
INSTALL_DIRS := $(PREFIX) $(PREFIX)/bin $(PREFIX)/lib $(PREFIX)/lib/proftools \
	$(PREFIX)/share $(PREFIX)/share/man $(PREFIX)/share/man/man1 $(PREFIX)/share/man/man5 \
	$(PREFIX)/share/bash-completion $(PREFIX)/share/bash-completion/completions \
	$(PREFIX)/share/zsh $(PREFIX)/share/zsh/site-functions
INSTALLED_DIRS := $(DESTDIR)$(PREFIX)/lib/proftools/installed-dirs
install: all
	@created=; for d in $(INSTALL_DIRS); do \
		[ -d "$(DESTDIR)$$d" ] || created="$$created $$d"; done; \
	install -d $(addprefix $(DESTDIR),$(INSTALL_DIRS)) || exit 1; \
	old=; [ -f $(INSTALLED_DIRS) ] && old=$$(cat $(INSTALLED_DIRS)); \
	printf '%s\n' $$old $$created | sed '/^$$/d' | sort -u >$(INSTALLED_DIRS)
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	$(if $(INSTALL_LIBS),install -m 644 $(INSTALL_LIBS) $(DESTDIR)$(PREFIX)/lib/proftools/)
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MAN5) $(DESTDIR)$(PREFIX)/share/man/man5/
	for t in $(TOOLS); do \
		install -m 644 completions/proftools.bash \
			$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t || exit 1; \
	done
	install -m 644 completions/_proftools $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_proftools

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(TOOLS))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/proftools/,$(notdir $(INSTALL_LIBS)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man5/,$(notdir $(MAN5)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/bash-completion/completions/,$(TOOLS))
	rm -f $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_proftools
	@created=; [ -f $(INSTALLED_DIRS) ] && created=$$(sort -r $(INSTALLED_DIRS)); \
	rm -f $(INSTALLED_DIRS); \
	for d in $$created; do rmdir "$(DESTDIR)$$d" 2>/dev/null || :; done; \
	rmdir $(DESTDIR)$(PREFIX)/lib/proftools 2>/dev/null || :

lint-man:
	mandoc -Tlint -W warning $(MAN1) $(MAN5)

clean:
	rm -rf $(BUILD) $(BINDIR)

FORCE:
.PHONY: all check deps demo bench install uninstall clean lint-man tests-build FORCE
.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(CMD_SRC:%.c=$(BUILD)/%.d) $(UNIT_SRC:%.c=$(BUILD)/%.d) $(TTOOL_SRC:%.c=$(BUILD)/%.d)
