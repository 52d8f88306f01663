/*
 * formats.c — the table of log formats and framework names (formats.h).
 * Defaults are the spec's "ours" column (§2.12).
 */
#include "formats.h"

#include <string.h>

const struct format formats[] = {
	/* name                 framework              display                interval skip count method */
	{"bench",               "bench",               "bench",               0, 20, 100, METHOD_TIME},
	{"oneflow",             "oneflow",             "OneFlow",             1, 20, 100, METHOD_TIME},
	{"oneflow-bert",        "oneflow-bert",        "OneFlow BERT",        1, 20, 100, METHOD_TIME},
	{"oneflow-insightface", "oneflow-insightface", "OneFlow InsightFace", 0, 20, 100, METHOD_RATE},
	{"ngc-pytorch",         "ngc-pytorch",         "NGC PyTorch",         0, 20, 100, METHOD_TIME},
	{"ngc-tensorflow",      "ngc-tensorflow",      "NGC TensorFlow 1.x",  0, 21, 99,  METHOD_TIME},
	{"tensorflow",          "tensorflow",          "TensorFlow 2.x",      1, 100, 500, METHOD_TIME},
	{"paddle",              "paddle",              "PaddlePaddle",        0, 20, 100, METHOD_TIME},
	{"plsc",                "plsc",                "PaddlePaddle PLSC",   1, 41, 100, METHOD_TIME},
	{"ngc-mxnet",           "ngc-mxnet",           "NGC MXNet",           0, 20, 100, METHOD_TIME},
	{"mxnet",               "mxnet",               "MXNet",               0, 20, 100, METHOD_TIME},
	{"mindspore",           "mindspore",           "MindSpore",           1, 100, 100, METHOD_TIME},
	{"pytorch",             "pytorch",             "PyTorch",             0, 20, 100, METHOD_TIME},
	{NULL, NULL, NULL, 0, 0, 0, METHOD_TIME},
};

const struct format *format_find(const char *name)
{
	for (const struct format *f = formats; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* Seed order of the cross-framework table (spec §4.4): OneFlow, TensorFlow,
 * PyTorch, MxNet, Paddle; the rest after them. */
static const struct {
	const char *framework, *display;
	int rank;
} names[] = {
	{"oneflow", "OneFlow", 10},
	{"oneflow-bert", "OneFlow BERT", 11},
	{"oneflow-insightface", "OneFlow InsightFace", 12},
	{"ngc-tensorflow", "NGC TensorFlow 1.x", 20},
	{"tensorflow", "TensorFlow 2.x", 21},
	{"ngc-pytorch", "NGC PyTorch", 30},
	{"pytorch", "PyTorch", 31},
	{"pytorch-synthetic", "PyTorch (synthetic)", 32},
	{"ngc-mxnet", "NGC MXNet", 40},
	{"mxnet", "MXNet", 41},
	{"paddle", "PaddlePaddle", 50},
	{"plsc", "PaddlePaddle PLSC", 51},
	{"mindspore", "MindSpore", 60},
	{"bench", "bench", 70},
};

const char *framework_display(const char *framework)
{
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(names[i].framework, framework) == 0)
			return names[i].display;
	return framework;
}

int framework_rank(const char *framework)
{
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(names[i].framework, framework) == 0)
			return names[i].rank;
	return 100;
}
