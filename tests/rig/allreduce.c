/*
 * allreduce — the rig's tiny MPI workload. Every rank sums rank+1 over
 * MPI_COMM_WORLD and prints "rank R of S on ADDR sum X" (ADDR: the first
 * IPv4 address that is not loopback, i.e. the test host it runs on).
 *
 * It checks its world size against DLBENCH_WORLD (set by launch), as every
 * workload should: a mismatch is an error, exit 1.
 *
 *   allreduce            the above
 *   allreduce die R      rank R kills itself (SIGKILL) before the allreduce
 *   allreduce hang       every rank but 0 sleeps forever before the allreduce
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void address(char *buf, size_t size)
{
	struct ifaddrs *ifa, *a;

	snprintf(buf, size, "-");
	if (getifaddrs(&ifa) != 0)
		return;
	for (a = ifa; a; a = a->ifa_next)
		if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET &&
		    strcmp(a->ifa_name, "lo") != 0) {
			struct sockaddr_in *in = (struct sockaddr_in *)a->ifa_addr;
			inet_ntop(AF_INET, &in->sin_addr, buf, (socklen_t)size);
			break;
		}
	freeifaddrs(ifa);
}

int main(int argc, char **argv)
{
	int rank, size, one, sum;
	char addr[64];
	const char *want = getenv("DLBENCH_WORLD");

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (want && atoi(want) != size) {
		fprintf(stderr, "allreduce: rank %d: world size %d, DLBENCH_WORLD=%s\n", rank, size,
			want);
		MPI_Finalize();
		return 1;
	}
	if (argc == 3 && strcmp(argv[1], "die") == 0 && rank == atoi(argv[2]))
		raise(SIGKILL);
	if (argc == 2 && strcmp(argv[1], "hang") == 0 && rank != 0)
		for (;;)
			pause();
	one = rank + 1;
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	address(addr, sizeof addr);
	printf("rank %d of %d on %s sum %d\n", rank, size, addr, sum);
	MPI_Finalize();
	return 0;
}
