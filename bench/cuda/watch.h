/*
 * bench/cuda/watch.h: the bounded wait of a multi-GPU run, as a host-side
 * state machine. Plain C: comm_nccl.cu drives it with CUDA events and
 * NCCL's communicator, the CPU tests (bin/test-gpu-host watch) with a fake
 * communicator and a fake clock.
 *
 * A rank waiting for its step (or for NCCL's set-up) spins for a moment,
 * then naps between polls, growing the nap up to a bound; every poll asks
 * the communicator for an asynchronous error (ncclCommGetAsyncError). On
 * an error, or when the wait has lasted longer than the timeout, it aborts
 * the communicator (ncclCommAbort: NCCL's kernels return, the stream is
 * free) and says why in one line for the caller to die with. A dead peer
 * thus ends every rank within the timeout, whatever the launcher does.
 */
#ifndef BENCH_CUDA_WATCH_H
#define BENCH_CUDA_WATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WATCH_SPIN_S    0.002 /* poll without napping for this long */
#define WATCH_NAP_MIN_S 20e-6 /* then nap this long between polls, */
#define WATCH_NAP_MAX_S 0.001 /* doubling up to this */
#define WATCH_TIMEOUT_S 300.0 /* default --nccl-timeout */

struct watch_ops {
	/* 1: what is waited for is done; 0: not yet */
	int (*done)(void *ctx);
	/* 0: no error; else the communicator's asynchronous error, described in why */
	int (*comm_error)(void *ctx, char *why, size_t n);
	void (*comm_abort)(void *ctx);
	double (*now)(void *ctx); /* seconds, monotonic */
	void (*nap)(void *ctx, double seconds);
};

enum watch_result {
	WATCH_DONE,
	WATCH_PEER_ERROR, /* the communicator reported an error: aborted */
	WATCH_TIMEOUT,    /* not done within the timeout: aborted */
};

/* The state between two polls (exposed for the tests). */
struct watch {
	double start, timeout, nap;
	long polls;
	int state; /* enum watch_result while finished, -1 while waiting */
};

void watch_start(struct watch *w, double now, double timeout);
/*
 * One poll at time now, given whether the work is done and whether the
 * communicator has an error: returns the seconds to nap before the next
 * poll (0: poll again at once), or -1 when the wait is over (w->state says
 * how).
 */
double watch_poll(struct watch *w, double now, int done, int comm_error);

/*
 * The whole wait through ops. On WATCH_PEER_ERROR and WATCH_TIMEOUT the
 * communicator has been aborted and why holds one line, without "bench: ":
 *   "NCCL reported an error after 4.2 s of waiting: remote process exited ..."
 *   "not done after 300 s, and NCCL reports no error: a peer is gone or stuck"
 * what names what was waited for ("the step", "NCCL's set-up").
 */
int watch_wait(const struct watch_ops *ops, void *ctx, const char *what, double timeout, char *why,
	       size_t n);

#ifdef __cplusplus
}
#endif

#endif
