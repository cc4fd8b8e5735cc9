/*
 * fakepython - a hostile process for qa/054: not CPython, but it exports
 * what the PMDA looks for (_PyRuntime, _PyEval_EvalFrameDefault,
 * Py_Version, PyCode_Type, PyUnicode_Type) and forges a 3.11 runtime that
 * passes every check sym_python.c makes, so that the BPF walker walks its
 * frame chain and the symbolizer reads its code objects.  The chain is
 * hostile, by argv[1]:
 *
 *   loop      two frames whose previous point at each other
 *   garbage   a frame whose previous is unaligned, then one in the kernel,
 *             then one unmapped (one of them at a time, changing)
 *   strings   good frames, but their code objects' names are hostile
 *             strings: too long, negative length, unknown kind, not a str,
 *             control bytes, cut by an unmapped page
 *   churn     a good chain whose code objects a thread rewrites all the
 *             time: names swapped between two strings, type flipped
 *
 * Every frame's code object is named "hostile_<mode>..." when it is
 * readable at all, so a test can tell its names from anyone else's.  It
 * spins in _PyEval_EvalFrameDefault for argv[2] seconds.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "wallclock.h"

/* 3.11 offsets: pmda/symbolizer/sym_python_offsets.c */
enum {
	RT_MAIN = 48, RT_TSS = 592, IN_HEAD = 16, TS_INTERP = 16, TS_CFRAME = 56, TS_SELF = 152,
	CF_CURRENT = 8, FR_CODE = 32, FR_PREV = 48, FR_INSTR = 56, FR_ENTRY = 68,
	CO_FILE = 112, CO_NAME = 120, CO_QUAL = 128, CO_LINES = 136, CO_FIRST = 72,
	CO_INSTR0 = 184, TP_MEMBERS = 240, STR_STATE = 32, STR_ASCII = 48,
};

unsigned char _PyRuntime[1024] __attribute__((aligned(64)));
unsigned char PyCode_Type[512] __attribute__((aligned(64)));
unsigned char PyUnicode_Type[512] __attribute__((aligned(64)));
unsigned int Py_Version = 0x030b02f0;	/* 3.11.2 final */

static unsigned char interp[256] __attribute__((aligned(64)));
static unsigned char tstate[256] __attribute__((aligned(64)));
static unsigned char cframe[64] __attribute__((aligned(64)));
static unsigned char members[8][40] __attribute__((aligned(64)));
static volatile unsigned long spins;

static void
put64(void *base, size_t off, uint64_t v)
{
	memcpy((char *)base + off, &v, sizeof(v));
}

static void
put32(void *base, size_t off, uint32_t v)
{
	memcpy((char *)base + off, &v, sizeof(v));
}

/* An ASCII str object (compact, ready) of text, or of len with no text. */
static void *
make_str(const char *text, int64_t len, uint32_t state)
{
	unsigned char *s = calloc(1, STR_ASCII + 600);

	put64(s, 8, (uint64_t)(uintptr_t)PyUnicode_Type);
	put64(s, 16, (uint64_t)len);
	put32(s, STR_STATE, state);
	if (text)
		memcpy(s + STR_ASCII, text, strlen(text));
	return s;
}

#define ASCII_STATE	((1u << 2) | (1u << 5) | (1u << 6) | (1u << 7))

static void *
good_str(const char *text)
{
	return make_str(text, (int64_t)strlen(text), ASCII_STATE);
}

static void *
make_code(void *qualname, void *name, int first)
{
	unsigned char *c = calloc(1, CO_INSTR0 + 64);

	put64(c, 8, (uint64_t)(uintptr_t)PyCode_Type);
	put64(c, CO_FILE, (uint64_t)(uintptr_t)good_str("/hostile/fakepython.py"));
	put64(c, CO_NAME, (uint64_t)(uintptr_t)name);
	put64(c, CO_QUAL, (uint64_t)(uintptr_t)qualname);
	put32(c, CO_FIRST, (uint32_t)first);
	return c;
}

static unsigned char *
make_frame(void *code, void *previous, int entry)
{
	unsigned char *f = aligned_alloc(64, 128);

	memset(f, 0, 128);
	put64(f, FR_CODE, (uint64_t)(uintptr_t)code);
	put64(f, FR_PREV, (uint64_t)(uintptr_t)previous);
	put64(f, FR_INSTR, (uint64_t)(uintptr_t)code + CO_INSTR0 + 4);
	f[FR_ENTRY] = (unsigned char)entry;
	return f;
}

static void
member(int i, const char *name, uint64_t off)
{
	put64(members[i], 0, (uint64_t)(uintptr_t)name);
	put32(members[i], 8, 16);		/* T_OBJECT, unused */
	put64(members[i], 16, off);
}

/* The runtime, interpreter and thread state that lead to frame. */
static void
forge(unsigned char *frame)
{
	pthread_key_t key;

	member(0, "co_filename", CO_FILE);
	member(1, "co_name", CO_NAME);
	member(2, "co_qualname", CO_QUAL);
	member(3, "co_firstlineno", CO_FIRST);
	member(4, "co_linetable", CO_LINES);
	put64(PyCode_Type, TP_MEMBERS, (uint64_t)(uintptr_t)members);
	if (pthread_key_create(&key, NULL) != 0 || pthread_setspecific(key, tstate) != 0)
		exit(2);
	put64(_PyRuntime, RT_MAIN, (uint64_t)(uintptr_t)interp);
	put32(_PyRuntime, RT_TSS, 1);
	put32(_PyRuntime, RT_TSS + 4, (uint32_t)key);
	put64(interp, IN_HEAD, (uint64_t)(uintptr_t)tstate);
	put64(tstate, TS_INTERP, (uint64_t)(uintptr_t)interp);
	put64(tstate, TS_SELF, (uint64_t)pthread_self());
	put64(tstate, TS_CFRAME, (uint64_t)(uintptr_t)cframe);
	put64(cframe, CF_CURRENT, (uint64_t)(uintptr_t)frame);
}

static unsigned char *
chain_loop(void)
{
	unsigned char *a = make_frame(make_code(good_str("hostile_loop_a"), good_str("a"), 1), NULL, 0);
	unsigned char *b = make_frame(make_code(good_str("hostile_loop_b"), good_str("b"), 2), a, 0);

	put64(a, FR_PREV, (uint64_t)(uintptr_t)b);
	return a;
}

static unsigned char *garbage_leaf;

static unsigned char *
chain_garbage(void)
{
	garbage_leaf = make_frame(make_code(good_str("hostile_garbage"), good_str("g"), 1),
				  (void *)0x123457, 0);
	return garbage_leaf;
}

/* a str whose characters run into a page that is not mapped */
static void *
cut_str(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *s;

	if (p == MAP_FAILED)
		exit(2);
	munmap(p + page, page);
	s = p + page - STR_ASCII - 8;
	put64(s, 8, (uint64_t)(uintptr_t)PyUnicode_Type);
	put64(s, 16, 400);
	put32(s, STR_STATE, ASCII_STATE);
	memcpy(s + STR_ASCII, "hostile_", 8);
	return s;
}

static unsigned char *
chain_strings(void)
{
	void *bad[] = {
		make_str("hostile_long", 1 << 20, ASCII_STATE),
		make_str("hostile_negative", -5, ASCII_STATE),
		make_str("hostile_kind", 12, (7u << 2) | (1u << 5) | (1u << 7)),
		make_str("hostile_noncompact", 17, (1u << 2) | (1u << 6) | (1u << 7)),
		good_str("hostile_ctl\x01\x1b[31m;x\xff\xfe|y"),
		cut_str(),
		interp,				/* not a str */
		(void *)0x10,			/* nothing there */
	};
	unsigned char *prev = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		prev = make_frame(make_code(bad[i], bad[i], (int)i + 1), prev, i == 0);
	return prev;
}

static void *names[2];
static unsigned char *churn_codes[4];

static void *
churner(void *arg)
{
	(void)arg;
	for (unsigned long i = 0;; i++) {
		unsigned char *c = churn_codes[i % 4];

		put64(c, CO_QUAL, (uint64_t)(uintptr_t)names[i & 1]);
		if (i % 4 != 3)		/* the current frame's stays a code object */
			put64(c, 8, (uint64_t)(uintptr_t)(i % 3 ? (void *)PyCode_Type
								  : (void *)interp));
	}
	return NULL;
}

static unsigned char *
chain_churn(void)
{
	unsigned char *prev = NULL;
	pthread_t t;

	names[0] = good_str("hostile_churn_x");
	names[1] = good_str("hostile_churn_y");
	for (int i = 0; i < 4; i++) {
		churn_codes[i] = make_code(names[0], names[0], i + 1);
		prev = make_frame(churn_codes[i], prev, i == 0);
	}
	if (pthread_create(&t, NULL, churner, NULL) != 0)
		exit(2);
	return prev;
}

/* The "eval loop" the walker looks for: the samples' pc is in here. */
__attribute__((noinline)) void
_PyEval_EvalFrameDefault(double end, int garbage)
{
	static const uint64_t bad_prev[] = { 0x123457, 0xffffffff81000000ULL, 0x10000 };

	for (unsigned long n = 0; wall() < end; n++) {
		for (int i = 0; i < 100000; i++)
			spins++;
		if (garbage)
			put64(garbage_leaf, FR_PREV, bad_prev[n % 3]);
	}
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "loop";
	double secs = argc > 2 ? atof(argv[2]) : 10;
	unsigned char *frame;

	if (strcmp(mode, "loop") == 0)
		frame = chain_loop();
	else if (strcmp(mode, "garbage") == 0)
		frame = chain_garbage();
	else if (strcmp(mode, "strings") == 0)
		frame = chain_strings();
	else if (strcmp(mode, "churn") == 0)
		frame = chain_churn();
	else
		return 2;
	forge(frame);
	_PyEval_EvalFrameDefault(wall() + secs, strcmp(mode, "garbage") == 0);
	return 0;
}
