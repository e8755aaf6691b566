/*
 * Finding the GPUs: every backend asked in turn (gpu.h). The one file
 * of lib/gpu that knows all the backends; nothing in lib/gpu calls it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/buf.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "gpu/gpu.h"

int prof_gpu_backends_parse(const char *list, unsigned *mask, char *bad, size_t n)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = 0;

	*mask = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "nvml") == 0) {
			*mask |= PROF_GPU_BE_NVML;
		} else if (strcmp(t, "amdgpu") == 0) {
			*mask |= PROF_GPU_BE_AMDGPU;
		} else if (strcmp(t, "tegrastats") == 0) {
			*mask |= PROF_GPU_BE_TEGRA;
		} else if (strcmp(t, "all") == 0 || strcmp(t, "auto") == 0) {
			*mask |= PROF_GPU_BE_ALL;
		} else {
			snprintf(bad, n, "%s", t);
			rc = -1;
			break;
		}
	}
	free(copy);
	if (rc == 0 && !*mask) {
		snprintf(bad, n, "%s", list);
		rc = -2;
	}
	return rc;
}

/* The recorded tegrastats lines of o->tegrastats_input as the only device. */
static int replay_tegrastats(struct prof_gpu_set *set, const char *path, struct prof_buf *status)
{
	int from_stdin = strcmp(path, "-") == 0;
	int fd = from_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	char model[256];

	if (fd < 0)
		return -1;
	if (!prof_gpu_tegra_detect(NULL, model, sizeof(model)))
		snprintf(model, sizeof(model), "NVIDIA Tegra");
	prof_gpu_tegra_open(set, fd, model, from_stdin ? "<stdin>" : path);
	prof_buf_addf(status, "tegrastats: reading %s", path);
	return 0;
}

static void find_jetson(struct prof_gpu_set *set, const struct prof_gpu_discovery *o, int nvml,
			struct prof_buf *status)
{
	char model[256];

	prof_buf_addstr(status, "tegrastats: ");
	if (nvml) {
		/* A Jetson with NVML already listed its GPU there. */
		prof_buf_addstr(status, "not used (NVML present)");
	} else if (!prof_gpu_tegra_detect(NULL, model, sizeof(model))) {
		prof_buf_addstr(status, "not a Jetson");
	} else if (!o->spawn) {
		prof_gpu_tegra_open(set, -1, model, "tegrastats");
		prof_buf_addstr(status, "1 GPU");
	} else if (prof_gpu_tegra_spawn(set, o->interval_ns, model)) {
		prof_buf_addstr(status, "1 GPU");
	} else {
		prof_buf_addstr(status, "cannot run tegrastats");
	}
}

int prof_gpu_discover(struct prof_gpu_set *set, const struct prof_gpu_discovery *o,
		      struct prof_buf *status)
{
	char driver[96];
	int n, nvml = 0;

	if (o->tegrastats_input)
		return replay_tegrastats(set, o->tegrastats_input, status);
	if (o->backends & PROF_GPU_BE_NVML) {
		prof_buf_addstr(status, "nvml: ");
		nvml = prof_gpu_nvml_open(set, NULL, driver, sizeof(driver), status);
		if (nvml)
			prof_buf_addf(status, "%d GPU%s (driver %s)", nvml, nvml == 1 ? "" : "s",
				      driver[0] ? driver : "unknown");
	}
	if (o->backends & PROF_GPU_BE_AMDGPU) {
		if (status->len)
			prof_buf_addstr(status, "; ");
		prof_buf_addstr(status, "amdgpu: ");
		n = prof_gpu_amdgpu_open(set, NULL, status);
		if (n)
			prof_buf_addf(status, "%d GPU%s", n, n == 1 ? "" : "s");
	}
	if (o->backends & PROF_GPU_BE_TEGRA) {
		if (status->len)
			prof_buf_addstr(status, "; ");
		find_jetson(set, o, nvml, status);
	}
	return 0;
}

int prof_gpu_list(struct prof_gpu_discovery *o)
{
	struct prof_gpu_set set;
	struct prof_buf why = PROF_BUF_INIT;
	int rval;

	memset(&set, 0, sizeof(set));
	o->spawn = 0;
	if (prof_gpu_discover(&set, o, &why) < 0)
		prof_die_errno("%s", o->tegrastats_input);
	for (size_t i = 0; i < set.ndevs; i++) {
		struct prof_gpu_dev *d = &set.devs[i];

		printf("%u\t%s\t%s\t%s\n", d->index, d->backend->name, d->name, d->uuid);
	}
	if (!set.ndevs)
		prof_warn("no GPU found (%s)", why.data);
	else
		prof_info(1, "%s", why.data);
	rval = set.ndevs ? PROF_EXIT_OK : PROF_EXIT_FAIL;
	prof_buf_release(&why);
	prof_gpu_set_release(&set);
	return rval | prof_close_stdout();
}
