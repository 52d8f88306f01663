/*
 * bench/mpi_load.c: mpi_load (mpi_load.h) and comm_mpi_library (comm.h).
 * Reads the launcher's variables (for the message) and the MPI library
 * through the dynamic loader; writes mpi_lib.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "dl.h"
#include "lib.h"
#include "mpi_load.h"

struct mpi_lib mpi_lib;

/* The variables by which comm_init knows a launcher started it. */
static const char *launcher_var(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK",
					   "PMIX_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (getenv(vars[i]))
			return vars[i];
	return "an MPI launcher's variable";
}

#ifdef BENCH_NO_MPI
void mpi_load(void)
{
	die("started by an MPI launcher (%s is set), but this %s was built without MPI "
	    "(make MPI=0): run it alone, as one process",
	    launcher_var(), progname);
}

int comm_mpi_library(char *buf, int len)
{
	(void)buf;
	(void)len;
	return -1;
}
#else
void mpi_load(void)
{
	static const struct dl_sym syms[] = {
#define MPI_LOAD_SYM(ret, name, params) {"MPI_" #name, (void **)&mpi_lib.name},
		MPI_LOAD_FUNCS(MPI_LOAD_SYM)
#undef MPI_LOAD_SYM
#ifdef OPEN_MPI
#define MPI_LOAD_SYM(name) {#name, &mpi_lib.name},
			MPI_LOAD_OMPI_OBJECTS(MPI_LOAD_SYM)
#undef MPI_LOAD_SYM
#endif
	};
	static int loaded;
	char why[1024];

	if (loaded)
		return;
	if (dl_load(MPI_LOAD_SONAME, 1, syms, sizeof syms / sizeof syms[0], why, sizeof why) != 0)
		die("started by an MPI launcher (%s is set), but MPI cannot be loaded: %s",
		    launcher_var(), why);
	loaded = 1;
}

int comm_mpi_library(char *buf, int len)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING + 1];
	int n = 0;

	if (!mpi_lib.Get_library_version || len <= 0 || MPI_Get_library_version(v, &n) != 0 ||
	    n <= 0 || n > MPI_MAX_LIBRARY_VERSION_STRING)
		return -1;
	v[n] = '\0';
	snprintf(buf, (size_t)len, "%.*s", (int)strcspn(v, ",\n"), v);
	return 0;
}
#endif
