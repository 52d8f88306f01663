/*
 * outcome.c — fuzz target: outcome over what a failed run left (a log, a
 * stderr), each exit status that means something to it.
 */
#include "harness.h"

#include <string.h>

static const struct fuzz_config configs[] = {
	{{"-F", "fw", "-k", "1n8g_b256_fp32", "-r", "1", "-x", "1", "@1"}, NULL, NULL},
	{{"-F", "fw", "-k", "1n8g_b256_fp32", "-r", "1", "-x", "124", "@1"}, NULL, NULL},
	{{"-F", "fw", "-k", "1n8g_b256_fp32", "-r", "1", "-x", "137", "@1", "@2"}, NULL, NULL},
};

/* Nothing (exit 3: interrupted), or one outcome line of this run: a
 * status it knows, the exit given, a reason of at most 200 bytes encoded
 * (no blank, control byte or bare '=' in it). */
static const char *check(int config, char *out, size_t n)
{
	static const char *const exits[] = {"1", "124", "137"};
	static const char *const statuses[] = {"oom", "failed", "timeout"};
	const char *prefix = "# outcome framework=fw key=1n8g_b256_fp32 run=1 status=";
	const char *p = out + strlen(prefix);
	int known = 0;

	if (n == 0)
		return NULL;
	if (strncmp(out, prefix, strlen(prefix)) != 0)
		return "not this run's outcome line";
	if (out[n - 1] != '\n' || memchr(out, '\n', n) != out + n - 1)
		return "not one line";
	for (int i = 0; i < 3; i++)
		if (strncmp(p, statuses[i], strlen(statuses[i])) == 0 &&
		    p[strlen(statuses[i])] == ' ')
			known = 1, p += strlen(statuses[i]) + 1;
	if (!known)
		return "a status it does not know";
	if (strncmp(p, "exit=", 5) != 0 ||
	    strncmp(p + 5, exits[config], strlen(exits[config])) != 0)
		return "an exit that is not the one given";
	p += 5 + strlen(exits[config]);
	if (*p == '\n')
		return NULL;
	if (strncmp(p, " reason=", 8) != 0)
		return "something after exit= that is not the reason";
	size_t bytes = 0;
	for (p += 8; *p != '\n'; p++, bytes++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '=')
			return "a reason byte that is not encoded";
		if (*p == '%') {
			if (!p[1] || !p[2] || p[1] == '\n' || p[2] == '\n')
				return "a % at the reason's end";
			p += 2;
		}
	}
	if (bytes > 200)
		return "a reason of more than 200 bytes";
	return NULL;
}

const struct fuzz_target fuzz_target = {
	"outcome",
	configs,
	sizeof configs / sizeof *configs,
	check,
	"tests/fixtures/outcome/*.err tests/fixtures/make/fake-train",
	3,
};
