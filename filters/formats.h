/*
 * formats.h — the table of training-log formats (spec §2.12): how each is
 * named, whether its records cover one iteration or an interval, and the
 * window it is measured with by default. grep-iters writes the format name
 * into every record; window reads it back to pick its defaults.
 */
#ifndef DLBENCH_FORMATS_H
#define DLBENCH_FORMATS_H

enum method { METHOD_TIME, METHOD_RATE };

struct format {
	const char *name;      /* record column and -f value, e.g. "ngc-pytorch" */
	const char *framework; /* default framework when the path does not name one */
	const char *display;   /* column header in tables, e.g. "NGC PyTorch" */
	int interval;          /* 1: a record closes the interval since the previous one */
	int skip, count;       /* default window (ours), iterations */
	enum method method;    /* default method (ours) */
};

/* The formats, in the order of detection tests (spec §2.13); NULL-terminated
 * by name. */
extern const struct format formats[];

/* By name; NULL when unknown. */
const struct format *format_find(const char *name);

/* Display name and seed column order of a framework (OneFlow, TensorFlow,
 * PyTorch, MxNet, Paddle, then the others by name). */
const char *framework_display(const char *framework);
int framework_rank(const char *framework);

#endif
