# The optional compression codecs of profcompress: each one only if its
# library is found (the required ones, zstd, lz4 and zlib, are in LIBS).
COMPRESS_DEFS :=
COMPRESS_LIBS :=
ifeq ($(call have_lib,brotli/encode.h,-lbrotlienc -lbrotlidec),yes)
COMPRESS_DEFS += -DHAVE_BROTLI
COMPRESS_LIBS += -lbrotlienc -lbrotlidec
endif
ifeq ($(call have_lib,lzma.h,-llzma),yes)
COMPRESS_DEFS += -DHAVE_LZMA
COMPRESS_LIBS += -llzma
endif
ifeq ($(call have_lib,bzlib.h,-lbz2),yes)
COMPRESS_DEFS += -DHAVE_BZIP2
COMPRESS_LIBS += -lbz2
endif
ifeq ($(call have_lib,snappy-c.h,-lsnappy),yes)
COMPRESS_DEFS += -DHAVE_SNAPPY
COMPRESS_LIBS += -lsnappy
endif
ifeq ($(call have_lib,libdeflate.h,-ldeflate),yes)
COMPRESS_DEFS += -DHAVE_LIBDEFLATE
COMPRESS_LIBS += -ldeflate
endif

$(BUILD)/cmd/profcompress.o $(BUILD)/lib/codec/codec.o: EXTRA_CFLAGS += $(COMPRESS_DEFS)
$(BINDIR)/profcompress: EXTRA_LIBS += $(COMPRESS_LIBS)
$(BUILD)/tests/unit/codec/test_codec.o: EXTRA_CFLAGS += $(COMPRESS_DEFS)
$(BUILD)/tests/unit/codec/test_codec: EXTRA_LIBS += $(COMPRESS_LIBS)
