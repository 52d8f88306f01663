/*
 * bench/dl.h: a shared library bench uses only on some runs (MPI under a
 * launcher, libjpeg with --data), opened when needed instead of linked, so
 * that bench starts where it is not installed. One table of names and the
 * pointers they fill; mpi_load.c and data/jpeg_load.c hold the tables.
 */
#ifndef BENCH_DL_H
#define BENCH_DL_H

#include <stddef.h>

struct dl_sym {
	const char *name;
	void **slot; /* the pointer dlsym's result goes to */
};

/* Opens soname (RTLD_NOW; RTLD_GLOBAL when global: a library whose own
 * plugins need its symbols, as Open MPI's do) and fills every slot. 0, or
 * -1 with why set ("libmpi.so.40: cannot open shared object file: ...", or
 * the first name the library lacks); nothing is kept open then. */
int dl_load(const char *soname, int global, const struct dl_sym *syms, size_t n, char *why,
	    size_t whylen);

#endif
