/*
 * test_unwind_file_id.c - the identity unwind tables are shared by: a
 * build-id when the file has one (equal to what readelf -n prints, the same
 * for a copy), else device, inode, size and mtime (a copy or a rewrite is
 * another file).  The vDSO's comes from its image.
 */
#include <stdint.h>
#include <sys/time.h>
#include "unit.h"
#include "sym_testlib.h"
#include "cfi_testlib.h"

static const char prog_src[] = "int main(void) { return 0; }\n";

static int
file_id(const char *path, char *id)
{
	int fd = open(path, O_RDONLY), r = unwind_file_id(fd, id, UNWIND_FILE_ID_LEN);

	if (fd >= 0)
		close(fd);
	return r;
}

/* readelf's "Build ID: hex" of path, as our key. */
static void
readelf_build_id(const char *path, char *key, size_t len)
{
	char cmd[600], line[512], hex[200] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		sscanf(line, " Build ID: %199s", hex);
	if (p)
		pclose(p);
	snprintf(key, len, "build-id:%s", hex);
}

static void
test_build_id(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char id[UNWIND_FILE_ID_LEN], copy[UNWIND_FILE_ID_LEN], want[300];

	CHECK_INT(file_id(libc, id), 0);
	readelf_build_id(libc, want, sizeof(want));
	CHECK(strlen(want) > strlen("build-id:") + 16);
	CHECK_STR(id, want);
	must_run("cp %s %s", libc, spath("libc-copy.so"));
	CHECK_INT(file_id(spath("libc-copy.so"), copy), 0);
	CHECK_STR(copy, id);
	CHECK_INT(unwind_file_id(-1, id, sizeof(id)), -1);
	CHECK_INT(unwind_file_id(0, id, 10), -1);
}

static void
test_no_build_id(void)
{
	char a[UNWIND_FILE_ID_LEN], b[UNWIND_FILE_ID_LEN], c[UNWIND_FILE_ID_LEN];
	struct timeval past[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	write_file(spath("p.c"), prog_src);
	must_run("cc -Wl,--build-id=none -o %s %s", spath("p"), spath("p.c"));
	CHECK_INT(file_id(spath("p"), a), 0);
	CHECK(strncmp(a, "inode:", 6) == 0);
	must_run("cp -p %s %s", spath("p"), spath("p2"));
	CHECK_INT(file_id(spath("p2"), b), 0);
	CHECK(strcmp(a, b) != 0);			/* another inode */
	CHECK(utimes(spath("p"), past) == 0);
	CHECK_INT(file_id(spath("p"), c), 0);
	CHECK(strcmp(a, c) != 0);			/* rewritten: another mtime */
	CHECK_INT(file_id(spath("p"), b), 0);
	CHECK_STR(b, c);				/* and stable otherwise */
}

static void
test_vdso(void)
{
	size_t len;
	const void *vdso = cfi_vdso(&len);
	char id[UNWIND_FILE_ID_LEN];

	CHECK(vdso != NULL);
	CHECK_INT(unwind_file_id_mem(vdso, len, id, sizeof(id)), 0);
	CHECK(strncmp(id, "build-id:", 9) == 0);
	CHECK_INT(unwind_file_id_mem(prog_src, sizeof(prog_src), id, sizeof(id)), -1);
}

int
main(void)
{
	test_build_id();
	test_no_build_id();
	test_vdso();
	return unit_report("test_unwind_file_id");
}
