/*
 * bench/cuda/watch.c: the bounded wait of watch.h. No I/O of its own: the
 * clock, the work and the communicator are the caller's (ops).
 */
#include <stdio.h>

#include "watch.h"

void watch_start(struct watch *w, double now, double timeout)
{
	w->start = now;
	w->timeout = timeout;
	w->nap = 0.0;
	w->polls = 0;
	w->state = -1;
}

double watch_poll(struct watch *w, double now, int done, int comm_error)
{
	double waited = now - w->start;

	w->polls++;
	if (done)
		w->state = WATCH_DONE;
	else if (comm_error)
		w->state = WATCH_PEER_ERROR;
	else if (waited >= w->timeout)
		w->state = WATCH_TIMEOUT;
	if (w->state >= 0)
		return -1.0;
	if (waited < WATCH_SPIN_S)
		return 0.0;
	w->nap = w->nap < WATCH_NAP_MIN_S ? WATCH_NAP_MIN_S : w->nap * 2.0;
	if (w->nap > WATCH_NAP_MAX_S)
		w->nap = WATCH_NAP_MAX_S;
	if (waited + w->nap > w->timeout)
		w->nap = w->timeout - waited; /* poll once more at the timeout */
	return w->nap;
}

int watch_wait(const struct watch_ops *ops, void *ctx, const char *what, double timeout, char *why,
	       size_t n)
{
	struct watch w;
	char err[256] = "";
	double nap;

	watch_start(&w, ops->now(ctx), timeout);
	for (;;) {
		int done = ops->done(ctx);
		int bad = !done && ops->comm_error(ctx, err, sizeof err);
		nap = watch_poll(&w, ops->now(ctx), done, bad);
		if (nap < 0.0)
			break;
		if (nap > 0.0)
			ops->nap(ctx, nap);
	}
	if (w.state == WATCH_DONE)
		return WATCH_DONE;
	ops->comm_abort(ctx);
	if (w.state == WATCH_PEER_ERROR)
		snprintf(why, n,
			 "waiting for %s: NCCL reported an error after %.1f s: %s; "
			 "communicator aborted",
			 what, ops->now(ctx) - w.start, err);
	else
		snprintf(why, n,
			 "waiting for %s: not done after %.0f s, and NCCL reports no error: a peer "
			 "is gone or stuck (--nccl-timeout); communicator aborted",
			 what, timeout);
	return w.state;
}
