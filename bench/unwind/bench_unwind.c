/*
 * bench_unwind.c - how fast the CFI compiler builds unwind tables, how big
 * they are, against two tools that do the same interpretation (CFI in,
 * a row per pc range out) in the same run: binutils'
 * `readelf --debug-dump=frames-interp` and `llvm-dwarfdump --eh-frame`
 * (LLVM >= 14 prints the unwind rows), both writing to /dev/null.
 * Rounds alternate ours and the peers, so they share the machine's noise.
 *
 * Then the tables one python3 process needs: every executable file it
 * maps, and its vDSO read from /proc/PID/mem, in kernel bytes.
 *
 * usage: bench_unwind ROUNDS file...
 *        bench_unwind --once [file]     (build once and exit: peak memory)
 */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "unwind/unwind_table.h"

/* The walker's kernel row (struct sp_unwind_row of the unwind-bpf branch):
 * u32 pc, s32 cfa_offset, s16 rbp_offset, u8 type, u8 pad. */
#define KERNEL_ROW_BYTES	12

extern char **environ;

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* Run argv with stdout and stderr on /dev/null; wall ms, peak RSS in *kb.
 * -1 when it cannot run or fails. */
static double
run_peer(char *const argv[], long *kb)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	pid_t pid;
	int status;
	double t0 = now_ms(), t;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	t = now_ms() - t0;
	*kb = ru.ru_maxrss;
	/* readelf exits 1 over unrelated complaints (libc: no interpreter) */
	return WIFEXITED(status) && WEXITSTATUS(status) <= 1 ? t : -1;
}

static int
build(const char *path, struct unwind_table *t, struct unwind_build_stats *st)
{
	char err[256];
	int fd = open(path, O_RDONLY), r;

	r = unwind_table_build(fd, -1, t, st, err, sizeof(err));
	if (r != 0)
		fprintf(stderr, "%s: %s\n", path, err);
	close(fd);
	return r;
}

/* VmHWM of this process, kB: its peak RSS since exec. */
static long
hwm_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Peak RSS of a fresh process (this program, --once) that builds path's
 * table once, less one that does not: what a build costs in memory at its
 * high point, libdw included.  (wait4's ru_maxrss would count the forking
 * parent's pages too.) */
static long
build_peak_kb(const char *path)
{
	char self[512], cmd[1200];
	long kb[2] = { 0, 0 };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 0;
	self[n] = '\0';
	for (int with = 0; with < 2; with++) {
		FILE *p;

		snprintf(cmd, sizeof(cmd), "'%s' --once %s%s%s", self, with ? "'" : "",
			 with ? path : "", with ? "'" : "");
		if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%ld", &kb[with]) != 1)
			kb[with] = 0;
		if (p)
			pclose(p);
	}
	return kb[1] - kb[0];
}

struct result {
	double	ours, readelf, dwarfdump;	/* median ms; -1: not run */
	long	readelf_kb, dwarfdump_kb;
};

static struct result
time_file(const char *path, int rounds, struct unwind_build_stats *st)
{
	char *re[] = { "readelf", "--debug-dump=frames-interp", (char *)path, NULL };
	char *dd[] = { "llvm-dwarfdump", "--eh-frame", (char *)path, NULL };
	double ours[rounds], ref[rounds], ddm[rounds];
	struct result r = { 0 };

	for (int i = 0; i < rounds; i++) {
		struct unwind_table t;
		double t0 = now_ms();

		if (build(path, &t, st) != 0)
			return (struct result){ -1, -1, -1, 0, 0 };
		ours[i] = now_ms() - t0;
		unwind_table_free(&t);
		ref[i] = run_peer(re, &r.readelf_kb);
		ddm[i] = run_peer(dd, &r.dwarfdump_kb);
	}
	r.ours = median(ours, rounds);
	r.readelf = median(ref, rounds);
	r.dwarfdump = median(ddm, rounds);
	return r;
}

static void
print_ratio(double peer, double ours)
{
	if (peer < 0)
		printf(" %9s %6s", "-", "-");
	else
		printf(" %9.1f %5.1fx", peer, peer / ours);
}

static void
bench_files(int rounds, int n, char **files)
{
	printf("%-44s %6s %8s %8s %8s %8s %6s %7s %9s %6s %9s %6s\n", "file", "MB", "FDEs",
	       "rows", "kern KB", "ours ms", "ns/row", "peak MB", "readelf", "ratio",
	       "dwarfdump", "ratio");
	for (int i = 0; i < n; i++) {
		struct unwind_build_stats st;
		struct stat sb;
		struct result r;
		const char *name = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];

		if (stat(files[i], &sb) != 0)
			continue;
		r = time_file(files[i], rounds, &st);
		if (r.ours < 0)
			continue;
		printf("%-44s %6.1f %8zu %8zu %8zu %8.1f %6.0f %7.1f", name, sb.st_size / 1048576.0,
		       st.fdes, st.rows, st.rows * KERNEL_ROW_BYTES / 1024, r.ours,
		       r.ours * 1e6 / st.source_rows, build_peak_kb(files[i]) / 1024.0);
		print_ratio(r.readelf, r.ours);
		print_ratio(r.dwarfdump, r.ours);
		printf("\n");
		printf("%-44s   %zu rows before merging, %.0f MB of CFI interpreted (%.0f B/row), "
		       "peers' peak RSS %.0f / %.0f MB\n", "", st.source_rows,
		       st.interp_bytes / 1e6, (double)st.interp_bytes / st.source_rows,
		       r.readelf_kb / 1024.0, r.dwarfdump_kb / 1024.0);
	}
}

/* The vDSO of pid, read from its memory. */
static int
build_vdso(pid_t pid, unsigned long lo, unsigned long hi, struct unwind_table *t,
	   struct unwind_build_stats *st)
{
	char path[64], err[256];
	size_t len = hi - lo;
	char *img = malloc(len);
	int fd, r = -1;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if (img && (fd = open(path, O_RDONLY)) >= 0) {
		if (pread(fd, img, len, lo) == (ssize_t)len)
			r = unwind_table_build_mem(img, len, t, st, err, sizeof(err));
		close(fd);
	}
	free(img);
	return r;
}

/* Tables for every executable file python3 maps, and its vDSO. */
static void
bench_python(void)
{
	char *argv[] = { "/usr/bin/python3", "-c", "import sys, time; sys.stdout.write('up\\n'); "
			 "sys.stdout.flush(); time.sleep(5)", NULL };
	char line[1024], maps[64], up[8];
	size_t rows = 0, files = 0;
	double ms = 0;
	int pfd[2];
	pid_t pid;
	FILE *f, *out;

	if (pipe(pfd) != 0 || (pid = fork()) < 0)
		return;
	if (pid == 0) {
		dup2(pfd[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	out = fdopen(pfd[0], "r");
	if (out == NULL || fgets(up, sizeof(up), out) == NULL) {
		printf("python3: did not start\n");
		return;
	}
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	printf("\n/usr/bin/python3 (pid %d): tables of its executable mappings\n", (int)pid);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8], file[512] = "";
		struct unwind_table t;
		struct unwind_build_stats st;
		int r;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %511s", &lo, &hi, perms, file) < 3 ||
		    perms[2] != 'x' || (file[0] != '/' && strcmp(file, "[vdso]") != 0))
			continue;
		r = file[0] == '/' ? build(file, &t, &st) : build_vdso(pid, lo, hi, &t, &st);
		if (r != 0)
			continue;
		printf("  %-48s %7zu rows %7zu KB %6.1f ms\n", file, st.rows,
		       st.rows * KERNEL_ROW_BYTES / 1024, st.build_ns / 1e6);
		rows += st.rows;
		ms += st.build_ns / 1e6;
		files++;
		unwind_table_free(&t);
	}
	if (f)
		fclose(f);
	printf("  total: %zu files, %zu rows, %.1f KB in the kernel at %d B/row, built in %.1f ms\n",
	       files, rows, rows * KERNEL_ROW_BYTES / 1024.0, KERNEL_ROW_BYTES, ms);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fclose(out);
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 0;
	struct unwind_table t;

	if (argc >= 2 && strcmp(argv[1], "--once") == 0) {	/* for build_peak_kb */
		if (argc == 3 && build(argv[2], &t, NULL) == 0)
			unwind_table_free(&t);
		printf("%ld\n", hwm_kb());
		return 0;
	}

	if (rounds < 1 || argc < 3) {
		fprintf(stderr, "usage: bench_unwind ROUNDS file...\n");
		return 2;
	}
	bench_files(rounds, argc - 2, argv + 2);
	bench_python();
	return 0;
}
