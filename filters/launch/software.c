/*
 * software.c — the software a run ran, as "# env" items: the git
 * repositories of the command's files, the pipeline's versions, the
 * libraries its program links.
 *
 * Reads the command's words, the output of `git rev-parse` and `git status`
 * in the repositories of its files, of the pipeline's version command (-v,
 * run with sh -c) and of `launch --libs` on the command's program (libs.c,
 * run as a program of its own: it loads the libraries it probes); writes
 * items (items.c).
 */
#include "launch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The git repositories holding the command's files: git_repo, git_commit,
 * git_dirty (tracked files changed), numbered from the second on. */
void env_git(struct out *o, char **cmd, int ncmd)
{
	char dirs[4][PATH_MAX], buf[PATH_MAX + 128], name[32];
	int nd = 0;

	for (int i = 0; i < ncmd && nd < 4; i++) {
		char real[PATH_MAX], *slash;
		struct stat sb;
		if (!strchr(cmd[i], '/') || !realpath(cmd[i], real) || stat(real, &sb) != 0)
			continue;
		if (!S_ISDIR(sb.st_mode) && (slash = strrchr(real, '/')))
			*slash = '\0';
		char *const top[] = {"git",  "-C", real, "rev-parse", "--show-toplevel",
				     "HEAD", NULL};
		if (run_capture(top, buf, sizeof buf, 0) <= 0)
			continue;
		char *nl = strchr(buf, '\n');
		if (!nl)
			continue;
		*nl = '\0';
		int k = 0;
		while (k < nd && strcmp(dirs[k], buf) != 0)
			k++;
		if (k < nd)
			continue;
		size_t bl = strlen(buf);
		if (bl >= PATH_MAX)
			continue;
		memcpy(dirs[nd++], buf, bl + 1);
		char sfx[4] = "";
		if (nd > 1)
			snprintf(sfx, sizeof sfx, "%d", nd);
		snprintf(name, sizeof name, "git_repo%s", sfx);
		items(o, name, buf);
		snprintf(name, sizeof name, "git_commit%s", sfx);
		item(o, name, nl + 1, strcspn(nl + 1, "\n"));
		char *const st[] = {"git",    "-C",          dirs[nd - 1],
				    "status", "--porcelain", "--untracked-files=no",
				    NULL};
		ssize_t n = run_capture(st, buf, sizeof buf, 0);
		snprintf(name, sizeof name, "git_dirty%s", sfx);
		if (n >= 0)
			items(o, name, n ? "yes" : "no");
	}
}

/* The "name=value" lines of buf as items, names of [A-Za-z0-9_.-]; other
 * lines are left out. */
static void pairs(struct out *o, char *buf)
{
	for (char *line = buf, *next; *line; line = next) {
		size_t len = strcspn(line, "\n");
		next = line + len + (line[len] == '\n');
		line[len] = '\0';
		size_t nl = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
					 "0123456789_.-");
		if (nl && nl < 64 && line[nl] == '=') {
			line[nl] = '\0';
			items(o, line, line + nl + 1);
		}
	}
}

/* The pipeline's version command (sh -c). */
void env_versions(struct out *o, const char *vcmd)
{
	static char buf[OUT_MAX];
	char *const av[] = {"sh", "-c", (char *)vcmd, NULL};

	if (vcmd && run_capture(av, buf, sizeof buf, 0) >= 0)
		pairs(o, buf);
}

/* The libraries' own versions (libs.c) for the command's program: its
 * first word after "env" and VAR=value words, looked up on PATH. */
void env_libs(struct out *o, char **cmd, int ncmd)
{
	static char buf[OUT_MAX];
	char self[PATH_MAX], prog[PATH_MAX];
	int i = 0;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	if (n <= 0)
		return;
	self[n] = '\0';
	if (i < ncmd && !strcmp(cmd[i], "env"))
		i++;
	while (i < ncmd && strchr(cmd[i], '=') && *cmd[i] != '/')
		i++;
	if (i == ncmd)
		return;
	if (strchr(cmd[i], '/')) {
		snprintf(prog, sizeof prog, "%s", cmd[i]);
	} else {
		const char *path = getenv("PATH");
		*prog = '\0';
		for (const char *p = path ? path : ""; *p && !*prog; p += *p == ':') {
			size_t len = strcspn(p, ":");
			snprintf(prog, sizeof prog, "%.*s/%s", (int)len, p, cmd[i]);
			if (access(prog, X_OK) != 0)
				*prog = '\0';
			p += len;
		}
		if (!*prog)
			return;
	}
	char *const av[] = {self, "--libs", prog, NULL};
	if (run_capture(av, buf, sizeof buf, 1) >= 0)
		pairs(o, buf);
}
