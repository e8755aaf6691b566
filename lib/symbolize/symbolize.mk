# MiniDebugInfo (.gnu_debugdata, lib/symbolize/minidebug.c) needs liblzma,
# optional: when lzma.h compiles and it links, minidebug.c is compiled
# with PROF_HAVE_LZMA and every program that may symbolize (profrec,
# profheap, profannotate, the unit tests and test tools) links it;
# otherwise .gnu_debugdata is ignored (stripped code is then named by its
# .eh_frame FDEs).
SYMBOLIZE_LZMA := $(call have_lib,lzma.h,$(call lib_ldlibs,lzma))
ifneq ($(SYMBOLIZE_LZMA),)
$(BUILD)/lib/symbolize/minidebug.o: EXTRA_CFLAGS += -DPROF_HAVE_LZMA $(call lib_cflags,lzma)
$(BINDIR)/profrec $(BINDIR)/profheap $(BINDIR)/profannotate $(BINDIR)/profgpu: EXTRA_LIBS += $(call lib_ldlibs,lzma)
$(BUILD)/tests/unit/%: EXTRA_LIBS += $(call lib_ldlibs,lzma)
$(BUILD)/tests/tools/%: EXTRA_LIBS += $(call lib_ldlibs,lzma)
endif
