/*
 * registry.c — the log formats as grep-iters tries them (FORMATS,
 * formats.h), and the names and column order of the frameworks in tables.
 */
#include "formats.h"

#include <string.h>

#define DECLARE(f) extern const struct format f##_format;
#define ENTRY(f)   &f##_format,
FORMATS(DECLARE)
const struct format *const formats[] = {FORMATS(ENTRY) NULL};

/* Frameworks that are no format of their own (their logs are in one). */
static const struct {
	const char *framework, *display;
	int rank;
} others[] = {
	{"pytorch-synthetic", "PyTorch (synthetic)", 32},
};

const struct format *format_find(const char *name)
{
	for (const struct format *const *f = formats; *f; f++)
		if (strcmp((*f)->name, name) == 0)
			return *f;
	return NULL;
}

const struct format *format_detect(const char *s, const char **at)
{
	for (const struct format *const *f = formats; *f; f++)
		if ((*at = format_match(*f, s)) != NULL)
			return *f;
	return NULL;
}

const char *framework_display(const char *framework)
{
	const struct format *f = format_find(framework);

	if (f)
		return f->display;
	for (size_t i = 0; i < sizeof others / sizeof *others; i++)
		if (strcmp(others[i].framework, framework) == 0)
			return others[i].display;
	return framework;
}

int framework_rank(const char *framework)
{
	const struct format *f = format_find(framework);

	if (f)
		return f->rank;
	for (size_t i = 0; i < sizeof others / sizeof *others; i++)
		if (strcmp(others[i].framework, framework) == 0)
			return others[i].rank;
	return 100;
}
