/*
 * tests/drivers/check-gpu.h: the tolerances of make check-gpu per precision,
 * read by its comparer (check-gpu.c) and printed by bin/test-gpu-host for
 * tests/bench-cuda.bats.
 *
 * Set from measurements (doc/gpu.md): a random-init ResNet50's gradients
 * are a discontinuous function of the activations (ReLU masks), so two
 * correct fp32 implementations differ by ~2.5e-2 in each tensor's gradient
 * direction, while logits, loss and gradient norms agree to ~1e-5 .. 1e-2.
 *   logits: ||dz|| / ||z|| of the logits; loss: relative
 *   norm_median, norm_worst: | ||b|| / ||a|| - 1 | over the parameter tensors
 *   dir_worst: ||a - b|| / ||a|| per tensor; 0 = reported, not judged (bf16:
 *   there the directions do not agree at all)
 * The update (params_after - params) is held to the gradients' norm bounds.
 *   null_worst: a gradient zero in exact arithmetic (the reference's norm at
 *   most 1e-5 of the median tensor's: IResNet's BN biases read only by
 *   other batch norms) is rounding noise on both sides, with no direction:
 *   the test's norm is held to null_worst of the median tensor's norm
 *   instead (fp32: 1e-7 .. 2e-6 measured on the CPU). ResNet50 has none.
 */
#ifndef TESTS_DRIVERS_CHECK_GPU_H
#define TESTS_DRIVERS_CHECK_GPU_H

#include <string.h>

struct gpu_tol {
	double logits, loss, norm_median, norm_worst, dir_worst, null_worst;
};

/* The tolerances of "fp32", "tf32", "amp" or "bf16"; -1 for anything else. */
static inline int gpu_tolerance(const char *precision, struct gpu_tol *tol)
{
	/* Measured at check-gpu's configuration (batch 8, 64 px, 10 classes),
	 * bench fp32 (CPU) against PyTorch float32 on the same weights: logits
	 * 5.6e-5, loss 9e-6, gradient norm ratio median 5.7e-4 / worst 6.2e-3,
	 * direction median 2.6e-2 / worst 4.4e-2. PyTorch bf16 autocast against
	 * float32: logits 0.35, loss 4.2e-2, norm ratio median 1.6e-2 / worst 0.27,
	 * directions ~1.3 (none). fp16 and tf32 keep 3 more mantissa bits than
	 * bf16. Bounds leave 3-20x room above the measured; a wrong kernel is off
	 * by O(1). In amp and tf32 a direction bound of 1.2 still catches a sign
	 * flip (2) or an unrelated gradient (~1.41); bf16's directions are noise. */
	if (strcmp(precision, "fp32") == 0)
		*tol = (struct gpu_tol){1e-3, 1e-3, 5e-3, 5e-2, 0.15, 1e-4};
	else if (strcmp(precision, "tf32") == 0 || strcmp(precision, "amp") == 0)
		*tol = (struct gpu_tol){0.1, 2e-2, 2e-2, 0.25, 1.2, 1e-2};
	else if (strcmp(precision, "bf16") == 0)
		*tol = (struct gpu_tol){0.8, 0.15, 6e-2, 0.8, 0.0, 1e-1};
	else
		return -1;
	return 0;
}

#endif
