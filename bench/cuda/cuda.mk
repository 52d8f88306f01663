# bench/cuda/cuda.mk: bench's CUDA backend (cuDNN, cuBLAS, NCCL, kernels of
# our own), the allreduce benchmark on NCCL, and the drivers that test the
# GPU side's host logic. Included by the top Makefile after bench/bench.mk.
#
#   make                       detects the toolkit, builds the GPU programs when found
#   make CUDA=0                forces the GPU backend off
#   make CUDA_ARCH="70 75"     compute capabilities to build for (default below)
#   make CUDA_HOME=/opt/cuda   where the toolkit lives (default /usr/local/cuda)
#   make check-gpu             CPU and GPU backends on the same weights and batch
#
# The host-side pieces (bench/cuda/lossscale.c, search.c, startup.c,
# watch.c, the headers the kernels share with them, and their driver
# bin/test-gpu-host) are plain C and always built: they are tested on the
# CPU. What needs nvcc is built only when nvcc, cuDNN and cuBLAS are found;
# NCCL is needed for more than one GPU.

CUDA ?= 1
CUDA_HOME ?= /usr/local/cuda
CUDA_ARCH ?= 75 80 86 89 90
NVCC := $(CUDA_HOME)/bin/nvcc

# ---- detect ----------------------------------------------------------------
# A header is looked for in $(CUDA_HOME)/include, then /usr/include (Debian's
# and NVIDIA's packages put cuDNN and NCCL there); a library likewise in
# $(CUDA_HOME)/lib64, $(CUDA_HOME)/lib, then the multiarch directory.

cuda_incdirs := $(CUDA_HOME)/include /usr/include /usr/include/x86_64-linux-gnu
cuda_libdirs := $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib /usr/lib/x86_64-linux-gnu
cuda_find_h = $(firstword $(wildcard $(addsuffix /$(1),$(cuda_incdirs))))
cuda_find_lib = $(firstword $(wildcard $(addsuffix /lib$(1).so,$(cuda_libdirs))))
# $(call cuda_def,header,MACRO): the value of #define MACRO in header.
cuda_def = $(shell sed -n 's/^\#define $(2)  *\([0-9][0-9]*\).*/\1/p' $(1) 2>/dev/null)

# What was found is said once: the project's own recursive makes pass
# CUDA_QUIET=1. (A comma in a message is $(,).)
, := ,
cuda_say = $(if $(CUDA_QUIET),,$(info $(1)))

CUDA_FOUND :=
ifeq ($(CUDA),0)
$(call cuda_say,cuDNN: off (CUDA=0)$(,) GPU backend skipped)
else ifeq ($(wildcard $(NVCC)),)
$(call cuda_say,nvcc: not found at $(NVCC))
$(call cuda_say,cuDNN: not found$(,) GPU backend skipped)
else
cudnn_h := $(call cuda_find_h,cudnn_version.h)
cudnn_lib := $(call cuda_find_lib,cudnn)
cublas_h := $(call cuda_find_h,cublas_v2.h)
cublas_lib := $(call cuda_find_lib,cublas)
nccl_h := $(call cuda_find_h,nccl.h)
nccl_lib := $(call cuda_find_lib,nccl)
cuda_version = $(call cuda_def,$(1),$(2)_MAJOR).$(call cuda_def,$(1),$(2)_MINOR)
ifeq ($(and $(cudnn_h),$(cudnn_lib)),)
$(call cuda_say,cuDNN: not found$(,) GPU backend skipped)
else ifeq ($(and $(cublas_h),$(cublas_lib)),)
$(call cuda_say,cuDNN: found $(call cuda_version,$(cudnn_h),CUDNN); \
cuBLAS: not found$(,) GPU backend skipped)
else
CUDA_FOUND := 1
$(call cuda_say,cuDNN: found $(call cuda_version,$(cudnn_h),CUDNN))
ifeq ($(and $(nccl_h),$(nccl_lib)),)
NCCL_FOUND :=
$(call cuda_say,NCCL: not found$(,) bench-cuda limited to one GPU)
else
NCCL_FOUND := 1
$(call cuda_say,NCCL: found $(call cuda_version,$(nccl_h),NCCL))
endif
endif
endif

# A CUDA device on this machine, for the pipeline's choice of bin/bench-cuda
# (pipelines/bench.mk): the driver's device files (/dev/nvidia0 …) or, where
# there are none (WSL), a GPU in nvidia-smi's list; CUDA_VISIBLE_DEVICES
# set empty or to -1 hides them, as it does from CUDA. Probed once, when a
# bench run is planned; CUDA_DEVICE=1 or CUDA_DEVICE= decides instead.
cuda_hidden = $(and $(filter-out undefined,$(origin CUDA_VISIBLE_DEVICES)),$(if \
	$(filter-out -1,$(CUDA_VISIBLE_DEVICES)),,1))
cuda_probe = $(if $(cuda_hidden),,$(if $(wildcard /dev/nvidia[0-9]*),1,$(if \
	$(shell nvidia-smi -L 2>/dev/null | grep '^GPU '),1)))
CUDA_DEVICE ?= $(eval CUDA_DEVICE := $(cuda_probe))$(CUDA_DEVICE)

# An architecture this nvcc cannot build for is a clear error, not nvcc's
# "Unsupported gpu architecture" halfway through the build.
ifdef CUDA_FOUND
cuda_supported := $(patsubst compute_%,%,$(shell $(NVCC) --list-gpu-arch 2>/dev/null))
cuda_bad_arch := $(filter-out $(cuda_supported),$(CUDA_ARCH))
ifneq ($(and $(cuda_supported),$(cuda_bad_arch)),)
$(error CUDA_ARCH: $(cuda_bad_arch) not supported by $(NVCC), which builds for \
$(cuda_supported); sm_70 (V100) needs CUDA 12 or older: CUDA_HOME=/usr/local/cuda-12.x)
endif
endif

# ---- flags -----------------------------------------------------------------

# sm_XY for every arch, plus PTX of the highest so newer GPUs JIT it.
cuda_arch_top := $(lastword $(sort $(CUDA_ARCH)))
CUDA_GENCODE := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(cuda_arch_top),code=compute_$(cuda_arch_top)

CUDA_INC := $(sort $(patsubst %/,%,$(dir $(cudnn_h) $(cublas_h) $(nccl_h))) $(CUDA_HOME)/include)
CUDA_LIBDIRS := $(sort $(patsubst %/,%,$(dir $(cudnn_lib) $(cublas_lib) $(nccl_lib) \
	$(call cuda_find_lib,cudart))))
cuda_libpath := $(addprefix -L,$(CUDA_LIBDIRS)) $(addprefix -Wl$(,)-rpath$(,),$(CUDA_LIBDIRS))
CUDA_LDLIBS := $(cuda_libpath) -lcudnn -lcublas $(if $(NCCL_FOUND),-lnccl) -lcudart
CUDART_LDLIBS := $(cuda_libpath) -lcudart

NVCCFLAGS := -std=c++17 -O3 -g -lineinfo $(CUDA_GENCODE) -Werror all-warnings \
	-Xcompiler -Wall,-Wextra,-Werror -Ilib -Ibench $(addprefix -I,$(CUDA_INC)) \
	$(if $(NCCL_FOUND),,-DBENCH_NO_NCCL) $(EXTRA_NVCCFLAGS)
# The host C of the GPU side: warnings are errors here too.
CUDA_HOST_XCFLAGS := -Ibench -Werror
# Without a toolkit only the host C's flags count (and nvcc is never named).
$(eval $(call track_flags,cuda,$(if $(CUDA_FOUND),$(NVCC) $(NVCCFLAGS) $(CUDA_LDLIBS)) \
	$(CUDA_HOST_XCFLAGS)))

# ---- host-side objects (always) --------------------------------------------

CUDA_HOST_OBJ := $(call objs,bench/cuda/lossscale.c bench/cuda/search.c bench/cuda/startup.c \
	bench/cuda/watch.c)
GPU_HOST_TEST_OBJ := $(call objs,tests/drivers/gpu-host.c)
$(CUDA_HOST_OBJ) $(GPU_HOST_TEST_OBJ): XCFLAGS := $(CUDA_HOST_XCFLAGS)
$(CUDA_HOST_OBJ) $(GPU_HOST_TEST_OBJ): $(OBJ)/.flags-cuda

# bin/test-gpu-host: the loss scale, layouts, shapes and pooling windows on
# the CPU (tests/bench-cuda.bats).
$(BIN)/test-gpu-host: $(GPU_HOST_TEST_OBJ) $(CUDA_HOST_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

all: $(BIN)/test-gpu-host

# ---- GPU objects and programs (when found) ---------------------------------

ifdef CUDA_FOUND
CUDA_OBJ := $(patsubst %.cu,$(OBJ)/%.o,$(wildcard bench/cuda/*.cu))

$(OBJ)/bench/cuda/%.o: bench/cuda/%.cu $(OBJ)/.flags-cuda
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(NVCC_XFLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

# NCCL's comm starts the ranks with MPI.
$(OBJ)/bench/cuda/comm_nccl.o: NVCC_XFLAGS := $(BENCH_MPI_CFLAGS)

# bin/check-gpu-compare: "no CUDA device" or the device list; compares two
# --export directories.
CHECK_GPU_OBJ := $(call objs,tests/drivers/check-gpu.c)
$(CHECK_GPU_OBJ): XCFLAGS := $(CUDA_HOST_XCFLAGS) $(addprefix -I,$(CUDA_INC))
$(CHECK_GPU_OBJ): $(OBJ)/.flags-cuda
$(BIN)/check-gpu-compare: $(CHECK_GPU_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDART_LDLIBS) -lm

# bin/bench-cuda: bench's trainer (bin/bench without the CPU backend and MPI
# comm) on the CUDA backend and NCCL comm. Linked by the C compiler: the .cu
# objects need libcudart and libstdc++ only (-fopenmp: bench's own objects
# are compiled with it).
CUDA_BACKEND_OBJ := $(CUDA_OBJ) $(CUDA_HOST_OBJ)
$(BIN)/bench-cuda: $(BENCH_CORE_OBJ) $(CUDA_BACKEND_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LDLIBS) $(BENCH_MPI_LIBS) $(DATA_LIBS) -fopenmp \
		-lstdc++ -lm

$(BIN)/bench-cuda-allreduce: $(ALLREDUCE_OBJ) $(CUDA_BACKEND_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LDLIBS) $(BENCH_MPI_LIBS) -fopenmp -lstdc++ -lm

all: $(BIN)/bench-cuda $(BIN)/bench-cuda-allreduce $(BIN)/check-gpu-compare

# check-gpu: the same weights and batch through bin/bench (CPU) and
# bin/bench-cuda (GPU); logits, loss, gradients and updated weights compared.
# The device check comes first so a machine without a GPU fails at once.
# amp runs at a static loss scale of 128: at the dynamic 2^16 the first step's
# fp16 weight gradients of a random-init network may overflow, and a skipped
# step has nothing to compare.
CHECK_GPU_FLAGS := --batch 8 --image 64 --classes 10 --seed 7 --lr 0.1
# and IResNet-50 with the ArcFace head (one rank: the whole classifier), fp32
CHECK_GPU_ARCFACE_FLAGS := --model iresnet50 --head arcface --batch 8 --image 32 --classes 10 \
	--seed 7 --lr 0.1 --precision fp32
CHECK_GPU_DIR := $(OBJ)/check-gpu
check-gpu: $(BIN)/check-gpu-compare
	$(BIN)/check-gpu-compare devices
	$(MAKE) --no-print-directory CUDA_QUIET=1 $(BIN)/bench $(BIN)/bench-cuda
	rm -rf $(CHECK_GPU_DIR)
	mkdir -p $(CHECK_GPU_DIR)/cpu $(CHECK_GPU_DIR)/fp32 $(CHECK_GPU_DIR)/amp
	$(BIN)/bench --export $(CHECK_GPU_DIR)/cpu --precision fp32 $(CHECK_GPU_FLAGS) >/dev/null
	$(BIN)/bench-cuda --export $(CHECK_GPU_DIR)/fp32 --precision fp32 $(CHECK_GPU_FLAGS) \
		>/dev/null
	$(BIN)/bench-cuda --export $(CHECK_GPU_DIR)/amp --precision amp --loss-scale 128 \
		$(CHECK_GPU_FLAGS) >/dev/null
	$(BIN)/check-gpu-compare compare fp32 $(CHECK_GPU_DIR)/cpu $(CHECK_GPU_DIR)/fp32
	$(BIN)/check-gpu-compare compare -g 128 amp $(CHECK_GPU_DIR)/cpu $(CHECK_GPU_DIR)/amp
	mkdir -p $(CHECK_GPU_DIR)/arcface-cpu $(CHECK_GPU_DIR)/arcface-fp32
	$(BIN)/bench --export $(CHECK_GPU_DIR)/arcface-cpu $(CHECK_GPU_ARCFACE_FLAGS) >/dev/null
	$(BIN)/bench-cuda --export $(CHECK_GPU_DIR)/arcface-fp32 $(CHECK_GPU_ARCFACE_FLAGS) >/dev/null
	$(BIN)/check-gpu-compare compare fp32 $(CHECK_GPU_DIR)/arcface-cpu $(CHECK_GPU_DIR)/arcface-fp32
else
check-gpu:
	@echo "check-gpu: no CUDA toolkit (cuDNN, cuBLAS) found; nothing to check" >&2; exit 1
endif

.PHONY: check-gpu

# gpu-first-run: what a user with GPUs runs first, into one file to keep or
# send (bench/cuda/first-run.sh; doc/gpu.md reads it line by line).
GPU_FIRST_RUN = $(RESULTS)/gpu-first-run.txt
ifdef CUDA_FOUND
gpu-first-run: $(BIN)/check-gpu-compare $(BIN)/bench-cuda $(BIN)/bench-cuda-allreduce \
		$(BIN)/bench bench/cuda/first-run.sh
	@mkdir -p $(RESULTS)
	bench/cuda/first-run.sh $(BIN) $(GPU_FIRST_RUN)
else
gpu-first-run:
	@echo "gpu-first-run: no CUDA toolkit (cuDNN, cuBLAS) found; nothing to run" >&2; exit 1
endif

.PHONY: gpu-first-run
