/*
 * bench/data/jpeg_load.h: libjpeg-turbo for decode.c, loaded at run time. Only
 * bench --data decodes JPEG, so bench links no libjpeg: jpeg_load() (data.h)
 * opens it the first time it is asked, and a bench built where jpeglib.h was not found
 * (make JPEG=0; decode_none.c instead of decode.c) refuses --data. Either
 * way bench starts on a machine without libjpeg.
 *
 * decode.c keeps libjpeg's names: each function below is a macro for a
 * pointer jpeg_load() fills, of the type jpeglib.h declares. Another
 * function: its name without "jpeg_" in JPEG_LOAD_FUNCS and one #define
 * below (one used without them fails to link: bench links no libjpeg).
 */
#ifndef BENCH_JPEG_LOAD_H
#define BENCH_JPEG_LOAD_H

#ifndef BENCH_NO_JPEG
#include <stdio.h> /* jpeglib.h needs FILE */

#include <jerror.h>
#include <jpeglib.h>

/* The soname of the ABI jpeglib.h describes (libjpeg-turbo builds 6b, 7 and 8). */
#if JPEG_LIB_VERSION == 62
#define JPEG_LOAD_SONAME "libjpeg.so.62"
#elif JPEG_LIB_VERSION == 70
#define JPEG_LOAD_SONAME "libjpeg.so.7"
#elif JPEG_LIB_VERSION == 80
#define JPEG_LOAD_SONAME "libjpeg.so.8"
#else
#error "jpeg_load.h: a jpeglib.h of an ABI other than 62, 70 or 80"
#endif

/* Every libjpeg function decode.c calls, without "jpeg_". */
#define JPEG_LOAD_FUNCS(X)  \
	X(std_error)        \
	X(CreateDecompress) \
	X(mem_src)          \
	X(read_header)      \
	X(start_decompress) \
	X(crop_scanline)    \
	X(skip_scanlines)   \
	X(read_scanlines)   \
	X(abort_decompress) \
	X(destroy_decompress)

struct jpeg_lib {
#define JPEG_LOAD_MEMBER(name) __typeof__(jpeg_##name) *name;
	JPEG_LOAD_FUNCS(JPEG_LOAD_MEMBER)
#undef JPEG_LOAD_MEMBER
};
extern struct jpeg_lib jpeg_lib;

#define jpeg_std_error          (jpeg_lib.std_error)
#define jpeg_CreateDecompress   (jpeg_lib.CreateDecompress)
#define jpeg_mem_src            (jpeg_lib.mem_src)
#define jpeg_read_header        (jpeg_lib.read_header)
#define jpeg_start_decompress   (jpeg_lib.start_decompress)
#define jpeg_crop_scanline      (jpeg_lib.crop_scanline)
#define jpeg_skip_scanlines     (jpeg_lib.skip_scanlines)
#define jpeg_read_scanlines     (jpeg_lib.read_scanlines)
#define jpeg_abort_decompress   (jpeg_lib.abort_decompress)
#define jpeg_destroy_decompress (jpeg_lib.destroy_decompress)
#endif

#endif
