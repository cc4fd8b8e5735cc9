/*
 * fuzz.h - what the libFuzzer harnesses share: the fuzz input as a file
 * (for parsers that only take a path or an fd), and the input cut into
 * parts (for parsers that take several strings).
 *
 * Files are memfds, named by their /proc/self/fd path: nothing is left on
 * disk when a harness dies, and nothing is shared between harnesses.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memfd holding data, its path in *path (PATH_MAX is not needed: the path
 * is /proc/self/fd/N).  Exits the harness when the system refuses: that is
 * no finding in the parser. */
static inline int
fuzz_memfd(const void *data, size_t size, char path[32])
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0) {
		perror("memfd_create");
		exit(2);
	}
	while (done < size) {
		ssize_t n = write(fd, (const char *)data + done, size - done);
		if (n <= 0) {
			perror("write memfd");
			exit(2);
		}
		done += n;
	}
	snprintf(path, 32, "/proc/self/fd/%d", fd);
	return fd;
}

static char fuzz_scratch_dir[64];

static inline int
fuzz_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static inline void
fuzz_rm_scratch(void)
{
	if (fuzz_scratch_dir[0])
		nftw(fuzz_scratch_dir, fuzz_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A directory of this harness's own (in tmpfs when there is one), removed
 * at exit; for parsers that need a file tree (a root, a spool, a /proc). */
static inline const char *
fuzz_scratch(void)
{
	if (fuzz_scratch_dir[0] == '\0') {
		snprintf(fuzz_scratch_dir, sizeof(fuzz_scratch_dir), "%s/fuzz.XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (mkdtemp(fuzz_scratch_dir) == NULL) {
			perror("mkdtemp");
			exit(2);
		}
		atexit(fuzz_rm_scratch);
	}
	return fuzz_scratch_dir;
}

/*
 * Cut data at NUL bytes into at most n NUL-terminated strings (copies, in
 * one malloc'd block that the caller frees).  Missing parts are "".  Text
 * parsers never see a NUL inside a string, so the NUL is a free separator
 * and the fuzzer learns it from the seeds.
 */
static inline char *
fuzz_split(const uint8_t *data, size_t size, const char **part, int n)
{
	char *copy = malloc(size + 1);
	size_t at = 0;

	if (copy == NULL)
		exit(2);
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (int i = 0; i < n; i++) {
		part[i] = at <= size ? copy + at : copy + size;
		if (at <= size)
			at += strlen(copy + at) + 1;
	}
	return copy;
}

/* The first byte as a small number (a mode, a bound), consuming it. */
static inline unsigned
fuzz_byte(const uint8_t **data, size_t *size)
{
	unsigned b = 0;

	if (*size > 0) {
		b = **data;
		(*data)++;
		(*size)--;
	}
	return b;
}

#endif /* FUZZ_H */
