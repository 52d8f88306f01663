/*
 * allreduce.c: bin/bench-allreduce (CPU: MPI) and bin/bench-cuda-allreduce
 * (GPU: NCCL), the allreduce probe of probe.h as a program of its own, like
 * nccl-tests' all_reduce_perf; `bench --allreduce` runs the same probe.
 *
 *   mpirun -np 2 bench-allreduce [--min-bytes N] [--max-bytes N] [--factor 2|4]
 *                                [--iters N] [--warmup N]
 *
 * Writes the table on stdout (rank 0); exit 2 on a bad flag.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "comm.h"
#include "allreduce.h"

static const char *usage_text =
    "usage: bench-allreduce [--min-bytes N] [--max-bytes N] [--factor 2|4] [--iters N] "
    "[--warmup N]\n";

int
main(int argc, char **argv)
{
	struct probe_config pc;

	comm_init(&argc, &argv);
	probe_defaults(&pc);
	for (int i = 1; i < argc; i += 2) {
		int r = i + 1 < argc ? probe_flag(&pc, argv[i], argv[i + 1]) : 0;

		if (r == 0) {
			if (comm_rank() == 0)
				fputs(usage_text, stderr);
			comm_abort(2);
		}
		if (r < 0)
			comm_abort(2);
	}
	if (probe_check(&pc) != 0)
		comm_abort(2);

	bk_config bc = {.precision = BK_FP32, .threads = 1, .local_rank = comm_local_rank()};
	bk_init(&bc);
	int rc = probe_allreduce(&pc, stdout);
	bk_finalize();
	comm_finalize();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "bench-allreduce: write error on stdout\n");
		return 1;
	}
	return rc;
}
