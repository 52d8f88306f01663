# lib/key.mk — the configuration key's grammar (lib/key.c) for make. Written
# by `make generate` (tests/drivers/key-mk.c); tests/tree.bats checks it.
# Do not edit.
KEY_SHAPE := <N>n<G>g_b<B>_<fp32|tf32|amp|bf16|fp16>
# N, G or B: 1..1048576 without leading zeros
KEY_PART_MAX := 1048576
KEY_PART_PATTERN := ([1-9][0-9]{0,5}|10[0-3][0-9]{4}|104[0-7][0-9]{3}|1048[0-4][0-9]{2}|10485[0-6][0-9]|104857[0-5]|1048576)
KEY_PATTERN := $(KEY_PART_PATTERN)n$(KEY_PART_PATTERN)g_b$(KEY_PART_PATTERN)_(fp32|tf32|amp|bf16|fp16)
