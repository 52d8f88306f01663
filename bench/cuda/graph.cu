/*
 * bench/cuda/graph.cu: --graph, one training step captured as a CUDA graph
 * after the warm-up and replayed for every later step (backend.h's
 * bk_graph_*). The trainer captures the step after the first (the first
 * allocates: the workspace is cut, the weight copy made), every op of it
 * enqueued as usual but recorded instead of run, NCCL's allreduces included
 * (NCCL >= 2.9; the NCCL stream joins the capture through the events of
 * comm_nccl.cu). What changes between steps (loss scale, learning rate) is
 * read by the kernels from device memory, copied from pinned memory by the
 * graph itself (push_knobs), so a replay needs nothing else from the host.
 *
 * A call that fails while capturing does not end the run (check.h): the
 * capture is given up, the trainer says so on rank 0 and runs the step, and
 * all later ones, uncaptured. Whether a step is captured must be the same
 * on every rank (NCCL's rule for captured collectives): the ranks agree
 * before any launches the graph.
 */
#include <stdio.h>

#include "internal.h"

void graph_release(void)
{
	if (gpu.graph_exec)
		CUDA_CHECK(cudaGraphExecDestroy(gpu.graph_exec));
	if (gpu.graph)
		CUDA_CHECK(cudaGraphDestroy(gpu.graph));
	gpu.graph_exec = NULL;
	gpu.graph = NULL;
}

void graph_launch(void)
{
	CUDA_CHECK(cudaGraphLaunch(gpu.graph_exec, gpu.stream));
	gpu.pending = gpu.updated = gpu.scaling; /* settled by bk_sync, as uncaptured */
}

static void give_up(const char *why)
{
	if (comm_rank() == 0)
		warnf("--graph: the step cannot be captured (%s): running uncaptured", why);
	graph_release();
	gpu.graph_state = GRAPH_OFF;
	gpu.pending = gpu.updated = 0; /* the captured step did not run */
}

extern "C" int bk_graph_begin(void)
{
	if (gpu.graph_state != GRAPH_WANTED)
		return 0;
	check_capture_why[0] = '\0';
	cudaError_t e = cudaStreamBeginCapture(gpu.stream, cudaStreamCaptureModeGlobal);
	if (e != cudaSuccess) {
		give_up(cudaGetErrorString(e));
		return 0;
	}
	gpu.graph_state = GRAPH_CAPTURING;
	check_capturing = 1;
	return 1;
}

extern "C" int bk_graph_end(void)
{
	cudaGraph_t g = NULL;
	size_t nodes = 0;
	char why[sizeof check_capture_why];

	if (gpu.graph_state != GRAPH_CAPTURING)
		return 0;
	cudaError_t e = cudaStreamEndCapture(gpu.stream, &g);
	check_capturing = 0;
	snprintf(why, sizeof why, "%s", check_capture_why);
	gpu.graph = g;
	if (!why[0] && e == cudaSuccess)
		e = cudaGraphInstantiateWithFlags(&gpu.graph_exec, g, 0);
	if (!why[0] && e == cudaSuccess)
		e = cudaGraphGetNodes(g, NULL, &nodes);
	if (!why[0] && e != cudaSuccess)
		snprintf(why, sizeof why, "%s", cudaGetErrorString(e));
	(void)cudaGetLastError(); /* a capture's errors are not sticky: clear them */
	if (comm_sum(why[0] ? 1.0 : 0.0) > 0.0) {
		give_up(why[0] ? why : "another rank could not");
		return 0;
	}
	gpu.graph_state = GRAPH_READY;
	if (comm_rank() == 0)
		warnf("--graph: step captured, %zu nodes; replayed from now on", nodes);
	graph_launch();
	return 1;
}

extern "C" int bk_graph_ready(void)
{
	return gpu.graph_state == GRAPH_READY;
}
