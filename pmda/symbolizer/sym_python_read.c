/*
 * sym_python_read.c - bytes of another process's memory, for what
 * detecting CPython (sym_python.c) and naming its frames
 * (sym_python_name.c) read: process_vm_readv, all or nothing, so a
 * half-read object is never decoded.  Its own file so that the namer,
 * which sym_proc.c frees through, needs nothing of the detector, which
 * opens files through sym_proc.c.
 */
#include <sys/uio.h>
#include "sym_python.h"

bool
sym_python_read(pid_t pid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return n > 0 && process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)n;
}
