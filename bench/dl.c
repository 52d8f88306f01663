/*
 * bench/dl.c: dl_load (dl.h). Reads the dynamic loader's view of the
 * library; writes the pointers of the caller's table.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "dl.h"

int dl_load(const char *soname, int global, const struct dl_sym *syms, size_t n, char *why,
	    size_t whylen)
{
	void *h = dlopen(soname, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
	if (!h) {
		snprintf(why, whylen, "%s", dlerror());
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		(void)dlerror();
		void *p = dlsym(h, syms[i].name);
		if (!p) {
			const char *e = dlerror();
			snprintf(why, whylen, "%s: %s", soname, e ? e : "symbol is NULL");
			dlclose(h);
			return -1;
		}
		*syms[i].slot = p;
	}
	return 0;
}
