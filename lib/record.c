/*
 * record.c — input line by line from named files or stdin, split at tabs
 * into records, with located errors ("prog: file:line: ...").
 */
#include "lib.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void input_open(struct input *in, const char *path)
{
	memset(in, 0, sizeof *in);
	if (strcmp(path, "-") == 0) {
		in->fp = stdin;
		in->name = "<stdin>";
	} else {
		in->fp = fopen(path, "r");
		in->name = path;
		if (!in->fp)
			die("%s:", path);
	}
}

void input_close(struct input *in)
{
	if (in->fp && in->fp != stdin)
		fclose(in->fp);
	free(in->line);
	in->fp = NULL;
	in->line = NULL;
}

int input_line(struct input *in)
{
	ssize_t n;

	errno = 0;
	n = getline(&in->line, &in->cap, in->fp);
	if (n < 0) {
		if (ferror(in->fp))
			die("%s: read error:", in->name);
		return 0;
	}
	in->lineno++;
	if (memchr(in->line, '\0', (size_t)n))
		record_die(in, "NUL byte in the line");
	if (n > 0 && in->line[n - 1] == '\n')
		in->line[--n] = '\0';
	if (n > 0 && in->line[n - 1] == '\r')
		in->line[--n] = '\0';
	return 1;
}

int input_record(struct input *in)
{
	if (!input_line(in))
		return 0;
	in->meta = in->line[0] == '#';
	in->nf = 0;
	char *p = in->line;
	if (in->meta) {
		in->f[in->nf++] = p;
		return 1;
	}
	for (;;) {
		if (in->nf == REC_MAXF)
			record_die(in, "more than %d fields", REC_MAXF);
		in->f[in->nf++] = p;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return 1;
}

void record_die(const struct input *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie_at(in->name, in->lineno, fmt, ap);
}

void record_expect(struct input *in, int n)
{
	if (in->nf != n)
		record_die(in, "%d field%s, expected %d", in->nf, in->nf == 1 ? "" : "s", n);
}

double record_num(struct input *in, int i, const char *what, int positive)
{
	double v;

	if (parse_double(in->f[i], &v) != 0)
		record_die(in, "%s '%s' is not a number", what, in->f[i]);
	if (positive && !(v > 0))
		record_die(in, "%s '%s' is not positive", what, in->f[i]);
	return v;
}

double record_opt_num(struct input *in, int i, const char *what, int positive)
{
	return strcmp(in->f[i], "-") == 0 ? NAN : record_num(in, i, what, positive);
}
