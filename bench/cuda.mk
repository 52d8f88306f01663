# bench/cuda.mk: the CUDA backend (cuDNN, cuBLAS, NCCL); filled in by the GPU work
