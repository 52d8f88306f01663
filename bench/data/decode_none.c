/*
 * bench/data/decode_none.c: decode.c's decode_sample in a bench built without
 * libjpeg-turbo's headers (make JPEG=0, or jpeglib.h not found): every image
 * is refused, naming the file. loader_open refuses --data before the first
 * (jpeg_load says why), so bench --data ends with one line. Reads and writes
 * nothing.
 */
#include <stdio.h>

#include "data.h"

long decode_sample(decoder *d, const char *path, srng *r, const sample_opts *o, float *out,
		   int box[5])
{
	char why[DATA_ERR_MAX / 2]; /* room for the path before it */
	(void)r, (void)o, (void)out, (void)box;
	jpeg_load(why, sizeof why);
	snprintf(d->err, sizeof d->err, "%s: %s", path, why);
	return -1;
}
