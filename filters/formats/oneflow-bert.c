/*
 * oneflow-bert.c — OneFlow's BERT pretraining benchmark.
 *
 *   step: 19, total_loss: 9.725, mlm_loss: 8.990, …, throughput: 54.982 1598056519.8844702
 *
 * A line every 20 steps, closing the interval since the previous one: step s
 * (0-based) ends iteration s + 1. The rate is over the interval, the Unix
 * time last. It prints OneFlow's "name = value" configuration lines and is
 * measured by DLPerf the way OneFlow's cnns are (oneflow.c).
 */
#include "families.h"
#include "formats.h"
#include "scan.h"
#include "stamp.h"

#include <string.h>

/* "step: " at the start of the line or after a blank, "throughput:" in it. */
static const char *detect(const char *s)
{
	const char *p = strncmp(s, "step: ", 6) == 0 ? s : strstr(s, " step: ");

	if (!p || !strstr(s, "throughput:"))
		return NULL;
	return p == s ? p : p + 1;
}

static int parse(struct scan *sc, const char *s, const char *at, struct it *it)
{
	const char *p = skipb(at + 5), *q;

	(void)s;
	it->iter = getint(sc, &p, "step", ",") + 1;
	if ((q = label(p, "total_loss:")) != NULL)
		it->loss = getloss(sc, &q, "total_loss", ",");
	q = label(p, "throughput:");
	it->rate = getnum(sc, &q, "throughput", NULL, POSITIVE);
	q = skipb(q);
	unix_last(sc, &q, it);
	return 1;
}

const struct format oneflow_bert_format = {
	.name = "oneflow-bert",
	.display = "OneFlow BERT",
	.rank = 11,
	.detect = detect,
	.parse = parse,
	.config_prefixes = oneflow_config_prefixes,
	.config = oneflow_config,
	.numbering = NUM_GLOBAL,
	.interval = 1,
	.skip = 20,
	.count = 100,
	.method = METHOD_TIME,
	.dlperf_skip = 20,
	.dlperf_count = 100,
	.dlperf_speed = oneflow_dlperf_speed,
};
