/*
 * control_file.c - the controls' state file (see header).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "control_file.h"

static const char	header[] =
	"# pmdastackprof: controls stored with pmstore, read when the PMDA starts.\n"
	"# Written by the PMDA at every accepted store; ./Install and ./Remove delete it.\n";

static bool
is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescape src[0..len) into out (len + 1 bytes); NULL or why it failed. */
static const char *
unescape(const char *src, size_t len, char *out)
{
	size_t	i;
	int	hi, lo;

	for (i = 0; i < len; i++) {
		unsigned char	c = (unsigned char)src[i];

		if (c < 0x20 || c == 0x7f)
			return "a raw control byte in the value";
		if (c != '\\') {
			*out++ = (char)c;
			continue;
		}
		if (++i == len)
			return "a lone backslash at the end";
		switch (src[i]) {
		case '\\':	*out++ = '\\'; break;
		case 'n':	*out++ = '\n'; break;
		case 't':	*out++ = '\t'; break;
		case 'x':
			if (i + 2 >= len || (hi = hex_digit(src[i + 1])) < 0 ||
			    (lo = hex_digit(src[i + 2])) < 0)
				return "a bad \\x escape";
			if (hi == 0 && lo == 0)
				return "a NUL byte in the value";
			*out++ = (char)(hi * 16 + lo);
			i += 2;
			break;
		default:
			return "an unknown escape";
		}
	}
	*out = '\0';
	return NULL;
}

/* One line without its newline; false when it is bad (why in *why). */
static bool
parse_line(const char *line, size_t len, unsigned lineno, control_file_entry_fn entry,
	   void *arg, const char **why)
{
	size_t	n = 0;
	char	*name, *value;

	if (len == 0 || line[0] == '#')
		return true;
	while (n < len && is_name_char(line[n]))
		n++;
	if (n == 0 || n == len || line[n] != '=') {
		*why = "not NAME=VALUE";
		return false;
	}
	if ((name = strndup(line, n)) == NULL || (value = malloc(len - n)) == NULL) {
		free(name);
		*why = "out of memory";
		return false;
	}
	if ((*why = unescape(line + n + 1, len - n - 1, value)) == NULL)
		entry(arg, lineno, name, value);
	free(name);
	free(value);
	return *why == NULL;
}

unsigned
control_file_parse(const char *text, size_t len, control_file_entry_fn entry,
		   control_file_bad_fn bad, void *arg)
{
	const char	*p = text, *end = text + len;
	unsigned	lineno = 0, nbad = 0;

	while (p < end) {
		const char	*nl = memchr(p, '\n', (size_t)(end - p));
		size_t		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char	*why = NULL;

		if (!parse_line(p, n, ++lineno, entry, arg, &why)) {
			bad(arg, lineno, why);
			nbad++;
		}
		p += n + 1;
	}
	return nbad;
}

int
control_file_read(const char *path, control_file_entry_fn entry,
		  control_file_bad_fn bad, void *arg)
{
	struct stat	st;
	char		*text;
	ssize_t		got;
	int		fd, sts = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		sts = -errno;
	else if (!S_ISREG(st.st_mode))
		sts = -EINVAL;
	else if (st.st_size > (off_t)CONTROL_FILE_MAX)
		sts = -EFBIG;
	else if ((text = malloc((size_t)st.st_size + 1)) == NULL)
		sts = -ENOMEM;
	else {
		/* one read: the file is small and only we write it, by rename */
		if ((got = read(fd, text, (size_t)st.st_size + 1)) < 0)
			sts = -errno;
		else if (got > (ssize_t)st.st_size)
			sts = -EFBIG;	/* grew since fstat: not ours */
		else
			control_file_parse(text, (size_t)got, entry, bad, arg);
		free(text);
	}
	close(fd);
	return sts;
}

static void
write_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/* The whole file in memory, so a failure leaves no partial temp file. */
static char *
format_entries(const char *const names[], const char *const values[], size_t n,
	       size_t *len)
{
	char	*buf = NULL;
	FILE	*f = open_memstream(&buf, len);
	size_t	i;

	if (f == NULL)
		return NULL;
	fputs(header, f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s=", names[i]);
		write_escaped(f, values[i]);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t	n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The rename is durable only once the directory is on disk too. */
static int
sync_dir_of(const char *path)
{
	char	*copy = strdup(path);
	int	fd, sts = 0;

	if (copy == NULL)
		return -ENOMEM;
	if ((fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fsync(fd) < 0)
		sts = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return sts;
}

int
control_file_write(const char *path, const char *const names[],
		   const char *const values[], size_t n)
{
	size_t	len, plen = strlen(path);
	char	*text = format_entries(names, values, n, &len);
	char	*tmp = malloc(plen + sizeof(".XXXXXX"));
	int	fd, sts;

	if (text == NULL || tmp == NULL) {
		sts = -ENOMEM;
		goto out;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".XXXXXX", sizeof(".XXXXXX"));
	/* mkostemp creates it 0600, as it stays */
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		sts = -errno;
		goto out;
	}
	sts = write_all(fd, text, len);
	if (sts == 0 && fsync(fd) < 0)
		sts = -errno;
	if (close(fd) < 0 && sts == 0)
		sts = -errno;
	if (sts == 0 && rename(tmp, path) < 0)
		sts = -errno;
	if (sts < 0)
		unlink(tmp);
	else
		sts = sync_dir_of(path);
out:
	free(text);
	free(tmp);
	return sts;
}
