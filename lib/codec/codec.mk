# The compression codecs of profcompress: one file per library,
# lib/codec/FILE.c, defining prof_codec_NAME for each codec NAME it offers
# (lib/codec/ops.h). One line per file below, in the order of
# `profcompress -l`; adding a codec is its file and its line.
#
# $(call codec,FILE,NAMES): a codec whose library every tool links
#   (lib/io's zstd, lz4 and zlib; glibc for memcpy).
# $(call optional_codec,FILE,NAMES,HEADER,LIBS): LIBS are -l names
#   (pkg-config modules through the Makefile's PC_NAME, lib_cflags and
#   lib_ldlibs). When HEADER compiles and LIBS link, FILE.c is compiled
#   with their flags and profcompress links them; otherwise FILE.c goes
#   into LIB_EXCLUDE and its NAMES are listed as not built.
#
# The registry (lib/codec/codec.c) gets the lists as X-macros,
# PROF_CODECS="X(memcpy) X(lz4) ..." and PROF_CODECS_NOT_BUILT.
CODEC_LIST :=
CODEC_NOT_BUILT :=
COMPRESS_LIBS :=
codec_x = $(foreach n,$(1),X($(n)))
codec = $(eval CODEC_LIST += $(call codec_x,$(2)))
optional_codec = $(if $(call have_lib,$(3),$(call lib_ldlibs,$(4))), \
	$(eval CODEC_LIST += $(call codec_x,$(2))) \
	$(eval COMPRESS_LIBS += $(call lib_ldlibs,$(4))) \
	$(eval $(BUILD)/lib/codec/$(1).o: EXTRA_CFLAGS += $(call lib_cflags,$(4))), \
	$(eval CODEC_NOT_BUILT += $(call codec_x,$(2))) $(eval LIB_EXCLUDE += lib/codec/$(1).c))

$(call codec,memcpy,memcpy)
$(call codec,lz4,lz4 lz4hc lz4f)
$(call codec,zstd,zstd)
$(call codec,zlib,zlib gzip)
$(call optional_codec,libdeflate,libdeflate,libdeflate.h,deflate)
$(call optional_codec,snappy,snappy,snappy-c.h,snappy)
$(call optional_codec,brotli,brotli,brotli/encode.h,brotlienc brotlidec)
$(call optional_codec,bzip2,bzip2,bzlib.h,bz2)
$(call optional_codec,lzma,xz,lzma.h,lzma)

# (COMPRESS_DEFS is also in the Makefile's flags stamp: a codec that comes
# or goes rebuilds.)
COMPRESS_DEFS := -D"PROF_CODECS=$(strip $(CODEC_LIST))" \
	-D"PROF_CODECS_NOT_BUILT=$(strip $(CODEC_NOT_BUILT))"

$(BUILD)/lib/codec/codec.o: EXTRA_CFLAGS += $(COMPRESS_DEFS)
$(BINDIR)/profcompress: EXTRA_LIBS += $(COMPRESS_LIBS)
$(BUILD)/tests/unit/codec/%: EXTRA_LIBS += $(COMPRESS_LIBS)
