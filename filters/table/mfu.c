/*
 * mfu.c — table's model FLOP utilisation column: MFU % = samples/s ×
 * FLOP a training sample ÷ (devices × the device's dense peak at the
 * run's precision) × 100, where both are known; never guessed.
 *
 * Reads the configuration's env items (env.c): flop_per_sample, the
 * trainer's own count in its log (bench and pipelines/pytorch_synthetic.py
 * write it), else model= and image= where a pipeline names them and the
 * figure of that model is known (models[] below: per model, the same for
 * every framework); gpu0.name (launch's nvidia-smi) says the run had a
 * GPU, its absence that it ran on CPUs. The peak: -P (PEAK_TFLOPS, one
 * device's), else for a GPU its datasheet's dense figure (gpus[] below;
 * doc/performance.md gives each one's source), else for a run on CPUs this
 * CPU's measured roof, -r (ROOF: bin/perf-roof's output; a device is then
 * a node's CPUs, as the roof is measured on all of them). Writes the
 * cells, the footer (how each figure was made, and why a row has none)
 * and the JSON's keys.
 */
#include "table.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* FLOP of one training sample of a model at an image size: 3 x the
 * forward pass (the forward, the backward to the inputs, the backward to
 * the weights, each as many multiply-adds as the forward), a multiply-add
 * counting 2. ResNet50 v1.5, 224 px, 1000 classes: 8,178,368,512 forward
 * (convolutions and the fully connected layer: bench --describe and
 * torchvision's resnet50 count alike). */
static const struct model_flop {
	const char *model;
	long image;
	double flop;
} models[] = {
	{"resnet50", 224, 3 * 8178368512.0},
};

/* Dense peaks of one GPU, TFLOP/s, from NVIDIA's datasheets (the figures
 * "with sparsity" halved): FP32 without tensor cores, and the tensor
 * cores' TF32, FP16 and BF16; 0 where it has none. name: words of
 * nvidia-smi's name, upper-cased, tried in this order (the more specific
 * first). */
static const struct gpu_peak {
	const char *name;
	double fp32, tf32, fp16, bf16;
} gpus[] = {
	{"H200 NVL", 60, 417.5, 835.5, 835.5},
	{"H200", 67, 494.5, 989.5, 989.5},
	{"H100 NVL", 60, 417.5, 835.5, 835.5},
	{"H100 PCIE", 51, 378, 756.5, 756.5},
	{"H100", 67, 494.5, 989.5, 989.5}, /* SXM5: "NVIDIA H100 80GB HBM3" */
	{"A100", 19.5, 156, 312, 312},     /* SXM4 and PCIe, 40 and 80 GB */
	{"A40", 37.4, 74.8, 149.7, 149.7},
	{"A30", 10.3, 82, 165, 165},
	{"A10", 31.2, 62.5, 125, 125},
	{"L40S", 91.6, 183, 362.05, 362.05},
	{"L40", 90.5, 90.5, 181.05, 181.05},
	{"L4", 30.3, 60, 121, 121},
	{"V100S", 16.4, 0, 130, 0},
	{"V100-PCIE", 14, 0, 112, 0},
	{"V100", 15.7, 0, 125, 0}, /* SXM2 */
	{"T4", 8.1, 0, 65, 0},
};

/* Does upper-cased name hold word (between the start, a blank or '-', and
 * the end, a blank or '-')? */
static int has_word(const char *name, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = name; (p = strstr(p, word)) != NULL; p++)
		if ((p == name || p[-1] == ' ' || p[-1] == '-') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '-'))
			return 1;
	return 0;
}

static const struct gpu_peak *gpu_find(const char *name)
{
	char up[256];
	size_t i;

	for (i = 0; name[i] && i < sizeof up - 1; i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = '\0';
	for (size_t k = 0; k < sizeof gpus / sizeof *gpus; k++)
		if (has_word(up, gpus[k].name))
			return &gpus[k];
	return NULL;
}

static double gpu_tflops(const struct gpu_peak *g, const char *prec)
{
	return !strcmp(prec, "fp32")   ? g->fp32
	       : !strcmp(prec, "tf32") ? g->tf32
	       : !strcmp(prec, "bf16") ? g->bf16
				       : g->fp16; /* amp, fp16 */
}

void mfu_roof_read(struct mfu *mf, const char *path)
{
	struct input in;

	mf->roof_file = path;
	mf->roof_fp32 = mf->roof_bf16 = NAN;
	input_open(&in, path);
	while (input_line(&in)) {
		char prec[8], rate[32], unit[16];
		double v;
		if (sscanf(in.line, "roof %7s %31s %15s", prec, rate, unit) < 2 ||
		    (strcmp(prec, "fp32") && strcmp(prec, "bf16")))
			record_die(&in,
				   "not bin/perf-roof's 'roof fp32|bf16 <GFLOP/s> GFLOP/s ...'");
		if (!strcmp(rate, "-"))
			continue;
		if (parse_double(rate, &v) != 0 || !(v > 0) || strcmp(unit, "GFLOP/s"))
			record_die(&in, "roof '%s %s' is not a positive GFLOP/s", rate, unit);
		*(strcmp(prec, "fp32") ? &mf->roof_bf16 : &mf->roof_fp32) = v;
	}
	input_close(&in);
}

/* The FLOP a sample of the configuration and where the figure comes from
 * (into src); NAN and why when unknown. *said: its logs say something of
 * it (a count or a model). */
static double flop_of(struct env *env, const struct medrec *r, char *src, size_t size, int *said)
{
	const char *f = env_value(env, r->framework, r->keytext, "flop_per_sample");
	const char *model = env_value(env, r->framework, r->keytext, "model");
	const char *image = env_value(env, r->framework, r->keytext, "image");
	long v;

	*said = f || model;
	if (f) {
		if (parse_long(f, 1, 1L << 60, &v) != 0) {
			snprintf(src, size, "its log's flop_per_sample '%s' is not a whole number",
				 f);
			return NAN;
		}
		snprintf(src, size,
			 "%.3f GFLOP a sample (the trainer's own count, its log's "
			 "flop_per_sample)",
			 (double)v / 1e9);
		return (double)v;
	}
	for (size_t k = 0; model && image && k < sizeof models / sizeof *models; k++)
		if (!strcmp(model, models[k].model) && parse_long(image, 1, 1L << 20, &v) == 0 &&
		    v == models[k].image) {
			snprintf(
				src, size,
				"%.3f GFLOP a sample (%s at %ld px: 3 × its forward pass, 2 FLOP a "
				"multiply-add)",
				models[k].flop / 1e9, model, v);
			return models[k].flop;
		}
	if (model)
		snprintf(src, size,
			 "no FLOP count of %s at %s px (a log's flop_per_sample gives one)", model,
			 image ? image : "?");
	else
		snprintf(src, size,
			 "its logs give no FLOP count (flop_per_sample, or model= and "
			 "image=)");
	return NAN;
}

/* One device's peak in FLOP/s for the configuration, how many devices
 * it ran on, and the source (into src); NAN and why when unknown. */
static double peak_of(const struct mfu *mf, struct env *env, const struct medrec *r, long *devices,
		      char *src, size_t size)
{
	const char *gpu = env_value(env, r->framework, r->keytext, "gpu0.name");
	const char *prec = r->key.prec;
	int cpu = gpu == NULL;

	*devices = cpu ? r->key.nodes : r->key.nodes * r->key.gpus;
	if (!isnan(mf->peak_tflops)) {
		snprintf(src, size, "%g TFLOP/s a %s (PEAK_TFLOPS)", mf->peak_tflops,
			 cpu ? "node's CPUs" : "device");
		return mf->peak_tflops * 1e12;
	}
	if (cpu) {
		int half = strcmp(prec, "fp32") && strcmp(prec, "tf32");
		double roof = half ? mf->roof_bf16 : mf->roof_fp32;
		if (!mf->roof_file) {
			snprintf(
				src, size,
				"no peak of its CPUs: ROOF= bin/perf-roof's output, or PEAK_TFLOPS=");
			return NAN;
		}
		if (isnan(roof)) {
			snprintf(src, size, "%s has no %s roof", mf->roof_file,
				 half ? "bf16" : "fp32");
			return NAN;
		}
		snprintf(src, size, "%.1f GFLOP/s a node, its CPUs' measured %s roof (%s)", roof,
			 half ? "bf16" : "fp32", mf->roof_file);
		return roof * 1e9;
	}
	const struct gpu_peak *g = gpu_find(gpu);
	if (!g) {
		snprintf(src, size, "no peak known for %s (PEAK_TFLOPS= gives one)", gpu);
		return NAN;
	}
	double t = gpu_tflops(g, prec);
	if (!(t > 0)) {
		snprintf(src, size, "%s has no %s tensor core (PEAK_TFLOPS= gives a peak)", gpu,
			 prec);
		return NAN;
	}
	snprintf(src, size, "%g TFLOP/s a GPU, the dense %s peak of the %s's datasheet (%s)", t,
		 !strcmp(prec, "amp") ? "fp16" : prec, g->name, gpu);
	return t * 1e12;
}

double mfu_pct(const struct mfu *mf, struct env *env, const struct medrec *r, char *how,
	       size_t size, int *said)
{
	char fsrc[256], psrc[256];
	long devices;
	double flop = flop_of(env, r, fsrc, sizeof fsrc, said);

	if (isnan(flop)) {
		snprintf(how, size, "%s", fsrc);
		return NAN;
	}
	double peak = peak_of(mf, env, r, &devices, psrc, sizeof psrc);
	if (isnan(peak)) {
		snprintf(how, size, "%s", psrc);
		return NAN;
	}
	double v = r->median * flop / ((double)devices * peak) * 100;
	if (!isfinite(v)) {
		snprintf(how, size, "samples/s × %s ÷ (devices × %s) overflows", fsrc, psrc);
		return NAN;
	}
	snprintf(how, size, "samples/s × %s ÷ (devices × %s)", fsrc, psrc);
	return v;
}

void mfu_prepare(struct mfu *mf, struct env *env, const struct medrec *const *rows, size_t n)
{
	char how[600];
	int said;

	mf->shown = 0;
	mf->said = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rows[i]->n)
			continue;
		double v = mfu_pct(mf, env, rows[i], how, sizeof how, &said);
		mf->shown |= !isnan(v);
		mf->said |= said;
	}
}

void mfu_cell(const struct mfu *mf, struct env *env, const struct medrec *r)
{
	char how[600];
	int said;

	if (!mf->shown)
		return;
	double v = r->n ? mfu_pct(mf, env, r, how, sizeof how, &said) : NAN;
	if (isnan(v))
		printf(" - |");
	else
		printf(" %.1f |", v);
}

void mfu_footer(const struct mfu *mf, struct env *env, const struct medrec *const *rows, size_t n)
{
	char how[600], **made, **why;
	int said;

	if (!mf->said)
		return;
	made = xcalloc(n ? n : 1, sizeof *made);
	why = xcalloc(n ? n : 1, sizeof *why);
	for (size_t i = 0; i < n; i++) {
		if (!rows[i]->n)
			continue;
		double v = mfu_pct(mf, env, rows[i], how, sizeof how, &said);
		if (!isnan(v))
			made[i] = xstrdup(how);
		else if (mf->shown || said)
			why[i] = xstrdup(how);
	}
	reasons_footer("MFU", 0, rows, made, n);
	reasons_footer("no MFU", 1, rows, why, n);
	for (size_t i = 0; i < n; i++) {
		free(made[i]);
		free(why[i]);
	}
	free(made);
	free(why);
}

void mfu_json(const struct mfu *mf, struct env *env, const struct medrec *r)
{
	char how[600], b[40];
	int said;

	if (!mf->shown && !mf->said)
		return;
	double v = r->n ? mfu_pct(mf, env, r, how, sizeof how, &said) : NAN;
	if (!r->n)
		snprintf(how, sizeof how, "no run has a figure");
	if (!isnan(v)) {
		fmt_shortest(b, sizeof b, v);
		printf(", \"mfu_percent\": %s", b);
		return;
	}
	printf(", \"mfu_percent\": null, \"mfu_reason\": ");
	json_string(how);
}
