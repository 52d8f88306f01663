/*
 * ngc-mxnet.c — NVIDIA's DeepLearningExamples MXNet ResNet50 (NGC container).
 *
 *   2020-09-10 12:34:56,789:INFO: Epoch[0] Batch [20-20]	Speed: 392.66 samples/sec	…
 *
 * One line per iteration and rank, all ranks in one log: Batch [b-b]
 * (0-based, restarting each epoch) ends iteration b + 1 of its epoch. The
 * ranks' lines of an iteration become one record: the median rate, step_s
 * derived from it, the latest logging stamp (UTC). A Batch [i-j] over
 * several batches cannot be measured: log every batch. DLPerf's matcher
 * reads epoch 0 only; its method is gluon-cv's over rows of one line a rank.
 */
#include "dlperf.h"
#include "families.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

#include <string.h>

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *e = at, *p = at + 8;

	while (e > s && e[-1] != '[')
		e--;
	if (e - s < 6 || strncmp(e - 6, "Epoch[", 6) != 0)
		record_die(sc->in, "no 'Epoch[<e>]' before 'Batch ['");
	stamp_find(sc, s, e - 6, it);
	it->epoch = (long)getint(sc, &e, "Epoch", "]");
	long long i = getint(sc, &p, "batch", "-");
	expect(sc, &p, "-", "Batch");
	long long j = getint(sc, &p, "batch", "]");
	if (i != j)
		record_die(sc->in, "Batch [%lld-%lld] covers several batches; log every batch", i,
			   j);
	it->iter = j + 1;
	mxnet_speed(sc, p, it);
	return 1;
}

/* DLPerf: rows of one line per rank (N × G lines), as mxnet.c. */
static double dlperf_speed(struct dlperf_run *r)
{
	return mxnet_dlperf_rows(r, r->key.nodes * r->key.gpus);
}

const struct format ngc_mxnet_format = {
	.name = "ngc-mxnet",
	.display = "NGC MXNet",
	.rank = 40,
	.anchor = " Batch [",
	.then = "Speed:",
	.parse = parse,
	.numbering = NUM_EPOCHS,
	.derive = DERIVE_RATE,
	.grouped = 1,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_epoch0 = 1,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = dlperf_speed,
};
