/*
 * outcome — what became of a run that left no log.
 *
 * Reads what a failed run left, its partial log and its stderr (make keeps
 * both until this has read them), and writes one meta line (lib/meta.c,
 * doc/formats.md):
 *
 *   # outcome framework=<fw> key=<key> run=<r> status=oom|failed|timeout exit=<n> [reason=<text>]
 *
 * status is oom when a line says the run ran out of memory (the messages
 * of CUDA, cuDNN, cuBLAS, NCCL, each framework and bench: oom_messages
 * below), else timeout when the exit status is launch's 124, else failed.
 * reason is the last out-of-memory line (the exception's own message comes
 * after the lines that name its class), else launch's "timed out" line, else
 * the last line that tells an error (error, fail, abort, exception, fatal,
 * killed) and is not one of launch's own, else the
 * last launch line, else the last line that is not blank: blanks around
 * it dropped, at most REASON_MAX bytes (cut between characters). Meta
 * lines ('#': launch's header and environment, a pipeline's settings) are
 * not read. A line may hold any byte: a crash's output is read as it is.
 *
 * A run that launch says was interrupted ("launch: KEY: interrupted by
 * ...", "supervisor killed by ...", "launch was killed ...") has no
 * outcome: the job did not fail, it was stopped. Nothing is written and
 * the exit status is 3, so make keeps no outcome and runs it again.
 */
#include "filter.h"
#include "lib.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REASON_MAX 200

/* A line that holds text (and also when it is not NULL) says the run
 * ran out of memory. Only messages of a failure: TensorFlow's
 * CUDA_ERROR_OUT_OF_MEMORY and "ran out of memory trying to allocate"
 * are printed for allocations it retries or does without, so they are
 * not here. */
static const struct {
	const char *text, *also, *who;
} oom_messages[] = {
	{"CUDA out of memory", NULL, "PyTorch, OneFlow 0.9 and later"},
	{"HIP out of memory", NULL, "PyTorch on ROCm"},
	{"OutOfMemoryError", NULL, "PyTorch (torch.OutOfMemoryError)"},
	{"DefaultCPUAllocator: ", NULL, "PyTorch on the CPU"},
	{"CUDA error: out of memory", NULL, "CUDA's runtime, as PyTorch checks it"},
	{"cudaErrorMemoryAllocation", NULL, "CUDA's runtime (PaddlePaddle 2)"},
	{"cudaSuccess", "out of memory", "a glog CHECK of CUDA (OneFlow 0.x, PaddlePaddle 1.x)"},
	{"CUDNN_STATUS_ALLOC_FAILED", NULL, "cuDNN"},
	{"CUBLAS_STATUS_ALLOC_FAILED", NULL, "cuBLAS"},
	{"Cuda failure 'out of memory'", NULL, "NCCL"},
	{"ResourceExhaustedError", NULL, "TensorFlow, PaddlePaddle"},
	{"OOM when allocating", NULL, "TensorFlow"},
	{"Out of memory error on GPU", NULL, "PaddlePaddle"},
	{"cudaMalloc", "out of memory", "MXNet (cudaMalloc failed, cudaMalloc retry failed)"},
	{"out_of_memory_error", NULL, "OneFlow (ErrorProto)"},
	{"MemoryZoneOutOfMemory", NULL, "OneFlow"},
	{"memory isn't enough and alloc failed", NULL, "MindSpore"},
	{"out of device memory", NULL, "bench"},
	{"bench: out of memory", NULL, "bench's host allocations"},
	{"std::bad_alloc", NULL, "C++"},
	{"MemoryError", NULL, "Python"},
};

/* launch's lines that end a job which did not fail on its own. */
static const char *const interrupted[] = {": interrupted by ", ": supervisor killed by ",
					  ": launch was killed"};

/* Words of a line that tells an error (compared without case). */
static const char *const error_words[] = {"error", "fail", "abort", "exception", "fatal", "killed"};

/* One call's state (filter.h): the lines kept so far. */
struct outcome {
	char *oom;     /* the last out-of-memory line */
	char *timeout; /* launch's "timed out after" line */
	char *error;   /* the last line that tells an error, not launch's */
	char *launch;  /* the last line of launch's */
	char *last;    /* the last line that is not blank */
	int stopped;   /* launch says the job was interrupted */
	char *key;     /* "launch: <key>: ", launch's prefix for this run */
};

static void keep(char **slot, const char *s)
{
	free(*slot);
	*slot = xstrdup(s);
}

static int has_error_word(const char *s)
{
	for (; *s; s++)
		for (size_t w = 0; w < sizeof error_words / sizeof *error_words; w++)
			if (strncasecmp(s, error_words[w], strlen(error_words[w])) == 0)
				return 1;
	return 0;
}

static int is_oom(const char *s)
{
	for (size_t i = 0; i < sizeof oom_messages / sizeof *oom_messages; i++)
		if (strstr(s, oom_messages[i].text) &&
		    (!oom_messages[i].also || strstr(s, oom_messages[i].also)))
			return 1;
	return 0;
}

/* One line of the files (its text up to a NUL byte, if it holds one). */
static void line(struct outcome *st, char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	s += strspn(s, " \t");
	if (*s == '\0' || *s == '#')
		return;
	keep(&st->last, s);
	if (is_oom(s))
		keep(&st->oom, s);
	if (strncmp(s, st->key, strlen(st->key)) == 0) {
		const char *rest = s + strlen(st->key) - 2; /* ": ..." */
		for (size_t i = 0; i < sizeof interrupted / sizeof *interrupted; i++)
			if (strncmp(rest, interrupted[i], strlen(interrupted[i])) == 0)
				st->stopped = 1;
		if (strncmp(rest, ": timed out after ", 18) == 0)
			keep(&st->timeout, s);
		keep(&st->launch, s);
		return;
	}
	if (has_error_word(s))
		keep(&st->error, s);
}

static void read_file(struct outcome *st, const char *path)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!fp)
		die("%s:", path);
	while (getline(&buf, &cap, fp) >= 0)
		line(st, buf);
	if (ferror(fp))
		die("%s:", strcmp(path, "-") == 0 ? "<stdin>" : path);
	if (fp != stdin)
		fclose(fp);
	free(buf);
}

/* s cut to REASON_MAX bytes, not inside a UTF-8 sequence. */
static void cut(char *s)
{
	size_t n = strlen(s);

	if (n <= REASON_MAX)
		return;
	n = REASON_MAX;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	s[n] = '\0';
}

int filter_run(int argc, char **argv)
{
	struct outcome st = {0};
	struct metaline m = {0};
	const char *framework = NULL, *keytext = NULL;
	long run = -1, exit_status = 0;
	struct key key;
	char *out = NULL;
	size_t cap = 0;
	int ch;

	usage_text =
		"outcome -F framework -k key -r run -x exit [file ...]\n"
		"  in:  what a failed run left: its partial log, its stderr\n"
		"  out: # outcome framework=.. key=.. run=.. status=oom|failed|timeout exit=..\n"
		"       [reason=..]; nothing and exit 3 when launch says it was interrupted";
	opterr = 0;
	while ((ch = getopt(argc, argv, "F:k:r:x:")) != -1) {
		switch (ch) {
		case 'F':
			if (!*optarg)
				die_usage("-F: empty framework");
			framework = optarg;
			break;
		case 'k':
			if (key_parse(optarg, &key) != 0)
				die_usage("-k: '%s' is not <N>n<G>g_b<B>_<prec>", optarg);
			keytext = optarg;
			break;
		case 'r':
			run = (long)flag_int("-r", optarg, 0, 1000000000);
			break;
		case 'x':
			exit_status = (long)flag_int("-x", optarg, 1, 255);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (!framework || !keytext || run < 0 || !exit_status)
		usage();

	size_t kl = strlen(keytext) + 11;
	st.key = xmalloc(kl);
	snprintf(st.key, kl, "launch: %s: ", keytext);
	if (argc == 0)
		read_file(&st, "-");
	for (int i = 0; i < argc; i++)
		read_file(&st, argv[i]);
	if (st.stopped)
		return 3;

	m.kind = META_OUTCOME;
	m.framework = framework;
	m.key = keytext;
	m.run = run;
	m.status = st.oom ? OUTCOME_OOM : exit_status == 124 ? OUTCOME_TIMEOUT : OUTCOME_FAILED;
	char *reason = st.oom                                      ? st.oom
		       : st.timeout && m.status == OUTCOME_TIMEOUT ? st.timeout
		       : st.error                                  ? st.error
		       : st.launch                                 ? st.launch
								   : st.last;
	char exit_text[8];
	snprintf(exit_text, sizeof exit_text, "%ld", exit_status);
	m.item[0] = (struct metaitem){"status", (char *)outcome_names[m.status]};
	m.item[1] = (struct metaitem){"exit", exit_text};
	m.n = 2;
	if (reason) {
		cut(reason);
		m.item[m.n++] = (struct metaitem){"reason", reason};
	}
	metaline_format(&m, &out, &cap);
	printf("%s\n", out);
	free(out);
	finish_output();
	return 0;
}

int main(int argc, char *argv[])
{
	progname = "outcome";
	return filter_run(argc, argv);
}
