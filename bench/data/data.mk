# bench/data/data.mk: what bench's input pipeline brings besides bin/bench's
# own objects (DATA_OBJ, in bench/bench.mk):
#
#   bin/imagenet-synthetic          the ImageFolder tree generator (libturbojpeg)
#   bin/test-data-check             the pipeline piece by piece (tests/data.bats)
#   make data/imagenet-synthetic N=1000 CLASSES=10 [SEED=1]
#                                   train/ (N images) and val/ (N/50, at least a class's
#                                   worth), as pytorch/examples wants IMAGENET=; made
#                                   again when N, CLASSES or SEED change

SYNTH_OBJ := $(call objs,bench/data/synth.c bench/data/crop.c)
DATA_CHECK_OBJ := $(call objs,tests/drivers/data-check.c bench/dl.c) $(filter-out %/run.o,$(DATA_OBJ))
$(SYNTH_OBJ) $(call objs,tests/drivers/data-check.c): XCFLAGS := -Ibench
$(SYNTH_OBJ) $(call objs,tests/drivers/data-check.c): $(OBJ)/.flags-bench

$(BIN)/imagenet-synthetic: $(SYNTH_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lturbojpeg -pthread -lm

$(BIN)/test-data-check: $(DATA_CHECK_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(DATA_LIBS) -lm

# The generator writes JPEGs with libturbojpeg: not built without libjpeg (JPEG=0).
all: $(if $(filter 0,$(JPEG)),,$(BIN)/imagenet-synthetic) $(BIN)/test-data-check

N ?= 1000
CLASSES ?= 10
SEED ?= 1
$(eval $(call track_flags,synthetic,$(N) $(CLASSES) $(SEED)))

# Written to $@.tmp and renamed: a failed run leaves no tree, and an old
# tree goes only once the new one is whole.
data/imagenet-synthetic: $(BIN)/imagenet-synthetic $(OBJ)/.flags-synthetic
	rm -rf $@.tmp
	mkdir -p $@.tmp
	$(BIN)/imagenet-synthetic -n $(N) -c $(CLASSES) -s $(SEED) $@.tmp/train
	$(BIN)/imagenet-synthetic -n $$(( $(N) / 50 > $(CLASSES) ? $(N) / 50 : $(CLASSES) )) \
		-c $(CLASSES) -s $$(( $(SEED) + 1000003 )) $@.tmp/val
	rm -rf $@
	mv $@.tmp $@
