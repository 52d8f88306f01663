/*
 * launch — run one configuration <N>n<G>g_b<B>_<prec> of a command.
 *
 * usage: launch [-t timeout] [-H hostfile] [-v command] key -- command ...
 *
 * Reads the key, an optional Open MPI host file (-H) and the environment;
 * writes to stdout one '#' header line (key, hosts, UTC start time, the
 * command line), the "# env" lines of every node (env.c; -v: a command,
 * run with sh -c on each node, whose "name=value" lines are added: the
 * framework's versions), the command's own stdout, and the "# mem" lines
 * of the job's peak memory (memory.c); stderr passes through.
 *
 *   1n1g, no -H, or 1n1g inside Slurm   the command itself, no mpirun
 *   SLURM_JOB_ID set                    srun --nodes=N --ntasks=N*G
 *                                       --ntasks-per-node=G ...
 *   otherwise                           mpirun -np N*G --host h1:G,...,hN:G
 *                                       --map-by ppr:G:node --bind-to none ...
 *
 * The job is made of three steps, one file each: hosts.c (where it runs),
 * command.c (what runs, its environment and the header), supervise.c
 * (running it to its end, the timeout and signals, the exit status).
 *
 * The same binary holds two more programs, one file each, that launch runs
 * itself: `launch --rank` (rank.c), the wrapper of every rank under mpirun
 * or srun, which writes its node's "# env" and its own "# mem" lines, and
 * `launch --libs` (libs.c), the linked libraries' versions for the "# env"
 * lines. One binary: launch names its own path in mpirun's and srun's argv,
 * the one program every node must have.
 *
 * Exit: the command's status (mpirun's: non-zero when any rank failed);
 * 128+n when it died of signal n; 124 at the timeout; 128+n when launch was
 * interrupted by signal n; 127/126 when the command cannot be run; 1 for a
 * host file or host that cannot serve the configuration; 2 for usage.
 */
#include "launch.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TIMEOUT 604800 /* -t: one week */

/* The command line into the job: -t, -H, the key and the command's words. */
static void options(struct job *job, int argc, char *argv[])
{
	int c;

	opterr = 0;
	while ((c = getopt(argc, argv, "+t:H:v:")) != -1) {
		switch (c) {
		case 't':
			job->timeout = (long)flag_int("-t", optarg, 0, MAX_TIMEOUT);
			break;
		case 'H':
			job->hostfile = optarg;
			break;
		case 'v':
			job->vcmd = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || strcmp(argv[1], "--") != 0)
		usage();
	if (key_parse(argv[0], &job->key) != 0)
		die_usage("'%s' is not a key <N>n<G>g_b<B>_<precision>", argv[0]);
	key_format(&job->key, job->keystr, sizeof job->keystr);
	if (job->key.nodes > MAX_RANKS / job->key.gpus)
		die_usage("%s: %ld × %ld ranks, at most %ld", job->keystr, job->key.nodes,
			  job->key.gpus, MAX_RANKS);
	job->world = job->key.nodes * job->key.gpus;
	job->cmd = argv + 2;
	job->ncmd = argc - 2;
}

static void job_free(struct job *job)
{
	for (size_t i = 0; i < job->argc; i++)
		free(job->argv[i]);
	for (size_t i = 0; i < job->nhosts; i++)
		free(job->hosts[i].name);
	free(job->argv);
	free(job->hosts);
	free(job->hostlist);
	free(job->nodelist);
}

int main(int argc, char *argv[])
{
	struct job job = {0};

	progname = "launch";
	usage_text = "launch [-t timeout] [-H hostfile] [-v command] key -- command ...";
	if (argc > 1 && strcmp(argv[1], "--rank") == 0)
		return rank_main(argc, argv);
	if (argc > 1 && strcmp(argv[1], "--libs") == 0)
		return libs_main(argc, argv);
	options(&job, argc, argv);

	hosts_resolve(&job);
	command_build(&job);
	if (job.how == DIRECT)
		env_print(0, job.vcmd, job.argv, (int)job.argc);
	/* The header is out (or its write error reported) before the job starts. */
	finish_output();
	int rc = supervise(&job);

	job_free(&job);
	return rc;
}
