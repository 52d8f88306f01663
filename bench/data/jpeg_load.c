/*
 * bench/data/jpeg_load.c: jpeg_load (jpeg_load.h). Reads libjpeg through the
 * dynamic loader, once for all decoding threads; writes jpeg_lib.
 */
#include <pthread.h>
#include <stdio.h>

#include "data.h"
#include "dl.h"
#include "jpeg_load.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int status;
static char reason[512];

#ifdef BENCH_NO_JPEG
static void load(void)
{
	status = 1;
	snprintf(reason, sizeof reason, "this bench was built without libjpeg-turbo (make JPEG=0)");
}
#else
struct jpeg_lib jpeg_lib;

static void load(void)
{
	static const struct dl_sym syms[] = {
#define JPEG_LOAD_SYM(name) {"jpeg_" #name, (void **)&jpeg_lib.name},
		JPEG_LOAD_FUNCS(JPEG_LOAD_SYM)
#undef JPEG_LOAD_SYM
	};
	char why[sizeof reason - 64];
	if (dl_load(JPEG_LOAD_SONAME, 0, syms, sizeof syms / sizeof syms[0], why, sizeof why) !=
	    0) {
		status = -1;
		snprintf(reason, sizeof reason, "libjpeg-turbo cannot be loaded: %s", why);
	}
}
#endif

int jpeg_load(char *why, size_t n)
{
	pthread_once(&once, load);
	if (status)
		snprintf(why, n, "%s", reason);
	return status;
}
