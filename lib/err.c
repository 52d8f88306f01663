/*
 * err.c — one error family for every program: "prog: message" on stderr,
 * strerror appended when the format ends in ':', exit 1 for a failure and
 * 2 for a bad command line, and a hook run just before any of those exits.
 * A message is one line: a control byte in it (a value quoted from bad
 * input, a decoded %0A) is written as '?'.
 */
#include "lib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *progname = "dlbench";
const char *usage_text = "";

static void (*exit_hook)(int status);

void set_exit_hook(void (*hook)(int status))
{
	exit_hook = hook;
}

static LIB_NORETURN void leave(int status)
{
	if (exit_hook)
		exit_hook(status);
	exit(status);
}

/* The whole line is built first and written at once, so that lines of
 * several processes sharing a stderr (MPI ranks) do not interleave. */
static void vwarn(const char *where, long line, const char *fmt, va_list ap)
{
	int saved = errno;
	size_t len = strlen(fmt);
	char *msg = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&msg, &size);

	if (!m) {
		fprintf(stderr, "%s: ", progname);
		if (where)
			fprintf(stderr, "%s:%ld: ", where, line);
		vfprintf(stderr, fmt, ap);
		if (len > 0 && fmt[len - 1] == ':')
			fprintf(stderr, " %s", strerror(saved));
		fputc('\n', stderr);
		return;
	}
	fprintf(m, "%s: ", progname);
	if (where)
		fprintf(m, "%s:%ld: ", where, line);
	vfprintf(m, fmt, ap);
	if (len > 0 && fmt[len - 1] == ':')
		fprintf(m, " %s", strerror(saved));
	fputc('\n', m);
	if (fclose(m) == 0) {
		for (size_t i = 0; i + 1 < size; i++)
			if ((unsigned char)msg[i] < ' ' ? msg[i] != '\t' : msg[i] == 0x7f)
				msg[i] = '?';
		fputs(msg, stderr);
	} else {
		fprintf(stderr, "%s: out of memory\n", progname);
	}
	free(msg);
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(NULL, 0, fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(NULL, 0, fmt, ap);
	va_end(ap);
	leave(1);
}

void die_at(const char *file, long line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie_at(file, line, fmt, ap);
}

void vdie_at(const char *file, long line, const char *fmt, va_list ap)
{
	vwarn(file, line, fmt, ap);
	leave(1);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(NULL, 0, fmt, ap);
	va_end(ap);
	leave(2);
}

void usage(void)
{
	fprintf(stderr, "usage: %s\n", usage_text);
	leave(2);
}

void finish_output(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		die("<stdout>: write error:");
}
