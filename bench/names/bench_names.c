/*
 * bench_names.c - the differential check of frame names (qa/unit/pmda/
 * names_difflib.h) over every file the processes of this host map: each
 * distinct executable file once, in the first process found mapping it,
 * so the frame type is judged as the PMDA would judge it there.
 *
 * usage: bench_names [PER_FILE]     (default 2000 addresses per file)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pmda/names_difflib.h"

struct seen {
	dev_t	dev;
	ino_t	ino;
};

static bool
seen_before(struct seen **v, size_t *n, const struct nd_map *m)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].dev == m->dev && (*v)[i].ino == m->ino)
			return true;
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct seen){ m->dev, m->ino };
	return false;
}

int
main(int argc, char **argv)
{
	size_t per = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000, nseen = 0, files = 0, wrongfiles = 0;
	uint64_t *ips = calloc(per ? per : 1, sizeof(*ips));
	struct nd_counts total = { 0 };
	struct seen *seen = NULL;
	struct timespec t0, t1;
	DIR *proc = opendir("/proc");
	struct dirent *d;
	pid_t self = getpid();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (proc && (d = readdir(proc)) != NULL) {
		pid_t pid = atoi(d->d_name);
		struct nd_map *maps = NULL;
		size_t n;
		struct symbolizer *s;

		if (pid <= 0 || pid == self || (n = nd_read_maps(pid, &maps)) == 0) {
			free(maps);
			continue;
		}
		s = symbolizer_new(256u << 20);
		for (size_t i = 0; i < n; i++) {
			struct nd_counts c = { 0 };
			char file[600], label[700];
			size_t k;

			if (maps[i].path[0] != '/' || seen_before(&seen, &nseen, &maps[i]))
				continue;
			snprintf(file, sizeof(file), "/proc/%d/root%s", (int)pid, maps[i].path);
			if ((k = nd_sample(pid, maps[i].path, file, ips, per)) == 0)
				continue;
			snprintf(label, sizeof(label), "%s (pid %d)", maps[i].path, (int)pid);
			if (!nd_compare(s, pid, ips, k, &c, label, stdout))
				continue;
			files++;
			wrongfiles += c.wrong > 0;
			if (c.wrong > 0 || getenv("BENCH_NAMES_VERBOSE"))
				nd_print(stdout, label, &c);
			nd_add(&total, &c);
		}
		symbolizer_free(s);
		free(maps);
	}
	if (proc)
		closedir(proc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("\n%zu files mapped by this host's processes, %zu addresses each at most, %.0f s\n",
	       files, per, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	nd_print(stdout, "all", &total);
	printf("files with a wrong name: %zu\n", wrongfiles);
	free(ips);
	free(seen);
	return total.wrong > 0;
}
