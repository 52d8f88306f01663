/*
 * bench/shard.h: the ArcFace classifier split by class over the ranks, as
 * PLSC's DistributedClassifier cuts it: each of R ranks holds q = ceil(C/R)
 * classes, the last the rest; rank r's are [r q, r q + its size). A label's
 * column in a shard, and the messages of a step's split head (head.c).
 * Plain C, shared by both backends and tested on the CPU (bin/test-gpu-host).
 */
#ifndef BENCH_SHARD_H
#define BENCH_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "elementwise.h"

/* Classes a rank holds, but the last's. */
static inline BENCH_HD long shard_quota(long classes, int ranks)
{
	return (classes + ranks - 1) / ranks;
}

/* The first class of shard r. */
static inline BENCH_HD long shard_first(long classes, int ranks, int r)
{
	return (long)r * shard_quota(classes, ranks);
}

/* The classes of shard r: the quota, the last the rest (0 or less when the
 * split leaves it none: shard_ok). */
static inline BENCH_HD long shard_size(long classes, int ranks, int r)
{
	long q = shard_quota(classes, ranks), left = classes - (long)r * q;
	return left < q ? left : q;
}

/* Every shard holds a class: the last's rest is positive. */
static inline BENCH_HD int shard_ok(long classes, int ranks)
{
	return ranks >= 1 && classes >= 1 && shard_size(classes, ranks, ranks - 1) > 0;
}

/* The column of a class in the shard of classes [c0, c0 + cr); -1 when
 * another rank holds it. */
static inline BENCH_HD int shard_column(int32_t label, long c0, long cr)
{
	long j = (long)label - c0;
	return j >= 0 && j < cr ? (int)j : -1;
}

/* The collectives of one step of the split head, in the order they run,
 * each with the elements this rank sends (allgather, reduce-scatter: its
 * own block; allreduce: the whole buffer) of its element size. rows =
 * batch x ranks, e the embedding's width. */
enum { SHARD_MESSAGES = 5 };
struct shard_message {
	const char *name, *what;
	size_t elements, elsize;
};

static inline void shard_messages(int batch, int ranks, int e, struct shard_message *m)
{
	size_t rows = (size_t)batch * (size_t)ranks;
	m[0] = (struct shard_message){"allgather", "embeddings", (size_t)batch * (size_t)e, 4};
	m[1] = (struct shard_message){"allgather", "labels", (size_t)batch, 4};
	m[2] = (struct shard_message){"allreduce-max", "row-maxima", rows, 4};
	m[3] = (struct shard_message){"allreduce-sum", "row-sums", rows, 4};
	m[4] = (struct shard_message){"reduce-scatter", "embedding-gradients",
				      (size_t)batch * (size_t)e, 4};
}

#endif
