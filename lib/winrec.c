/*
 * winrec.c — the run record that window writes and median and compare read
 * (framework, key, run, samples_per_s, then in our mode jitter_pct,
 * drift_pct, steady): one reader that validates it, with errors naming file
 * and line.
 */
#include "lib.h"

#include <math.h>
#include <string.h>

void winrec_parse(struct input *in, struct winrec *w)
{
	if (in->nf != WINREC_NF && in->nf != WINREC_STEADY_NF)
		record_die(in, "%d field%s, expected %d or %d", in->nf, in->nf == 1 ? "" : "s",
			   WINREC_NF, WINREC_STEADY_NF);
	if (in->f[0][0] == '\0')
		record_die(in, "empty framework");
	if (key_parse(in->f[1], &w->key) != 0)
		record_die(in, "key '%s' is not <N>n<G>g_b<B>_<prec>", in->f[1]);
	if (parse_long(in->f[2], 0, 1000000000, &w->run) != 0)
		record_die(in, "run '%s' is not a non-negative integer", in->f[2]);
	w->speed = record_num(in, 3, "samples_per_s", 1);
	if (!isfinite(r2n(w->speed)))
		record_die(in, "samples_per_s '%s' overflows when rounded", in->f[3]);
	if (!(r2n(w->speed) > 0))
		record_die(in, "samples_per_s '%s' rounds to 0.00", in->f[3]);
	w->drift = 0;
	if (in->nf == WINREC_NF)
		return;
	if (record_opt_num(in, 4, "jitter_pct", 0) < 0)
		record_die(in, "jitter_pct '%s' is negative", in->f[4]);
	record_opt_num(in, 5, "drift_pct", 0);
	if (strcmp(in->f[6], "steady") == 0)
		w->drift = 0;
	else if (strcmp(in->f[6], "drift") == 0)
		w->drift = 1;
	else if (strcmp(in->f[6], "-") != 0)
		record_die(in, "steady '%s' is not steady, drift or -", in->f[6]);
}
