# lib/: the one library every program links (lib/lib.h), as an archive so a
# program takes only the objects it uses.

LIB_OBJ := $(call objs,$(wildcard lib/*.c))
LIBDLBENCH := $(OBJ)/libdlbench.a

$(LIBDLBENCH): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
