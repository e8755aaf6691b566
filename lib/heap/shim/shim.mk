# libprofheap.so, the preloaded shim of profheap(1), from lib/heap/shim/*.c.
# It is not part of libcommon.a, and it is never built with AddressSanitizer
# (an ASan runtime cannot be preloaded into an uninstrumented program), not
# even in the sanitizer pass: the -fsanitize flags are filtered out.
# lib/python/offsets.c (CPython's structure offsets, C library only) is
# shared with profrec --python: --python's walk (python.c) needs it.
HEAP_SRC := $(sort $(wildcard lib/heap/shim/*.c)) lib/python/offsets.c
HEAP_OBJ := $(patsubst %.c,$(BUILD)/%.pic.o,$(HEAP_SRC))
HEAP_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS)) \
	-fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-omit-frame-pointer \
	-fexceptions -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc \
	-fno-builtin-free
HEAP_LDFLAGS := $(filter-out -fsanitize=%,$(ALL_LDFLAGS))

$(BUILD)/lib/heap/shim/%.pic.o: lib/heap/shim/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(HEAP_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/lib/python/offsets.pic.o: lib/python/offsets.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(HEAP_CFLAGS) -MMD -MP -c $< -o $@

$(BINDIR)/libprofheap.so: $(HEAP_OBJ)
	@mkdir -p $(@D)
	$(CC) $(HEAP_LDFLAGS) -shared -Wl,-z,nodelete -Wl,--as-needed $(HEAP_OBJ) -ldl -lm -o $@

EXTRA_TARGETS += $(BINDIR)/libprofheap.so
INSTALL_LIBS += $(BINDIR)/libprofheap.so

-include $(HEAP_OBJ:.o=.d)
