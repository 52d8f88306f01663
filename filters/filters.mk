# The filters: grep-iters, window, median, speedup and table one C file each
# in filters/; the log formats in filters/formats/ (one file a format and
# their registry); launch in filters/launch/. All link lib/.

FILTERS := launch grep-iters window median speedup table
FORMATS_OBJ := $(call objs,$(wildcard filters/formats/*.c))
FORMATS_LIB := $(OBJ)/libformats.a

$(FORMATS_LIB): $(FORMATS_OBJ) $(call objs,$(wildcard filters/formats.c))
	@rm -f $@
	ar rcs $@ $^

$(BIN)/launch: $(call objs,$(wildcard filters/launch/*.c)) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(BIN)/%: $(OBJ)/filters/%.o $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

filters: $(addprefix $(BIN)/,$(FILTERS))
all: filters
.PHONY: filters
