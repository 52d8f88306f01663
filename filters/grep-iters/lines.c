/*
 * lines.c — grep-iters' line reader: a log's lines (struct lines), split in
 * place in a buffer filled from the log's stream in large blocks; a line
 * may be of any length. The common case, a line already in the buffer, is
 * lines_next in grep-iters.h; this is the rest.
 */
#include "grep-iters.h"

#include <stdio.h>
#include <string.h>

/* Lines are read in large blocks and split in place, one memchr a line:
 * with lib's input_line (getline) a 300 MB bench log took 1.4 times the
 * CPU time. A line longer than a block is searched for its newline only in
 * the bytes each block adds (scan), so reading it stays linear. A NUL byte
 * is looked for once a block and is an error on its line. */
/* The fuzz targets set a small chunk (tests/fuzz/fuzz.mk): a chunk's end
 * then falls inside the short inputs they try. */
#ifndef LINES_CHUNK
#define LINES_CHUNK (1 << 20)
#endif
#define CHUNK LINES_CHUNK

void lines_reset(struct lines *r)
{
	if (!r->buf)
		r->buf = xmalloc(r->cap = CHUNK + 1);
	r->len = r->pos = r->scan = 0;
	r->nul = LINES_NONE;
	r->eof = 0;
	r->buf[0] = '\0';
}

char *lines_fill(struct lines *r, struct input *in)
{
	for (r->scan = r->pos;;) {
		char *start = r->buf + r->pos,
		     *nl = memchr(r->buf + r->scan, '\n', r->len - r->scan);
		if (!nl && r->eof) {
			if (r->pos == r->len)
				return NULL;
			nl = r->buf + r->len; /* the last line has no newline */
		}
		if (nl) {
			size_t end = (size_t)(nl - r->buf);
			in->lineno++;
			if (r->nul < end)
				record_die(in, "NUL byte in the line (column %zu)",
					   r->nul - r->pos + 1);
			*nl = '\0';
			r->pos = end + (end < r->len);
			if (nl > start && nl[-1] == '\r')
				nl[-1] = '\0';
			return start;
		}
		if (r->pos > 0) {
			memmove(r->buf, start, r->len - r->pos);
			r->len -= r->pos;
			if (r->nul != LINES_NONE)
				r->nul -= r->pos;
			r->pos = 0;
		}
		r->scan = r->len;
		r->buf = xgrow(r->buf, &r->cap, r->len + CHUNK + 1, 1);
		size_t n = fread(r->buf + r->len, 1, CHUNK, in->fp);
		if (n == 0 && ferror(in->fp))
			die("%s: read error:", in->name);
		const char *z = r->nul == LINES_NONE ? memchr(r->buf + r->len, '\0', n) : NULL;
		if (z)
			r->nul = (size_t)(z - r->buf);
		r->eof = n == 0;
		r->len += n;
		r->buf[r->len] = '\0';
	}
}
