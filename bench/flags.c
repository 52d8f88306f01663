/*
 * flags.c — bench's command line (flags.h): one table of flags, from which
 * both the parsing and the usage text come; --allreduce's own flags are
 * allreduce.c's.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "flags.h"
#include "lib.h"
#include "model.h"

/* ---- the flags ---- */

enum flag_kind {
	F_SWITCH, /* int field = 1 */
	F_INT,    /* int field, an integer in [lo, hi] */
	F_I64,    /* long long field, an integer in [lo, hi] */
	F_NUM,    /* double field, a number in [lo, hi] */
	F_STR,    /* const char * field, the value as given */
	F_CHOICE, /* int field = lo + the index of the value among the choices */
	F_MODE,   /* int field = 1, and the synopsis of its own flags (allreduce.h) */
};

struct flag {
	const char *name;
	int kind;
	size_t off;                 /* of the field in config */
	double lo, hi;              /* exact in a double: integers up to 2^53 */
	const char *arg;            /* the value in the usage, NULL: none */
	const char *const *choices; /* F_CHOICE: the words, NULL-terminated */
};

/* One line: clang-format would take the braces for a block. */
/* clang-format off */
#define FLAG(name, kind, field, lo, hi, arg) {name, kind, offsetof(config, field), lo, hi, arg, NULL}
#define CHOICE(name, field, lo, words) {name, F_CHOICE, offsetof(config, field), lo, 0, NULL, words}
/* clang-format on */

/* --layout's and --conv-algo's words, in their enums' order (backend.h);
 * --precision's are backend.h's bk_precision_names. */
static const char *const layouts[] = {"blocked", "nhwc", NULL};
static const char *const conv_algos[] = {"find", "direct", "winograd", NULL};
static const char *const classifiers[] = {"split", "whole", NULL};

static const struct flag flags[] = {
	FLAG("--describe", F_SWITCH, describe, 0, 0, NULL),
	FLAG("--batch", F_INT, batch, 1, 65536, "B"),
	CHOICE("--precision", precision, BK_FP32, bk_precision_names),
	FLAG("--image", F_INT, image, 32, 4096, "PX"),
	FLAG("--classes", F_INT, classes, 2, 1000000, "K"),
	CHOICE("--model", model, ARCH_RESNET50, model_arch_names),
	CHOICE("--head", head, HEAD_SOFTMAX, model_head_names),
	FLAG("--embedding", F_INT, embedding, 2, 65536, "E"),
	FLAG("--margin", F_NUM, margin, 0, 1.5, "M"),
	FLAG("--scale", F_NUM, scale, 1, 1024, "S"),
	CHOICE("--classifier", classifier, CLASSIFIER_SPLIT, classifiers),
	FLAG("--iters", F_INT, iters, 1, 100000000, "N"),
	FLAG("--warmup", F_INT, warmup, 0, 100000000, "W"),
	FLAG("--threads", F_INT, threads, 1, 4096, "T"),
	FLAG("--seed", F_I64, seed, 0, 9007199254740992.0, "S"),
	FLAG("--lr", F_NUM, lr, 0, 1e6, "X"),
	FLAG("--momentum", F_NUM, momentum, 0, 1, "X"),
	FLAG("--weight-decay", F_NUM, weight_decay, 0, 1, "X"),
	FLAG("--label-smoothing", F_NUM, label_smoothing, 0, 1, "X"),
	FLAG("--lr-warmup", F_INT, lr_warmup, 0, 100000000, "N"),
	FLAG("--shard", F_INT, shard, 0, 1000000, "R"),
	FLAG("--bucket-mb", F_NUM, bucket_mb, 0.001, 1e6, "X"),
	CHOICE("--layout", layout, BK_LAYOUT_BLOCKED, layouts),
	CHOICE("--conv-algo", conv_algo, BK_CONV_FIND, conv_algos),
	FLAG("--workspace-mb", F_NUM, workspace_mb, 1, 1e7, "MB"),
	FLAG("--verbose", F_SWITCH, verbose, 0, 0, NULL),
	FLAG("--rank-times", F_SWITCH, rank_times, 0, 0, NULL),
	FLAG("--profile", F_SWITCH, profile, 0, 0, NULL),
	FLAG("--roof", F_STR, roof, 0, 0, "FILE"),
	FLAG("--export", F_STR, export_dir, 0, 0, "DIR"),
	FLAG("--loss-scale", F_NUM, loss_scale, 1, 16777216, "N"),
	FLAG("--graph", F_SWITCH, graph, 0, 0, NULL),
	FLAG("--nccl-high-priority", F_SWITCH, nccl_high, 0, 0, NULL),
	FLAG("--nccl-timeout", F_NUM, nccl_timeout, 1, 86400, "S"),
	FLAG("--data", F_STR, data_dir, 0, 0, "DIR"),
	FLAG("--loader-threads", F_INT, loader_threads, 1, 4096, "T"),
	FLAG("--prefetch", F_INT, prefetch, 1, 64, "N"),
	FLAG("--data-only", F_SWITCH, data_only, 0, 0, NULL),
	FLAG("--allreduce", F_MODE, allreduce, 0, 0, NULL),
};
enum { NFLAGS = sizeof flags / sizeof flags[0], USAGE_WIDTH = 80 };

/* The synopsis, wrapped at USAGE_WIDTH columns after lib's "usage: ":
 * "bench [--describe] [--batch B] ..." for training, then the mode's
 * "bench --allreduce [--min-bytes N] ..." from allreduce.h's table. */
static struct {
	char text[2048];
	size_t len;
	int col;
} syn = {.col = 7};

static void syn_put(const char *s)
{
	for (; *s && syn.len + 1 < sizeof syn.text; s++) {
		syn.text[syn.len++] = *s;
		syn.col = *s == '\n' ? 0 : syn.col + 1;
	}
}

static void syn_word(const char *name, const char *arg)
{
	char w[64];
	snprintf(w, sizeof w, " [%s%s%s]", name, arg ? " " : "", arg ? arg : "");
	if (syn.col + (int)strlen(w) > USAGE_WIDTH)
		syn_put("\n            ");
	syn_put(w);
}

/* f's choices in buf, joined by sep, the last two by last: "fp32|tf32|amp|bf16",
 * "fp32, tf32, amp or bf16". */
static const char *choices_joined(const struct flag *f, const char *sep, const char *last,
				  char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = '\0';
	for (int i = 0; f->choices[i] && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s",
				      i == 0              ? ""
				      : f->choices[i + 1] ? sep
							  : last,
				      f->choices[i]);
	return buf;
}

void flags_usage(void)
{
	const struct flag *mode = NULL;
	char words[128];
	syn_put("bench");
	for (const struct flag *f = flags; f < flags + NFLAGS; f++) {
		if (f->kind == F_MODE)
			mode = f;
		else if (f->kind == F_CHOICE)
			syn_word(f->name, choices_joined(f, "|", "|", words, sizeof words));
		else
			syn_word(f->name, f->arg);
	}
	syn_put("\n       bench ");
	syn_put(mode->name);
	for (const struct allreduce_flag *f = allreduce_flags; f->name; f++)
		syn_word(f->name, f->arg);
	usage_text = syn.text;
}

/* The flag of that name, NULL if bench has none (allreduce's are apart). */
static const struct flag *flag_find(const char *name)
{
	for (const struct flag *f = flags; f < flags + NFLAGS; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

static int is_allreduce_flag(const char *name)
{
	for (const struct allreduce_flag *f = allreduce_flags; f->name; f++)
		if (!strcmp(f->name, name))
			return 1;
	return 0;
}

/* "'x' is not an integer", "'8' is out of range [32, 4096]" */
static long long int_value(const struct flag *f, const char *v)
{
	const char *d = v + (*v == '-');
	long n;
	if (*d == '\0' || d[strspn(d, "0123456789")] != '\0')
		die_usage("%s: '%s' is not an integer", f->name, v);
	if (parse_long(v, (long)f->lo, (long)f->hi, &n) != 0)
		die_usage("%s: '%s' is out of range [%.0f, %.0f]", f->name, v, f->lo, f->hi);
	return n;
}

/* The value's index among f's choices, plus f->lo; else "'fp16' is not
 * fp32, tf32, amp or bf16". */
static int choice_value(const struct flag *f, const char *v)
{
	for (int i = 0; f->choices[i]; i++)
		if (!strcmp(f->choices[i], v))
			return (int)f->lo + i;
	char list[128];
	die_usage("%s: '%s' is not %s", f->name, v,
		  choices_joined(f, ", ", " or ", list, sizeof list));
}

static void set(config *c, const struct flag *f, const char *v)
{
	void *field = (char *)c + f->off;
	double x;
	switch (f->kind) {
	case F_SWITCH:
	case F_MODE:
		*(int *)field = 1;
		break;
	case F_INT:
		*(int *)field = (int)int_value(f, v);
		break;
	case F_I64:
		*(long long *)field = int_value(f, v);
		break;
	case F_NUM:
		if (parse_double(v, &x) != 0)
			die_usage("%s: '%s' is not a number", f->name, v);
		if (x < f->lo || x > f->hi)
			die_usage("%s: '%s' is out of range [%g, %g]", f->name, v, f->lo, f->hi);
		*(double *)field = x;
		break;
	case F_STR:
		*(const char **)field = v;
		break;
	case F_CHOICE:
		*(int *)field = choice_value(f, v);
		break;
	}
}

/* The model's flags against each other, and the defaults that depend on
 * the model (the image: 112 px for iresnet50, whose fc takes 512 x 7 x 7). */
static void model_flags_check(config *c)
{
	int arcface = c->head == HEAD_ARCFACE;
	if (c->embedding && c->model != ARCH_IRESNET50)
		die_usage("--embedding: iresnet50's; resnet50's features are its 2048 pooled ones");
	if (!arcface && (c->margin >= 0 || c->scale >= 0 || c->classifier >= 0))
		die_usage("--margin, --scale, --classifier: only with --head arcface");
	if (arcface && c->label_smoothing > 0)
		die_usage("--label-smoothing: only with --head softmax");
	if ((arcface || c->model != ARCH_RESNET50) && c->graph)
		die_usage("--graph: resnet50 with the softmax head only");
	if (c->classifier < 0)
		c->classifier = CLASSIFIER_SPLIT;
	if (c->image == 0)
		c->image = c->model == ARCH_IRESNET50 ? 112 : 224;
}

void flags_parse(config *c, int argc, char **argv)
{
	*c = (config){.batch = 16,
		      .image = 0,   /* 224, or 112 for iresnet50 */
		      .classes = 0, /* 1000, or the tree's classes with --data */
		      .iters = 20,
		      .warmup = -1,
		      .seed = 1,
		      .lr = -1,
		      .momentum = 0.9,
		      .weight_decay = 1e-4,
		      .shard = -1,
		      .prefetch = 2,
		      .bucket_mb = 25.0,
		      .precision = BK_FP32,
		      .margin = -1,
		      .scale = -1,
		      .classifier = -1};
	allreduce_defaults(&c->ar);
	for (int i = 1; i < argc; i++) {
		const char *name = argv[i];
		if (!strcmp(name, "-h") || !strcmp(name, "--help"))
			usage();
		if (strncmp(name, "--", 2) != 0) {
			warnf("unexpected argument '%s'", name);
			usage();
		}
		const struct flag *f = flag_find(name);
		int ours = f != NULL;
		if (!ours && !is_allreduce_flag(name)) {
			warnf("unknown option '%s'", name);
			usage();
		}
		int valued = !ours || f->arg || f->choices;
		if (valued && i + 1 >= argc) {
			warnf("%s needs a value", name);
			usage();
		}
		if (ours)
			set(c, f, valued ? argv[++i] : NULL);
		else
			allreduce_flag(&c->ar, name, argv[++i]);
	}
	if (c->data_only && !c->data_dir)
		die_usage("--data-only: only with --data DIR");
	if (c->roof && !c->profile)
		die_usage("--roof: only with --profile");
	if (c->profile && c->graph)
		die_usage("--profile: not with --graph (a replayed graph has no marks)");
	if (c->data_dir && c->export_dir)
		die_usage("--export: only with synthetic data");
	if ((!c->data_dir || c->describe) && c->classes == 0)
		c->classes = 1000;
	model_flags_check(c);
	if (c->warmup >= c->iters)
		die_usage("--warmup: '%d' must be less than --iters (%d)", c->warmup, c->iters);
	/* bench --allreduce takes bench's --iters, and --warmup when given */
	c->ar.iters = c->iters;
	if (c->warmup >= 0)
		c->ar.warmup = c->warmup;
	else /* step 1 allocates, searches, connects: keep it out of the summary */
		c->warmup = c->iters > 1 ? 1 : 0;
}

/* ---- the log's setting lines ---- */

/* F_CHOICE's value as the word of its choices it was given as; below them
 * (the field's zero, not a choice): "default". */
static void choice_setting(const config *c, const char *name, const char *key, FILE *out)
{
	const struct flag *f = flag_find(name);
	int v = *(const int *)((const char *)c + f->off) - (int)f->lo, n = 0;
	while (f->choices[n])
		n++;
	fprintf(out, "# env node=0 setting.%s=%s\n", key,
		v < 0 || v >= n ? "default" : f->choices[v]);
}

void flags_settings(const config *c, FILE *out)
{
	fprintf(out, "# env node=0 setting.threads=%d\n", c->threads);
	choice_setting(c, "--layout", "layout", out);
	choice_setting(c, "--conv-algo", "conv_algo", out);
	if (c->workspace_mb > 0)
		fprintf(out, "# env node=0 setting.workspace_mb=%g\n", c->workspace_mb);
	const char *omp = getenv("OMP_NUM_THREADS");
	if (omp && *omp && !strpbrk(omp, " \t\n%="))
		fprintf(out, "# env node=0 setting.omp_num_threads=%s\n", omp);
}
