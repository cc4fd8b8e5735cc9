/*
 * sym_vdso.c - names in [vdso], the small shared object the kernel maps
 * into every process (clock_gettime, gettimeofday, getcpu...).  It has no
 * file: we read the process's image from /proc/PID/mem, or, when that is
 * refused, use our own vDSO (getauxval(AT_SYSINFO_EHDR)), which is the same
 * image whenever the mapping has the same size (same kernel, same ABI).
 * Tables are cached like files, keyed by a hash of the image.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "sym_internal.h"
#include "lib/hash.h"

#define VDSO_MAX	(1u << 20)
#define VDSO_DEV	((dev_t)-1)	/* no filesystem has this device number */

static char *
read_process_image(pid_t pid, uint64_t start, size_t len)
{
	char path[64], *buf = malloc(len);
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if (buf == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		free(buf);
		return NULL;
	}
	if (pread(fd, buf, len, (off_t)start) != (ssize_t)len) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
}

/* Our own vDSO when it is as large as theirs: same kernel, same image. */
static char *
own_image(size_t len)
{
	const char *base = (const char *)getauxval(AT_SYSINFO_EHDR);
	char line[256], *buf;
	unsigned long lo, hi;
	size_t own = 0;
	FILE *f;

	if (base == NULL || (f = fopen("/proc/self/maps", "re")) == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == (unsigned long)(uintptr_t)base)
			own = hi - lo;
	fclose(f);
	if (own != len || (buf = malloc(len)) == NULL)
		return NULL;
	memcpy(buf, base, len);
	return buf;
}

char *
sym_vdso_image(pid_t pid, uint64_t start, uint64_t end)
{
	size_t len = end - start;
	char *image;

	if (end <= start || len > VDSO_MAX)
		return NULL;
	if ((image = read_process_image(pid, start, len)) == NULL)
		image = own_image(len);
	return image;
}

struct sym_elf *
sym_vdso_load(pid_t pid, uint64_t start, uint64_t end, struct sym_cache *c,
	      struct sym_counters *cnt)
{
	size_t len = end - start;
	char *image;
	struct sym_elf *e;
	uint64_t h;

	if ((image = sym_vdso_image(pid, start, end)) == NULL) {
		cnt->proc_errors++;
		return NULL;
	}
	h = hash_stable64((unsigned char *)image, len);
	if ((e = sym_cache_get(c, VDSO_DEV, (ino_t)h, NULL)) != NULL) {
		cnt->cache_hits++;
	} else if ((e = sym_elf_load_mem(image, len)) != NULL) {
		cnt->cache_misses++;
		e->dev = VDSO_DEV;
		e->ino = (ino_t)h;
		sym_cache_put(c, e);
	} else {
		cnt->elf_errors++;
	}
	free(image);
	return e;
}
