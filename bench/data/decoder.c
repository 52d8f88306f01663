/*
 * bench/data/decoder.c: a decoding thread's scratch (data.h's decoder),
 * freed: the same whether decode.c fills it or, in a bench built without
 * libjpeg, decode_none.c refuses every image. Reads and writes the
 * decoder.
 */
#include <stdlib.h>

#include "data.h"

void decoder_free(decoder *d)
{
	free(d->file);
	free(d->pix);
	free(d->tmp);
	axis_free(&d->ax);
	axis_free(&d->ay);
	*d = (decoder){0};
}
