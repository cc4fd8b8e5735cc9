/*
 * fuzz_s3_spool.c - spool entries as pmflame reads them back to deliver
 * them (client/publish/s3_spool.c).  The input is one entry file, put in a
 * spool directory of the harness's own under an entry's name and read with
 * s3_spool_read: a sound entry must come back with names that pass the S3
 * checks and a body of the length and SHA-256 its header says; anything
 * else must be set aside as damaged-NAME, never delivered.
 */
#include <errno.h>
#include <fcntl.h>
#include "fuzz.h"
#include "publish/s3_http.h"
#include "publish/s3_key.h"
#include "publish/s3_spool.h"

#define ENTRY	"00000001764540000000-4242-0-0123456789abcdef.obj"

static struct s3_spool	spool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	err[256];

	(void)argc;
	(void)argv;
	setenv("PMFLAME_SPOOL", fuzz_scratch(), 1);
	if (s3_spool_open(&spool, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		exit(2);
	}
	return 0;
}

static void
put(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		perror(path);
		exit(2);
	}
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct s3_spool_entry	e;
	char			path[512], damaged[512], err[1024], sha[65];
	int			rc;

	snprintf(path, sizeof(path), "%s/%s", spool.dir, ENTRY);
	snprintf(damaged, sizeof(damaged), "%s/damaged-%s", spool.dir, ENTRY);
	put(path, data, size);
	rc = s3_spool_read(&spool, ENTRY, &e, err, sizeof(err));
	if (rc == 0) {
		if (!s3_object_name_ok(e.bucket, e.key) || e.len > size || e.body[e.len] != '\0')
			abort();
		s3_sha256_hex(e.body, e.len, sha);
		if (memmem(data, size, sha, 64) == NULL)	/* the header's, checked */
			abort();
		s3_spool_entry_free(&e);
		unlink(path);
	} else if (rc == -2) {
		if (access(path, F_OK) == 0 || access(damaged, F_OK) != 0)
			abort();	/* a damaged entry is set aside, not left in line */
		unlink(damaged);
	} else {
		abort();	/* -1 is "gone", and it was there */
	}
	return 0;
}
