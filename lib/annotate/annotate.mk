# profannotate's disassembler, capstone, is optional: when its header
# compiles and it links, lib/annotate is compiled with PROF_HAVE_CAPSTONE
# and its flags, and profannotate and the annotate unit tests link it;
# otherwise profannotate is built but says it needs capstone (exit 2),
# and its tests skip. No other tool links capstone.
ANNOTATE_CAPSTONE := $(call have_lib,capstone/capstone.h,$(call lib_ldlibs,capstone))
ifneq ($(ANNOTATE_CAPSTONE),)
$(BUILD)/lib/annotate/%.o: EXTRA_CFLAGS += -DPROF_HAVE_CAPSTONE $(call lib_cflags,capstone)
$(BINDIR)/profannotate: EXTRA_LIBS += $(call lib_ldlibs,capstone)
$(BUILD)/tests/unit/annotate/%: EXTRA_LIBS += $(call lib_ldlibs,capstone)
$(BUILD)/tests/unit/annotate/%.o: EXTRA_CFLAGS += -DPROF_HAVE_CAPSTONE
endif
