/*
 * bench/mpi_load.h: the MPI of bench's comm layers (cpu/comm_mpi.c,
 * cuda/comm_nccl.cu), loaded at run time. A process started alone never
 * calls MPI, so bench links no MPI library: mpi_load() opens it when a
 * launcher started the ranks, and a bench built where mpicc was not found
 * (make MPI=0) refuses a launcher with one line. Either way bench starts on
 * a machine without MPI.
 *
 * The call sites keep MPI's names and mpi.h's types and handles: each
 * function below is a macro for a pointer mpi_load() fills, its signature
 * checked against mpi.h's at compile time; each of Open MPI's predefined
 * handles (MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM, ...) is its object's address
 * looked up in the library (mpi.h makes them addresses of objects bench
 * would otherwise have to link).
 *
 * Another MPI function: one MPI_LOAD_FUNCS line with its return type, name
 * without "MPI_" and parameter types as mpi.h declares them, and one
 * #define at the end of this file. One used without them fails to link
 * (undefined reference to MPI_...); a signature that differs from mpi.h's
 * fails to compile. Another predefined handle: Open MPI's object behind it
 * (mpi.h's OMPI_PREDEFINED_GLOBAL line for it names it) in
 * MPI_LOAD_OMPI_OBJECTS, and its stand-in in the MPI=0 block.
 */
#ifndef BENCH_MPI_LOAD_H
#define BENCH_MPI_LOAD_H

#ifdef BENCH_NO_MPI
/* Built without mpi.h (make MPI=0): the types and handles bench names, so the
 * call sites compile unchanged. Nothing reaches them: mpi_load() refuses. */
typedef struct mpi_absent *MPI_Comm, *MPI_Datatype, *MPI_Op, *MPI_Request, *MPI_Info,
	*MPI_Errhandler;
typedef struct mpi_absent_status {
	int unused;
} MPI_Status;
enum { MPI_SUCCESS = 0, MPI_MAX_ERROR_STRING = 256, MPI_COMM_TYPE_SHARED = 0 };
#define MPI_ABSENT(type)    ((type)0)
#define MPI_COMM_WORLD      MPI_ABSENT(MPI_Comm)
#define MPI_BYTE            MPI_ABSENT(MPI_Datatype)
#define MPI_INT             MPI_ABSENT(MPI_Datatype)
#define MPI_FLOAT           MPI_ABSENT(MPI_Datatype)
#define MPI_DOUBLE          MPI_ABSENT(MPI_Datatype)
#define MPI_SUM             MPI_ABSENT(MPI_Op)
#define MPI_MAX             MPI_ABSENT(MPI_Op)
#define MPI_INFO_NULL       MPI_ABSENT(MPI_Info)
#define MPI_ERRORS_RETURN   MPI_ABSENT(MPI_Errhandler)
#define MPI_IN_PLACE        ((void *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_LOAD_SONAME     "(none: built with MPI=0)"
#else
/* the C API only: Open MPI's C++ bindings do not compile warning-free */
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#if defined(OPEN_MPI)
#define MPI_LOAD_SONAME "libmpi.so.40" /* Open MPI 3.0 to 5 */
#elif defined(MPICH)
#define MPI_LOAD_SONAME "libmpi.so.12" /* MPICH 3.1 on, and its ABI's family */
#else
#error "mpi_load.h: an MPI other than Open MPI or MPICH: give MPI_LOAD_SONAME its library's name"
#endif
#endif

/* Every MPI function bench calls. */
#define MPI_LOAD_FUNCS(X)                                                                         \
	X(int, Init, (int *, char ***))                                                           \
	X(int, Finalize, (void))                                                                  \
	X(int, Abort, (MPI_Comm, int))                                                            \
	X(int, Error_string, (int, char *, int *))                                                \
	X(int, Comm_set_errhandler, (MPI_Comm, MPI_Errhandler))                                   \
	X(int, Comm_rank, (MPI_Comm, int *))                                                      \
	X(int, Comm_size, (MPI_Comm, int *))                                                      \
	X(int, Comm_split_type, (MPI_Comm, int, int, MPI_Info, MPI_Comm *))                       \
	X(int, Comm_free, (MPI_Comm *))                                                           \
	X(int, Allreduce, (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm))            \
	X(int, Iallreduce,                                                                        \
	  (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *))             \
	X(int, Testall, (int, MPI_Request *, int *, MPI_Status *))                                \
	X(int, Waitall, (int, MPI_Request *, MPI_Status *))                                       \
	X(int, Gather,                                                                            \
	  (const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm))            \
	X(int, Gatherv,                                                                           \
	  (const void *, int, MPI_Datatype, void *, const int[], const int[], MPI_Datatype, int,  \
	   MPI_Comm))                                                                             \
	X(int, Allgather, (const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm)) \
	X(int, Reduce_scatter_block, (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm)) \
	X(int, Barrier, (MPI_Comm))                                                               \
	X(int, Bcast, (void *, int, MPI_Datatype, int, MPI_Comm))                                 \
	X(int, Get_library_version, (char *, int *))

/* Open MPI's objects behind the predefined handles bench names. */
#define MPI_LOAD_OMPI_OBJECTS(X) \
	X(ompi_mpi_comm_world)   \
	X(ompi_mpi_byte)         \
	X(ompi_mpi_int)          \
	X(ompi_mpi_float)        \
	X(ompi_mpi_double)       \
	X(ompi_mpi_op_sum)       \
	X(ompi_mpi_op_max)       \
	X(ompi_mpi_info_null)    \
	X(ompi_mpi_errors_return)

#ifdef __cplusplus
extern "C" {
#endif

struct mpi_lib {
#define MPI_LOAD_MEMBER(ret, name, params) ret(*name) params;
	MPI_LOAD_FUNCS(MPI_LOAD_MEMBER)
#undef MPI_LOAD_MEMBER
#if defined(OPEN_MPI) && !defined(BENCH_NO_MPI)
#define MPI_LOAD_OBJECT(name) void *name;
	MPI_LOAD_OMPI_OBJECTS(MPI_LOAD_OBJECT)
#undef MPI_LOAD_OBJECT
#endif
};
extern struct mpi_lib mpi_lib;

/* Opens MPI_LOAD_SONAME once and fills mpi_lib; called by comm_init when a
 * launcher's variable is set, before any MPI call. Dies with one line
 * naming that variable when this build has no MPI or the library cannot be
 * loaded. */
void mpi_load(void);

#ifdef __cplusplus
}
#endif

/* mpi.h's prototypes, before the names below hide them. */
#if !defined(BENCH_NO_MPI) && !defined(__cplusplus)
#define MPI_LOAD_CHECK(ret, name, params)                                                \
	_Static_assert(__builtin_types_compatible_p(__typeof__(MPI_##name), ret params), \
		       "MPI_" #name ": MPI_LOAD_FUNCS' signature is not mpi.h's");
MPI_LOAD_FUNCS(MPI_LOAD_CHECK)
#undef MPI_LOAD_CHECK
#endif

#if defined(OPEN_MPI) && !defined(BENCH_NO_MPI)
#undef OMPI_PREDEFINED_GLOBAL
#define OMPI_PREDEFINED_GLOBAL(type, global) ((type)mpi_lib.global)
#endif

#define MPI_Init                 (mpi_lib.Init)
#define MPI_Finalize             (mpi_lib.Finalize)
#define MPI_Abort                (mpi_lib.Abort)
#define MPI_Error_string         (mpi_lib.Error_string)
#define MPI_Comm_set_errhandler  (mpi_lib.Comm_set_errhandler)
#define MPI_Comm_rank            (mpi_lib.Comm_rank)
#define MPI_Comm_size            (mpi_lib.Comm_size)
#define MPI_Comm_split_type      (mpi_lib.Comm_split_type)
#define MPI_Comm_free            (mpi_lib.Comm_free)
#define MPI_Allreduce            (mpi_lib.Allreduce)
#define MPI_Iallreduce           (mpi_lib.Iallreduce)
#define MPI_Testall              (mpi_lib.Testall)
#define MPI_Waitall              (mpi_lib.Waitall)
#define MPI_Gather               (mpi_lib.Gather)
#define MPI_Gatherv              (mpi_lib.Gatherv)
#define MPI_Allgather            (mpi_lib.Allgather)
#define MPI_Reduce_scatter_block (mpi_lib.Reduce_scatter_block)
#define MPI_Barrier              (mpi_lib.Barrier)
#define MPI_Bcast                (mpi_lib.Bcast)
#define MPI_Get_library_version  (mpi_lib.Get_library_version)

#endif
