# libiberty (base/demangle.c, Debian libiberty-dev) is required: it is the
# demangler of every Rust and C++ name (base/demangle.h says why), and
# there is no fallback. It has no pkg-config file: the tools link it as
# -liberty (LIBS_tool in the Makefile). Before base/demangle.c is
# compiled, a program calling it is compiled and linked with the build's
# flags (sanitizers included) once per build directory; without it the
# build stops here, naming the package, rather than in a compiler error.
LIBIBERTY_OK := $(BUILD)/.libiberty-ok
$(BUILD)/lib/base/demangle.o: | $(LIBIBERTY_OK)
$(LIBIBERTY_OK):
	@mkdir -p $(@D)
	@printf '$(HASH)include <libiberty/demangle.h>\nint main(void) { return rust_demangle("_RNvC1a1b", 0) == 0; }\n' | \
		$(CC) $(ALL_CFLAGS) -x c - $(ALL_LDFLAGS) -liberty -o $@.probe >/dev/null 2>&1 || { \
		echo "proftools: libiberty is required (Debian: libiberty-dev), and <libiberty/demangle.h> or -liberty is missing" >&2; \
		echo "proftools: install it with scripts/install-deps.sh (make deps) or: sudo apt-get install libiberty-dev" >&2; \
		exit 1; }
	@rm -f $@.probe && touch $@
