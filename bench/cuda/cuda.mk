# bench/cuda/cuda.mk: bench's CUDA backend (cuDNN, cuBLAS, NCCL, kernels of
# our own), the allreduce benchmark on NCCL, and the drivers that test the
# GPU side's host logic. Included by the top Makefile after bench/bench.mk.
#
#   make                       detects the toolkit, builds the GPU programs when found
#   make CUDA=0                forces the GPU backend off
#   make CUDA_ARCH="70 75"     compute capabilities to build for (default below;
#                              native: the GPUs of this machine only)
#   make CUDA_HOME=/opt/cuda   where the toolkit lives (default /usr/local/cuda,
#                              else where nvcc is on PATH)
#   make CUDNN_HOME=DIR NCCL_HOME=DIR   cuDNN or NCCL there (DIR/include, DIR/lib)
#   make check-gpu             CPU and GPU backends on the same weights and batch
#
# The host-side pieces (bench/cuda/lossscale.c, search.c, startup.c,
# watch.c, the headers the kernels share with them, and their driver
# bin/test-gpu-host) are plain C and always built: they are tested on the
# CPU. What needs nvcc is built only when nvcc, cuDNN and cuBLAS are found;
# NCCL is needed for more than one GPU.

CUDA ?= 1
# The toolkit: /usr/local/cuda, else the one whose nvcc is on PATH.
ifeq ($(origin CUDA_HOME),undefined)
CUDA_HOME := $(if $(wildcard /usr/local/cuda/bin/nvcc),/usr/local/cuda,$(or $(patsubst \
	%/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda))
endif
NVCC := $(CUDA_HOME)/bin/nvcc
# The python3 whose CUDA wheels (PyTorch's nvidia-cudnn-cu13 ...) are looked at.
CUDA_PYTHON ?= python3
# CUDA_WERROR=0: the GPU side's warnings stay warnings (a host compiler
# newer than the project's may warn where it did not).
CUDA_WERROR ?= 1

# ---- detect ----------------------------------------------------------------
# Each of cuDNN, cuBLAS, NCCL and the CUDA runtime is a header and a shared
# library, looked for in this order:
#   CUDNN_HOME, NCCL_HOME  include/ and lib/ (or lib64/) of an install or wheel
#   the system             $(CUDA_HOME)/include, /usr/include (Debian's and
#                          NVIDIA's packages put cuDNN and NCCL there) and the
#                          multiarch one; $(CUDA_HOME)/lib64, lib, the multiarch one
#   PyTorch's CUDA wheels  the folders of $(CUDA_PYTHON)'s `import nvidia`:
#                          nvidia/cudnn, nvidia/nccl, nvidia/cu13 (cuBLAS and the
#                          runtime of CUDA 13), nvidia/cublas and nvidia/cuda_runtime
#                          (CUDA 12); asked only when the system lacks one
# A library is libNAME.so (linked -lNAME), else the one libNAME.so.N there
# (wheels have no libNAME.so: linked -l:libNAME.so.N); its folder goes into
# the run path, so the programs run without LD_LIBRARY_PATH.

cuda_sys_inc := $(CUDA_HOME)/include /usr/include /usr/include/x86_64-linux-gnu
cuda_sys_lib := $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib /usr/lib/x86_64-linux-gnu
# $(call cuda_so,DIRS,NAME): the first libNAME.so, else libNAME.so.N, in DIRS.
cuda_so_n = $(foreach f,$(wildcard $(1)/lib$(2).so.*),$(if $(findstring .,$(patsubst \
	$(1)/lib$(2).so.%,%,$(f))),,$(f)))
cuda_so = $(firstword $(foreach d,$(1),$(or $(wildcard $(d)/lib$(2).so),$(lastword $(sort \
	$(call cuda_so_n,$(d),$(2)))))))
cuda_h = $(firstword $(wildcard $(addsuffix /$(2),$(1))))
# $(call cuda_def,header,MACRO): the value of #define MACRO in header.
cuda_def = $(shell sed -n 's/^\#define $(2)  *\([0-9][0-9]*\).*/\1/p' $(1) 2>/dev/null)
# $(call cuda_home_dirs,HOME,include|lib): a HOME's folders.
cuda_home_dirs = $(if $(1),$(if $(filter include,$(2)),$(1)/include,$(1)/lib $(1)/lib64))
# The wheels' nvidia/ folders, asked of python once and only when needed.
cuda_wheel_roots = $(eval cuda_wheel_roots := $(shell $(CUDA_PYTHON) -c \
	'import nvidia; print(*nvidia.__path__)' 2>/dev/null))$(cuda_wheel_roots)
# $(call cuda_wheel,SUBDIRS,include|lib): those folders of the wheels.
cuda_wheel = $(foreach r,$(cuda_wheel_roots),$(addprefix $(r)/,$(addsuffix /$(2),$(1))))

# $(call cuda_find,VAR,HEADER,LIB,HOME,WHEEL SUBDIRS): sets VAR_h, VAR_lib
# and VAR_where (empty, or "PyTorch's wheel").
define cuda_find
$(1)_h := $$(call cuda_h,$$(call cuda_home_dirs,$(4),include) $$(cuda_sys_inc),$(2))
$(1)_lib := $$(call cuda_so,$$(call cuda_home_dirs,$(4),lib) $$(cuda_sys_lib),$(3))
$(1)_where :=
ifeq ($$(and $$($(1)_h),$$($(1)_lib)),)
ifeq ($(4),)
$(1)_h := $$(call cuda_h,$$(call cuda_wheel,$(5),include),$(2))
$(1)_lib := $$(call cuda_so,$$(call cuda_wheel,$(5),lib),$(3))
$(1)_where := $$(if $$(and $$($(1)_h),$$($(1)_lib)), in PyTorch's wheel)
endif
endif
endef

# What was found is said once (bench.mk's build_say).
cuda_say = $(build_say)
# $(call cuda_found,NAME,VAR,VERSION): "NAME: found VERSION[ in PyTorch's wheel]: header library"
cuda_found = $(1): found $(3)$($(2)_where): $($(2)_h) $($(2)_lib)
cuda_version = $(call cuda_def,$(1),$(2)_MAJOR).$(call cuda_def,$(1),$(2)_MINOR)

CUDA_FOUND :=
ifeq ($(CUDA),0)
$(call cuda_say,cuDNN: off (CUDA=0)$(,) GPU backend skipped)
else ifeq ($(wildcard $(NVCC)),)
$(call cuda_say,nvcc: not found at $(NVCC))
$(call cuda_say,cuDNN: not found$(,) GPU backend skipped)
else
$(eval $(call cuda_find,cudnn,cudnn_version.h,cudnn,$(CUDNN_HOME),cudnn))
$(eval $(call cuda_find,cublas,cublas_v2.h,cublas,,cu13 cublas))
$(eval $(call cuda_find,nccl,nccl.h,nccl,$(NCCL_HOME),nccl))
$(eval $(call cuda_find,cudart,cuda_runtime_api.h,cudart,,cu13 cuda_runtime))
$(call cuda_say,nvcc: $(NVCC))
ifeq ($(and $(cudnn_h),$(cudnn_lib)),)
$(call cuda_say,cuDNN: not found$(,) GPU backend skipped)
else ifeq ($(and $(cublas_h),$(cublas_lib),$(cudart_lib)),)
$(call cuda_say,$(call cuda_found,cuDNN,cudnn,$(call cuda_version,$(cudnn_h),CUDNN)))
$(call cuda_say,$(if $(cublas_lib),CUDA runtime,cuBLAS): not found$(,) GPU backend skipped)
else
CUDA_FOUND := 1
$(call cuda_say,$(call cuda_found,cuDNN,cudnn,$(call cuda_version,$(cudnn_h),CUDNN)))
$(call cuda_say,$(call cuda_found,cuBLAS,cublas,$(call cuda_version,$(dir \
	$(cublas_h))cublas_api.h,CUBLAS_VER)))
$(call cuda_say,$(call cuda_found,CUDA runtime,cudart,$(shell awk '/^\#define CUDART_VERSION/ \
	{ printf "%d.%d", $$3 / 1000, $$3 % 1000 / 10 }' $(cudart_h))))
ifeq ($(and $(nccl_h),$(nccl_lib)),)
NCCL_FOUND :=
$(call cuda_say,NCCL: not found$(,) bench-cuda limited to one GPU)
else
NCCL_FOUND := 1
$(call cuda_say,$(call cuda_found,NCCL,nccl,$(call cuda_version,$(nccl_h),NCCL)))
endif
endif
endif

# A CUDA device on this machine, for the pipeline's choice of bin/bench-cuda
# (pipelines/bench.mk) and the architectures built: the driver's device
# files (/dev/nvidia0 …) or, where there are none (WSL), a GPU in
# nvidia-smi's list; CUDA_VISIBLE_DEVICES set empty or to -1 hides them, as
# it does from CUDA. Probed once, when needed; CUDA_DEVICE=1 or
# CUDA_DEVICE= decides instead.
cuda_hidden = $(and $(filter-out undefined,$(origin CUDA_VISIBLE_DEVICES)),$(if \
	$(filter-out -1,$(CUDA_VISIBLE_DEVICES)),,1))
cuda_probe = $(if $(cuda_hidden),,$(if $(wildcard /dev/nvidia[0-9]*),1,$(if \
	$(shell nvidia-smi -L 2>/dev/null | grep '^GPU '),1)))
CUDA_DEVICE ?= $(eval CUDA_DEVICE := $(cuda_probe))$(CUDA_DEVICE)

# The architectures: where a GPU is present (or CUDA_ARCH=native), only
# those of its GPUs, as nvidia-smi reports them; elsewhere the list below.
# An architecture this nvcc cannot build for is a clear error, not nvcc's
# "Unsupported gpu architecture" halfway through the build.
CUDA_ARCH_DEFAULT := 75 80 86 89 90
cuda_native = $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
	grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sort -u)
ifdef CUDA_FOUND
ifeq ($(origin CUDA_ARCH),undefined)
cuda_arch_here := $(if $(CUDA_DEVICE),$(cuda_native))
CUDA_ARCH := $(or $(cuda_arch_here),$(CUDA_ARCH_DEFAULT))
$(call cuda_say,CUDA_ARCH: $(CUDA_ARCH) ($(if $(cuda_arch_here),the GPU here,the default; \
CUDA_ARCH=native: the GPU here only)))
else ifeq ($(strip $(CUDA_ARCH)),native)
override CUDA_ARCH := $(or $(cuda_native),$(error CUDA_ARCH=native: nvidia-smi reports no GPU's \
compute capability here; name them, e.g. CUDA_ARCH=90))
$(call cuda_say,CUDA_ARCH: $(CUDA_ARCH) (native))
endif
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

CUDA_INC := $(sort $(patsubst %/,%,$(dir $(cudnn_h) $(cublas_h) $(nccl_h) $(cudart_h))) \
	$(CUDA_HOME)/include)
CUDA_LIBDIRS := $(sort $(patsubst %/,%,$(dir $(cudnn_lib) $(cublas_lib) $(nccl_lib) $(cudart_lib))))
cuda_libpath := $(addprefix -L,$(CUDA_LIBDIRS)) $(addprefix -Wl$(,)-rpath$(,),$(CUDA_LIBDIRS))
# -lNAME for libNAME.so, -l:libNAME.so.N for a versioned file alone.
cuda_l = $(if $(filter %.so,$(1)),-l$(patsubst lib%.so,%,$(notdir $(1))),-l:$(notdir $(1)))
CUDA_LDLIBS := $(cuda_libpath) $(call cuda_l,$(cudnn_lib)) $(call cuda_l,$(cublas_lib)) \
	$(if $(NCCL_FOUND),$(call cuda_l,$(nccl_lib))) $(call cuda_l,$(cudart_lib))
CUDART_LDLIBS := $(cuda_libpath) $(call cuda_l,$(cudart_lib))

cuda_werror := $(if $(filter 0,$(CUDA_WERROR)),,-Werror all-warnings)
NVCCFLAGS := -std=c++17 -O3 -g -lineinfo $(CUDA_GENCODE) $(cuda_werror) \
	-Xcompiler -Wall,-Wextra$(if $(cuda_werror),$(,)-Werror) -Ilib -Ibench \
	$(addprefix -I,$(CUDA_INC)) $(if $(NCCL_FOUND),,-DBENCH_NO_NCCL) $(EXTRA_NVCCFLAGS)
# The host C of the GPU side: warnings are errors here too.
CUDA_HOST_XCFLAGS := -Ibench $(if $(cuda_werror),-Werror)
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

# bin/check-gpu-compare: "no CUDA device" or the device list; the CUDA
# libraries' versions as loaded; compares two --export directories.
CHECK_GPU_OBJ := $(call objs,tests/drivers/check-gpu.c tests/drivers/check-gpu-versions.c)
$(CHECK_GPU_OBJ): XCFLAGS := $(CUDA_HOST_XCFLAGS) $(addprefix -I,$(CUDA_INC)) \
	$(if $(NCCL_FOUND),,-DBENCH_NO_NCCL)
$(CHECK_GPU_OBJ): $(OBJ)/.flags-cuda
$(BIN)/check-gpu-compare: $(CHECK_GPU_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LDLIBS) -lm

# bin/bench-cuda: bench's trainer (bin/bench without the CPU backend and MPI
# comm) on the CUDA backend and NCCL comm. Linked by the C compiler: the .cu
# objects need libcudart and libstdc++ only (-fopenmp: bench's own objects
# are compiled with it).
CUDA_BACKEND_OBJ := $(CUDA_OBJ) $(CUDA_HOST_OBJ)
$(BIN)/bench-cuda: $(BENCH_CORE_OBJ) $(CUDA_BACKEND_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LDLIBS) $(BENCH_MPI_LIBS) $(DATA_LIBS) -fopenmp \
		-lstdc++ -lm

$(BIN)/bench-cuda-allreduce: $(ALLREDUCE_OBJ) $(CUDA_BACKEND_OBJ) $(LIBDLBENCH) | $(BIN)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CUDA_LDLIBS) $(BENCH_MPI_LIBS) -ldl -fopenmp -lstdc++ -lm

all: $(BIN)/bench-cuda $(BIN)/bench-cuda-allreduce $(BIN)/check-gpu-compare

# check-gpu: bench-cuda's first step in fp32 and amp, and IResNet-50 with the
# ArcFace head in fp32, against bench's CPU backend (bin/bench, where oneDNN
# is found) and PyTorch in float64 (tests/drivers/check-gpu.sh says how;
# doc/gpu.md the bounds). The device check comes first so a machine without
# a GPU fails at once.
CHECK_GPU_DIR := $(OBJ)/check-gpu
check-gpu: $(BIN)/check-gpu-compare
	$(BIN)/check-gpu-compare devices
	$(MAKE) --no-print-directory CUDA_QUIET=1 $(BIN)/bench-cuda $(if $(DNNL_H),$(BIN)/bench)
	tests/drivers/check-gpu.sh $(BIN) $(CHECK_GPU_DIR)
else
check-gpu:
	@echo "check-gpu: no CUDA toolkit (cuDNN, cuBLAS) found; nothing to check" >&2; exit 1
endif

.PHONY: check-gpu

# gpu-first-run: what a user with a GPU runs first, from a fresh checkout:
# it builds what is missing itself, then runs time-boxed parts into one
# file to keep or send (bench/cuda/first-run.sh; doc/gpu.md reads it).
GPU_FIRST_RUN = $(RESULTS)/gpu-first-run.txt
gpu-first-run:
	bench/cuda/first-run.sh $(BIN) $(GPU_FIRST_RUN)

# gpu-carry: what a GPU machine with only a driver and PyTorch's wheels may
# lack, in .gpu/ (ignored; a trip to such a machine carries it, doc/gpu.md):
# .gpu/cpu-bench.tar.xz, bin/bench and the libraries it needs beyond glibc
# and the C++ runtime (oneDNN, the OpenCL loader, libgomp), so that
# gpu-first-run there checks bench-cuda against the CPU backend too; and
# .gpu/bin/make, this machine's GNU make (it needs glibc alone), for one
# without make; .gpu/commit, what `git describe` says now (the trip may
# carry no .git).
GPU_CARRY := .gpu/cpu-bench.tar.xz
gpu-carry: $(GPU_CARRY) .gpu/bin/make
	git describe --always --dirty > .gpu/commit
.gpu/bin/make: $(shell command -v $(firstword $(MAKE)))
	mkdir -p $(@D)
	cp $< $@.tmp
	mv $@.tmp $@
$(GPU_CARRY): $(BIN)/bench
	rm -rf $@.d
	mkdir -p $@.d/lib
	cp $(BIN)/bench $@.d/
	ldd $(BIN)/bench | awk '$$2 == "=>" && $$3 ~ /^\// { print $$3 }' | \
		grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' | \
		xargs -r -I{} cp -L {} $@.d/lib/
	{ echo "# bin/bench $$(git rev-parse --short HEAD) $$(date -u +%Y-%m-%dT%H:%M:%SZ)"; \
		cd $@.d && sha256sum bench lib/*; } > $@.d/MANIFEST
	tar -C $@.d -cJf $@.tmp MANIFEST bench lib
	rm -rf $@.d
	mv $@.tmp $@
	@echo "gpu-carry: $@, $$(du -k $@ | cut -f1) KB"

.PHONY: gpu-first-run gpu-carry
