/*
 * bench/cpu/prim.c: oneDNN's plumbing for the CPU backend, and the
 * backend's one state (internal.h's cpu) that bk_init fills: the engine and
 * the stream, memories over our buffers, primitive descriptors (with
 * --verbose, the implementation oneDNN picked; pd_try where oneDNN may have
 * none), primitives created once with their arguments bound once (and
 * prim_time, which times one run), and the one user-managed scratchpad that
 * every primitive shares (grown at plan time to the largest any needs).
 * Calls memory.c alone of the backend's files.
 */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct cpu_backend cpu = {.act_dt = dnnl_f32, .act_tag = dnnl_nChw16c, .act_block = 16};

void prim_init(void)
{
	DNNL_CHECK(dnnl_engine_create(&cpu.eng, dnnl_cpu, 0));
	DNNL_CHECK(dnnl_stream_create(&cpu.strm, cpu.eng, dnnl_stream_default_flags));
}

void prim_finalize(void)
{
	free(cpu.scratch);
	cpu.scratch = NULL;
	cpu.scratch_size = 0;
	DNNL_CHECK(dnnl_stream_destroy(cpu.strm));
	DNNL_CHECK(dnnl_engine_destroy(cpu.eng));
}

void prim_wait(void)
{
	DNNL_CHECK(dnnl_stream_wait(cpu.strm));
}

dnnl_memory_t mem_over(const dnnl_memory_desc_t *md, const void *p)
{
	dnnl_memory_t m;
	DNNL_CHECK(dnnl_memory_create(&m, md, cpu.eng, (void *)p));
	return m;
}

/* One-shot reorder between two memories (start-up, export). */
void reorder_now(const dnnl_memory_desc_t *smd, const void *s, const dnnl_memory_desc_t *dmd,
		 void *d)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t p;
	DNNL_CHECK(dnnl_reorder_primitive_desc_create(&pd, smd, cpu.eng, dmd, cpu.eng, NULL));
	DNNL_CHECK(dnnl_primitive_create(&p, pd));
	dnnl_memory_t sm = mem_over(smd, s), dm = mem_over(dmd, d);
	dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, sm}, {DNNL_ARG_TO, dm}};
	DNNL_CHECK(dnnl_primitive_execute(p, cpu.strm, 2, a));
	DNNL_CHECK(dnnl_stream_wait(cpu.strm));
	DNNL_CHECK(dnnl_memory_destroy(sm));
	DNNL_CHECK(dnnl_memory_destroy(dm));
	DNNL_CHECK(dnnl_primitive_destroy(p));
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
}

/* ---- primitives: created once, arguments bound once ---- */

dnnl_primitive_attr_t user_scratch_attr(void)
{
	dnnl_primitive_attr_t attr;
	DNNL_CHECK(dnnl_primitive_attr_create(&attr));
	DNNL_CHECK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
	return attr;
}

dnnl_primitive_desc_t pd_try(const void *desc, dnnl_primitive_attr_t attr,
			     const_dnnl_primitive_desc_t hint, const char *what)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_attr_t a = attr ? attr : user_scratch_attr();
	dnnl_status_t s = dnnl_primitive_desc_create(&pd, desc, a, cpu.eng, hint);
	if (!attr)
		DNNL_CHECK(dnnl_primitive_attr_destroy(a));
	if (s == dnnl_unimplemented)
		return NULL;
	DNNL_CHECK(s);
	if (cpu.verbose && what) {
		const char *impl = "?";
		DNNL_CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
		warnf("%s: %s", what, impl);
	}
	return pd;
}

dnnl_primitive_desc_t pd_create(const void *desc, dnnl_primitive_attr_t attr,
				const_dnnl_primitive_desc_t hint, const char *what)
{
	dnnl_primitive_desc_t pd = pd_try(desc, attr, hint, what);
	if (!pd)
		die("dnnl error at %s:%d: %s: %s", __FILE__, __LINE__, what ? what : "primitive",
		    dnnl_status2str(dnnl_unimplemented));
	return pd;
}

int is_ref(const_dnnl_primitive_desc_t pd)
{
	const char *impl = "";
	DNNL_CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
	return strncmp(impl, "ref", 3) == 0;
}

const dnnl_memory_desc_t *query_md(const_dnnl_primitive_desc_t pd, dnnl_query_t q)
{
	return dnnl_primitive_desc_query_md(pd, q, 0);
}

void prim_make(prim *p, const_dnnl_primitive_desc_t pd)
{
	memset(p, 0, sizeof *p);
	DNNL_CHECK(dnnl_primitive_create(&p->p, pd));
	const dnnl_memory_desc_t *smd = query_md(pd, dnnl_query_scratchpad_md);
	size_t sz = smd ? dnnl_memory_desc_get_size(smd) : 0;
	if (sz) {
		cpu.scratch = temp_grow(cpu.scratch, &cpu.scratch_size, sz);
		p->scratch = mem_over(smd, cpu.scratch);
		p->a[p->n++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, p->scratch};
	}
}

void prim_arg(prim *p, int arg, dnnl_memory_t m)
{
	if (p->n == MAX_ARGS) {
		die("%s:%d: too many primitive arguments", __FILE__, __LINE__);
	}
	p->a[p->n++] = (dnnl_exec_arg_t){arg, m};
}

/* Seconds of one run of primitive p on its n arguments a (the scratchpad
 * among them when it needs one), from the call until the stream is done. */
double prim_time(dnnl_primitive_t p, int n, const dnnl_exec_arg_t *a)
{
	double t = omp_get_wtime();
	DNNL_CHECK(dnnl_primitive_execute(p, cpu.strm, n, a));
	DNNL_CHECK(dnnl_stream_wait(cpu.strm));
	return omp_get_wtime() - t;
}

void prim_run(prim *p)
{
	if (p->scratch)
		DNNL_CHECK(dnnl_memory_set_data_handle(p->scratch, cpu.scratch));
	DNNL_CHECK(dnnl_primitive_execute(p->p, cpu.strm, p->n, p->a));
}

void prim_free(prim *p)
{
	if (p->p)
		DNNL_CHECK(dnnl_primitive_destroy(p->p));
	if (p->scratch)
		DNNL_CHECK(dnnl_memory_destroy(p->scratch));
	p->p = NULL;
	p->scratch = NULL;
}

/* A reorder primitive between two existing memories. */
void reorder_make(prim *p, dnnl_memory_t from, const dnnl_memory_desc_t *fmd, dnnl_memory_t to,
		  const dnnl_memory_desc_t *tmd)
{
	dnnl_primitive_desc_t pd;
	dnnl_primitive_attr_t attr = user_scratch_attr();
	DNNL_CHECK(dnnl_reorder_primitive_desc_create(&pd, fmd, cpu.eng, tmd, cpu.eng, attr));
	DNNL_CHECK(dnnl_primitive_attr_destroy(attr));
	prim_make(p, pd);
	prim_arg(p, DNNL_ARG_FROM, from);
	prim_arg(p, DNNL_ARG_TO, to);
	DNNL_CHECK(dnnl_primitive_desc_destroy(pd));
}

/* An owned buffer with its memory object. */

void buf_make(buf *b, const dnnl_memory_desc_t *md)
{
	b->md = *md;
	b->p = bk_malloc(dnnl_memory_desc_get_size(md));
	b->m = mem_over(md, b->p);
}

void buf_free(buf *b)
{
	if (b->m)
		DNNL_CHECK(dnnl_memory_destroy(b->m));
	bk_free(b->p);
	b->m = NULL;
	b->p = NULL;
}
