/*
 * bench/allreduce/main.c: bin/bench-allreduce (CPU: MPI) and
 * bin/bench-cuda-allreduce (GPU: NCCL), the allreduce benchmark of
 * allreduce.h as a program of its own, like nccl-tests' all_reduce_perf;
 * `bench --allreduce` runs the same benchmark.
 *
 *   mpirun -np 2 bench-allreduce [--min-bytes N] [--max-bytes N] [--factor 2|4]
 *                                [--iters N] [--warmup N]
 *
 * Writes the table on stdout (rank 0); exit 2 on a bad flag.
 */
#include <stdio.h>
#include <string.h>

#include "allreduce.h"
#include "backend.h"
#include "comm.h"
#include "lib.h"

/* Every error on any rank ends the whole job. */
static void end_all_ranks(int status)
{
	if (comm_size() > 1)
		comm_abort(status);
}

int main(int argc, char **argv)
{
	/* Its messages are bench's ("bench: --iters: ..."); its synopsis its own. */
	static char synopsis[512];
	size_t len = (size_t)snprintf(synopsis, sizeof synopsis, "bench-allreduce");
	for (const struct allreduce_flag *f = allreduce_flags; f->name; f++)
		len += (size_t)snprintf(synopsis + len, sizeof synopsis - len, " [%s %s]", f->name,
					f->arg);
	progname = "bench";
	usage_text = synopsis;

	struct allreduce_config ac;
	comm_init(&argc, &argv);
	set_exit_hook(end_all_ranks);
	allreduce_defaults(&ac);
	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc || !allreduce_flag(&ac, argv[i], argv[i + 1])) {
			if (comm_rank() == 0)
				fprintf(stderr, "usage: %s\n", usage_text);
			comm_abort(2);
		}
	}
	allreduce_check(&ac);

	bk_config bc = {.precision = BK_FP32, .threads = 1, .local_rank = comm_local_rank()};
	bk_init(&bc);
	int rc = allreduce_run(&ac, stdout);
	bk_finalize();
	comm_finalize();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "bench-allreduce: write error on stdout\n");
		return 1;
	}
	return rc;
}
