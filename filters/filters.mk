# The filters: window, median and speedup one C file each in filters/;
# table in filters/table/; grep-iters in filters/grep-iters/ (the driver, log
# paths, rank grouping) with the log formats in filters/formats/ (one file a
# format and their registry); launch in filters/launch/. All link lib/. Files
# added to those folders are built with no edit here.

FILTERS := launch grep-iters window median speedup table plot compare
FORMATS_LIB := $(OBJ)/libformats.a

$(FORMATS_LIB): $(call objs,$(wildcard filters/formats/*.c))
	@rm -f $@
	ar rcs $@ $^

# A filter is one file, filters/NAME.c, or a folder of them, filters/NAME/
# (formats/ is the log formats' library, not a filter).
FILTER_DIRS := $(filter-out formats,$(patsubst filters/%/,%,$(wildcard filters/*/)))

define folder_filter
$(BIN)/$(1): $(call objs,$(wildcard filters/$(1)/*.c)) $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ $$^ -lm
endef
$(foreach f,$(FILTER_DIRS),$(eval $(call folder_filter,$(f))))

$(BIN)/%: $(OBJ)/filters/%.o $(FORMATS_LIB) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

filters: $(addprefix $(BIN)/,$(FILTERS))
all: filters
.PHONY: filters
