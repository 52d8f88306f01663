/*
 * tests/drivers/fake-nvml.c — bin/test-fake-nvml/libnvidia-ml.so.1, a
 * stand-in for NVIDIA's NVML with the calls launch's energy.c makes, for
 * tests/launch.bats (LD_LIBRARY_PATH names its folder, as a fake
 * nvidia-smi on PATH stands for the real one).
 *
 * Reads FAKE_NVML_GPUS (the GPUs it has; 2 when unset), FAKE_NVML_STEP_MJ
 * (how far a GPU's energy counter advances at each read, millijoules; 1000
 * when unset) and FAKE_NVML_NO_ENERGY (a GPU index whose energy counter is
 * "not supported", as on a GPU before Volta). Writes nothing: each GPU's
 * counter starts at a driver-load offset and advances by the step at every
 * read, so the joules launch writes are known exactly whatever the timing.
 */
#include <stdlib.h>

#define NVML_SUCCESS                0
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED    3
#define MAX_GPUS                    16

static unsigned long long reads[MAX_GPUS];
static long slots[MAX_GPUS]; /* the device handles: &slots[k] */

static long env_long(const char *name, long dflt)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return dflt;
	v = strtol(s, &end, 10);
	return *end ? dflt : v;
}

static unsigned gpus(void)
{
	long n = env_long("FAKE_NVML_GPUS", 2);

	return n < 0 ? 0 : n > MAX_GPUS ? MAX_GPUS : (unsigned)n;
}

int nvmlInit_v2(void)
{
	return NVML_SUCCESS;
}

int nvmlShutdown(void)
{
	return NVML_SUCCESS;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
	*count = gpus();
	return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **device)
{
	if (index >= gpus())
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &slots[index];
	return NVML_SUCCESS;
}

int nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj)
{
	long k = (long *)device - slots;

	if (k < 0 || k >= MAX_GPUS)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (env_long("FAKE_NVML_NO_ENERGY", -1) == k)
		return NVML_ERROR_NOT_SUPPORTED;
	*mj = 123456789ULL * (unsigned long long)(k + 1) +
	      reads[k]++ * (unsigned long long)env_long("FAKE_NVML_STEP_MJ", 1000);
	return NVML_SUCCESS;
}
