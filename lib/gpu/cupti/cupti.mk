# libprofgpu-cupti.so, the injection library of profgpu --kernels, from
# lib/gpu/cupti/*.c and the heap shim's stack walker (shared, not copied:
# lib/heap/shim/stackwalk.c, compiled by shim.mk). Like the heap shim it
# is loaded into the profiled command (by the CUDA driver, through
# CUDA_INJECTION64_PATH), so it is not in libcommon.a and is never built
# with a sanitizer.
CUPTI_SRC := $(sort $(wildcard lib/gpu/cupti/*.c))
CUPTI_OBJ := $(patsubst %.c,$(BUILD)/%.pic.o,$(CUPTI_SRC)) $(BUILD)/lib/heap/shim/stackwalk.pic.o
LIB_EXCLUDE += lib/gpu/cupti/%

$(BUILD)/lib/gpu/cupti/%.pic.o: lib/gpu/cupti/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS)) -fPIC \
		-fvisibility=hidden -fno-omit-frame-pointer -MMD -MP -c $< -o $@

$(BINDIR)/libprofgpu-cupti.so: $(CUPTI_OBJ)
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize=%,$(ALL_LDFLAGS)) -shared -Wl,-z,nodelete $(CUPTI_OBJ) -ldl -o $@

EXTRA_TARGETS += $(BINDIR)/libprofgpu-cupti.so
INSTALL_LIBS += $(BINDIR)/libprofgpu-cupti.so

-include $(CUPTI_OBJ:.o=.d)
