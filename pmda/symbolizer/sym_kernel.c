/*
 * sym_kernel.c - kernel function names from /proc/kallsyms.
 *
 * Lines are "ADDR TYPE NAME" or, for modules (and BPF programs, ftrace
 * trampolines), "ADDR TYPE NAME\t[module]".  We keep text symbols only, drop
 * the module suffix from the name (the frame is "[k] func" either way), and
 * let each symbol run to the next one, as kallsyms gives no sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sym_internal.h"
#include "lib/array.h"

/* kallsyms is the kernel's, not an attacker's, but a bound costs nothing:
 * 122k text symbols here; more than KALLSYMS_MAX are not kept. */
#define KALLSYMS_MAX	(1u << 21)

struct sym_kernel {
	struct sym_list	list;
	char		*names;
	size_t		names_len;
};

static bool
is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static uint32_t
kernel_rank(char type)
{
	return type == 'T' ? 3 : (type == 'W' || type == 'w') ? 2 : 1;
}

/* Append name to the blob; entries hold offsets until the blob stops moving. */
static bool
add_name(struct sym_kernel *k, size_t *cap, const char *name, size_t len, size_t *off)
{
	if (array_reserve(&k->names, cap, k->names_len + len + 1) < 0)
		return false;
	*off = k->names_len;
	memcpy(k->names + k->names_len, name, len);
	k->names[k->names_len + len] = '\0';
	k->names_len += len + 1;
	return true;
}

static bool
parse_line(struct sym_kernel *k, char *line, size_t *cap, size_t *symcap)
{
	char *end, *name;
	unsigned long long addr = strtoull(line, &end, 16);
	size_t len, off;

	if (end == line || end[0] != ' ' || end[1] == '\0' || end[2] != ' ')
		return true;			/* not a symbol line: skip */
	if (!is_text(end[1]) || addr == 0)
		return true;
	name = end + 3;
	len = strcspn(name, "\t\n");
	if (len == 0)
		return true;
	if (array_reserve(&k->list.syms, symcap, k->list.n + 1) < 0)
		return false;
	if (!add_name(k, cap, name, len, &off))
		return false;
	k->list.syms[k->list.n++] = (struct sym_entry){
		.addr = addr, .name = (const char *)(uintptr_t)off, .rank = kernel_rank(end[1]),
	};
	return true;
}

/* Read from the start of fd, which stays open: /proc/kallsyms shows
 * addresses to whoever opened it with CAP_SYSLOG, whatever the reader
 * holds now, so the agent opens it once before it drops privileges. */
static FILE *
reopen(int fd)
{
	int dup_fd;
	FILE *f;

	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0 || (dup_fd = dup(fd)) < 0)
		return NULL;
	if ((f = fdopen(dup_fd, "r")) == NULL)
		close(dup_fd);
	return f;
}

struct sym_kernel *
sym_kernel_load(int fd)
{
	struct sym_kernel *k = calloc(1, sizeof(*k));
	FILE *f = reopen(fd);
	char *line = NULL;
	size_t linecap = 0, cap = 0, symcap = 0;
	bool ok = k != NULL && f != NULL;

	while (ok && k->list.n < KALLSYMS_MAX && getline(&line, &linecap, f) > 0)
		ok = parse_line(k, line, &cap, &symcap);
	free(line);
	if (f)
		fclose(f);
	if (!ok || k->list.n == 0) {
		sym_kernel_free(k);
		return NULL;
	}
	for (size_t i = 0; i < k->list.n; i++)
		k->list.syms[i].name = k->names + (uintptr_t)k->list.syms[i].name;
	sym_list_sort(&k->list);
	return k;
}

void
sym_kernel_free(struct sym_kernel *k)
{
	if (k == NULL)
		return;
	sym_list_free(&k->list);
	free(k->names);
	free(k);
}

const char *
sym_kernel_find(struct sym_kernel *k, uint64_t ip)
{
	long i = sym_list_find(&k->list, ip);

	return i < 0 ? NULL : sym_list_name(&k->list, i);
}

size_t
sym_kernel_count(const struct sym_kernel *k)
{
	return k ? k->list.n : 0;
}

size_t
sym_kernel_bytes(const struct sym_kernel *k)
{
	return k ? sizeof(*k) + k->list.n * sizeof(struct sym_entry) +
		   k->list.pretty_bytes + k->names_len : 0;
}
