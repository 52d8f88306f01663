# lib/: the one library every program links (lib/lib.h), as an archive so a
# program takes only the objects it uses.

LIB_OBJ := $(call objs,$(wildcard lib/*.c))
LIBDLBENCH := $(OBJ)/libdlbench.a

$(LIBDLBENCH): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The configuration key's grammar for the Makefile's own key lines
# (KEY_PATTERN, KEY_SHAPE, …): lib/key.c's, printed by bin/test-key-mk into
# lib/key.mk. The file is kept in the tree because make reads it before it
# has built anything; `make generate` rewrites it, tests/tree.bats checks it.
include lib/key.mk

$(BIN)/test-key-mk: $(OBJ)/tests/drivers/key-mk.o $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

all: $(BIN)/test-key-mk

# `make generate`: every text of the tree that a program of it writes (this
# one and filters/filters.mk's).
generate: gen-key-mk
gen-key-mk: $(BIN)/test-key-mk
	$(BIN)/test-key-mk > lib/key.mk.tmp
	@mv lib/key.mk.tmp lib/key.mk
.PHONY: generate gen-key-mk
