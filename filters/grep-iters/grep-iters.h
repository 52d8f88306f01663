/*
 * grep-iters.h — what the parts of grep-iters share: main.c reads the logs
 * and writes the records, paths.c reads a log's configuration from its
 * path or -k, lines.c splits a log into lines, ranks.c groups the lines of
 * several ranks in one log, meta.c keeps launch's env, mem and energy lines,
 * nccl.c reads what NCCL chose from the other lines, list.c lists the
 * formats (-l).
 */
#ifndef DLBENCH_GREP_ITERS_H
#define DLBENCH_GREP_ITERS_H

#include "../formats/formats.h"
#include "../formats/scan.h"

/* ---- a log's path (paths.c) --------------------------------------------- */

/* The configuration a log's path carries: sc's key (ours or DLPerf's layout,
 * its precision through sc's aliases, or opt_key, which must agree), *run,
 * and *framework (ours: the directory above the key; else NULL). Dies on a
 * path of neither layout without -k. */
void path_config(struct scan *sc, const char *path, const struct key *opt_key, long *run,
		 char **framework);
/* -k's key (-a's aliases al applied); a usage error when it is none. */
void opt_key_read(const struct aliases *al, const char *arg, struct key *k);

/* ---- grep-iters -l (list.c) --------------------------------------------- */

/* The registry's formats as a markdown table on stdout; returns 0. */
int list_formats(void);

/* ---- a log's lines (lines.c) ------------------------------------------- */

#define LINES_NONE ((size_t)-1)

/* The buffer holds the bytes [0, len) of the log read so far from pos on. */
struct lines {
	char *buf;
	size_t cap, len, pos;
	size_t scan; /* no newline in [pos, scan) */
	size_t nul;  /* where the first NUL byte read is, else LINES_NONE */
	int eof;
};

/* Start reading a new log. */
void lines_reset(struct lines *r);
/* lines_next when the next line is not whole in the buffer. */
char *lines_fill(struct lines *r, struct input *in);

/* The next line of in, '\n' (and a '\r' before it) removed; NULL at the end.
 * A NUL byte in a line is an error naming file:line. Inline: grep-iters
 * asks it for every line. */
static inline char *lines_next(struct lines *r, struct input *in)
{
	char *start = r->buf + r->pos, *nl = memchr(start, '\n', r->len - r->pos);

	if (!nl || (size_t)(nl - r->buf) > r->nul)
		return lines_fill(r, in);
	in->lineno++;
	*nl = '\0';
	r->pos = (size_t)(nl - r->buf) + 1;
	if (nl > start && nl[-1] == '\r')
		nl[-1] = '\0';
	return start;
}

/* ---- launch's "# env", "# mem" and "# energy" lines (meta.c) ------------ */

struct metalines {
	char **v; /* the lines as read */
	size_t n, cap;
	struct metaline m; /* the line parsed */
	char *out;         /* the line written */
	size_t outcap;
};
/* Keep s when it is an env or mem line (1), after checking its shape
 * (dies naming in's file and line); 0 when it is neither. */
int meta_keep(struct metalines *ml, const struct input *in, const char *s);
/* Kept line i as grep-iters writes it, with the run's framework, key and
 * run; *len its length. */
const char *meta_line(struct metalines *ml, size_t i, const struct input *in, const char *fw,
		      const char *key, long run, size_t *len);
void meta_free(struct metalines *ml);

/* ---- what NCCL chose (nccl.c) ------------------------------------------- */

#define NCCL_VALUES 16 /* distinct values of an item kept */

struct ncclset {
	char *v[NCCL_VALUES];
	int n, more; /* more: some were not kept */
};
/* What a log's lines said: start it {0}, end it with nccl_free. */
struct nccl {
	struct ncclset version, net, ib_devs, socket_devs, transports, ibverbs;
	int ib_using, socket_using; /* a "NET/IB : Using", "NET/Socket : Using" line */
	char *value, *out;
	size_t valcap, outcap;
};
/* Read a line that is not an iteration line. */
void nccl_line(struct nccl *nc, const char *s);
/* Item i (0, 1, … while there is one; NULL after the last) as grep-iters
 * writes it: "# env framework=<fw> key=<key> run=<run> node=0 <name>=<value>";
 * *len its length. */
const char *nccl_out(struct nccl *nc, int i, const char *fw, const char *key, long run,
		     size_t *len);
void nccl_free(struct nccl *nc);

/* ---- several ranks in one log (ranks.c) --------------------------------- */

struct ranks;
/* Keep a line (lineno) of a grouped log (*rk is made on the first). */
void ranks_keep(struct ranks **rk, const struct it *it, long lineno);
/* Write the kept lines as one record per iteration through emit, sorted by
 * iteration, and free them; name (the log's) for errors, tb the total batch. */
void ranks_flush(struct ranks **rk, const struct format *f, const char *name, double tb,
		 void (*emit)(void *ctx, long long iter, struct txt ts, struct txt step,
			      struct txt rate, struct txt loss),
		 void *ctx);

#endif
