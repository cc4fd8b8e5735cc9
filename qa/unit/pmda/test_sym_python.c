/*
 * test_sym_python.c - CPython in the symbolizer, against the real thing:
 * a small C program embedding Debian's libpython3.11 (the shared-library
 * case) prints offsetof() of every field sym_python_offsets.c has, from
 * the installed headers, and the addresses of code objects it made; the
 * symbolizer must find and check its interpreter, name each code object
 * "qualname (file)" (UTF-8 and long names too), and, once the child has
 * freed a code object and made another at the same address, name the new
 * one, never the old.  The pure decoders get hand-made objects.
 */
#include <errno.h>
#include <stdint.h>
#include <linux/types.h>
#include "unit.h"
#include "stackprof.h"
#include "symbolizer/sym_internal.h"
#include "symbolizer/sym_python.h"
#include "sym_testlib.h"

#define PYINC	"/usr/include/python3.11"
#define PYLIB	"/usr/lib/x86_64-linux-gnu/libpython3.11.so"

static const char host_src[] =
	"#define PY_SSIZE_T_CLEAN\n#define Py_BUILD_CORE 1\n"
	"#include <Python.h>\n#include <structmember.h>\n"
	"#include <internal/pycore_runtime.h>\n#include <internal/pycore_interp.h>\n"
	"#include <internal/pycore_frame.h>\n#include <stddef.h>\n#include <stdio.h>\n"
	"#define O(n, t, f) printf(\"off %s %zu\\n\", n, offsetof(t, f))\n"
	"static void run(const char *src) { if (PyRun_SimpleString(src)) exit(3); fflush(stdout); }\n"
	"int main(void) {\n"
	"  char line[64];\n"
	"  O(\"runtime_main_interp\", _PyRuntimeState, interpreters.main);\n"
	"  O(\"interp_threads_head\", PyInterpreterState, threads.head);\n"
	"  O(\"tstate_interp\", PyThreadState, interp);\n"
	"  O(\"tstate_cframe\", PyThreadState, cframe);\n"
	"  O(\"tstate_thread_id\", PyThreadState, thread_id);\n"
	"  O(\"cframe_current\", _PyCFrame, current_frame);\n"
	"  O(\"frame_code\", _PyInterpreterFrame, f_code);\n"
	"  O(\"frame_previous\", _PyInterpreterFrame, previous);\n"
	"  O(\"frame_instr\", _PyInterpreterFrame, prev_instr);\n"
	"  O(\"frame_entry\", _PyInterpreterFrame, is_entry);\n"
	"  O(\"code_filename\", PyCodeObject, co_filename);\n"
	"  O(\"code_name\", PyCodeObject, co_name);\n"
	"  O(\"code_qualname\", PyCodeObject, co_qualname);\n"
	"  O(\"code_linetable\", PyCodeObject, co_linetable);\n"
	"  O(\"code_firstlineno\", PyCodeObject, co_firstlineno);\n"
	"  O(\"code_instr0\", PyCodeObject, co_code_adaptive);\n"
	"  O(\"type_members\", PyTypeObject, tp_members);\n"
	"  O(\"unicode_state\", PyASCIIObject, state);\n"
	"  printf(\"off unicode_ascii_data %zu\\n\", sizeof(PyASCIIObject));\n"
	"  printf(\"off unicode_compact_data %zu\\n\", sizeof(PyCompactUnicodeObject));\n"
	"  O(\"bytes_data\", PyBytesObject, ob_sval);\n"
	"  printf(\"end\\n\"); fflush(stdout);\n"
	"  Py_Initialize();\n"
	"  run(\"class Shape:\\n def \\u00e1rea(self): return 1\\n\"\n"
	"      \"def handle_request(): return 2\\n\"\n"
	"      \"def f(): return 3\\n\"\n"
	"      \"exec('def ' + 'x' * 700 + '(): return 4')\\n\"\n"
	"      \"for c in (Shape.\\u00e1rea, handle_request, f):\\n\"\n"
	"      \" print(hex(id(c.__code__)), c.__code__.co_qualname, '(<string>)')\\n\"\n"
	"      \"print(hex(id(globals()['x' * 700].__code__)), 'long')\\n\"\n"
	"      \"print('0x0 end')\\n\");\n"
	"  if (!fgets(line, sizeof(line), stdin)) return 0;\n"
	/* free f's code object, then make copies of its size until one
	 * lands where it was */
	"  run(\"import gc\\n\"\n"
	"      \"t = f.__code__.replace(co_name='t', co_qualname='t')\\n\"\n"
	"      \"a = id(f.__code__)\\ndel f, c\\ngc.collect()\\n\"\n"
	"      \"keep = []\\n\"\n"
	"      \"for i in range(100000):\\n\"\n"
	"      \" g = t.replace(co_name='g', co_qualname='g')\\n\"\n"
	"      \" if id(g) == a: break\\n\"\n"
	"      \" keep.append(g)\\n\"\n"
	"      \"print(hex(id(g)), 'g (<string>)' if id(g) == a else 'elsewhere')\\n\");\n"
	"  while (fgets(line, sizeof(line), stdin)) ;\n"
	"  return 0;\n"
	"}\n";

/* A Python frame of code at code unit unit (SP_INTERP_INDEX_MAX: none known). */
static uint64_t
tag_at(uint64_t code, uint64_t unit)
{
	return SP_INTERP_TAG | ((uint64_t)SP_INTERP_PYTHON << SP_INTERP_KIND_SHIFT) |
	       unit << SP_INTERP_INDEX_SHIFT | (code >> 3);
}

static uint64_t
tag(uint64_t code)
{
	return tag_at(code, SP_INTERP_INDEX_MAX);
}

static void
check_layout(struct child *c)
{
	const struct sym_python_layout *L = sym_python_layout_for(3, 11);
	char line[256], name[64];
	unsigned long v;
	int seen = 0;

	CHECK(L != NULL);
	if (!L)
		return;
	while (fgets(line, sizeof(line), c->out) && strcmp(line, "end\n") != 0) {
		const struct { const char *n; uint16_t v; } f[] = {
			{ "runtime_main_interp", L->runtime_main_interp },
			{ "interp_threads_head", L->interp_threads_head },
			{ "tstate_interp", L->tstate_interp }, { "tstate_cframe", L->tstate_cframe },
			{ "tstate_thread_id", L->tstate_thread_id },
			{ "cframe_current", L->cframe_current }, { "frame_code", L->frame_code },
			{ "frame_previous", L->frame_previous }, { "frame_instr", L->frame_instr },
			{ "frame_entry", L->frame_entry }, { "code_filename", L->code_filename },
			{ "code_name", L->code_name }, { "code_qualname", L->code_qualname },
			{ "code_linetable", L->code_linetable },
			{ "code_firstlineno", L->code_firstlineno }, { "code_instr0", L->code_instr0 },
			{ "type_members", L->type_members }, { "unicode_state", L->unicode_state },
			{ "unicode_ascii_data", L->unicode_ascii_data },
			{ "unicode_compact_data", L->unicode_compact_data },
			{ "bytes_data", L->bytes_data },
		};
		if (sscanf(line, "off %63s %lu", name, &v) != 2)
			continue;
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (strcmp(f[i].n, name) == 0) {
				if (f[i].v != v)
					fprintf(stderr, "%s: table %u, headers %lu\n", name, f[i].v, v);
				CHECK_INT(f[i].v, (long)v);
				seen++;
			}
	}
	CHECK_INT(seen, 21);
}

static void
test_embedded(void)
{
	char *argv[] = { (char *)spath("host"), NULL };
	struct symbolizer *s;
	struct sp_python_proc rec;
	struct symbolizer_python_stats st;
	struct child c;
	char name[1024], want[1024], got[1024];
	unsigned long codes[8], a, f_code = 0;
	char wants[8][1024];
	int n = 0, err = -1;

	if (access(PYINC "/Python.h", R_OK) != 0 || access(PYLIB, R_OK) != 0) {
		unit_skip("test_sym_python", "python3.11-dev not installed (make deps)");
		return;
	}
	write_file(spath("host.c"), host_src);
	must_run("cc -O1 -I" PYINC " -o %s %s -lpython3.11", spath("host"), spath("host.c"));
	c = child_start(argv);
	check_layout(&c);
	while ((a = child_addr(&c, name, sizeof(name))) != 0 && n < 8) {
		codes[n] = a;
		snprintf(wants[n++], sizeof(wants[0]), "%s", name);
		if (strncmp(name, "f ", 2) == 0)
			f_code = a;
	}
	CHECK_INT(n, 4);
	s = symbolizer_new(64 << 20);
	/* the interpreter is up (it printed): checked, and given a record */
	for (int i = 0; i < 50 && (err = symbolizer_python_record(s, c.pid, &rec)) == -EAGAIN; i++)
		usleep(20000);
	CHECK_INT(err, 0);
	CHECK(rec.eval_end > rec.eval_start);
	CHECK(rec.interp != 0 && rec.tstate_tls > 0);
	for (int i = 0; i < n; i++) {
		symbolize_user(s, c.pid, tag(codes[i]), got, sizeof(got));
		if (strcmp(wants[i], "long") == 0) {
			/* the qualname whole or cut, the file after it if it fits */
			CHECK(strncmp(got, "xxxxxxxxxx", 10) == 0 && strlen(got) < sizeof(got));
			continue;
		}
		CHECK_STR(got, wants[i]);
	}
	symbolize_user(s, c.pid, tag(f_code), got, sizeof(got));	/* a cache hit */
	CHECK_STR(got, "f (<string>)");
	/* its line from its line table: RESUME (unit 0), then "return 3" */
	symbolize_user(s, c.pid, tag_at(f_code, 0), got, sizeof(got));
	CHECK_STR(got, "f (<string>:4)");
	symbolize_user(s, c.pid, tag_at(f_code, 1), got, sizeof(got));
	CHECK_STR(got, "f (<string>:4)");
	symbolize_user(s, c.pid, tag_at(f_code, 5000), got, sizeof(got));	/* past its code */
	CHECK_STR(got, "f (<string>)");
	/* freed and reused */
	CHECK(write(c.in, "swap\n", 5) == 5);
	a = child_addr(&c, want, sizeof(want));
	CHECK(a == f_code);
	CHECK_STR(want, "g (<string>)");
	symbolize_user(s, c.pid, tag(f_code), got, sizeof(got));
	CHECK_STR(got, "g (<string>)");
	/* not a code object: no name */
	symbolize_user(s, c.pid, tag(rec.interp & ~7ULL), got, sizeof(got));
	CHECK_STR(got, "[unknown] [python]");
	symbolizer_python_stats(s, &st);
	CHECK(st.processes == 1 && st.unsupported == 0);
	CHECK(st.cache_hits >= 1 && st.cache_stale == 1 && st.unnamed == 1);
	/* a process that is not CPython */
	CHECK_INT(symbolizer_python_record(s, getpid(), &rec), -ENOENT);
	child_stop(&c);
	symbolizer_free(s);
}

/* ---- the pure decoders ---- */

/* A compact str header of layout L: kind, ascii, length, then data. */
static size_t
make_str(const struct sym_python_layout *L, uint8_t *buf, unsigned kind, bool ascii,
	 int64_t len, const void *data, size_t dlen)
{
	uint32_t state = (kind << 2) | (1u << 5) | (ascii ? 1u << 6 : 0) | (1u << 7);
	size_t off = ascii ? L->unicode_ascii_data : L->unicode_compact_data;

	memset(buf, 0, off);
	memcpy(buf + PY_OB_SIZE, &len, 8);
	memcpy(buf + L->unicode_state, &state, 4);
	memcpy(buf + off, data, dlen);
	return off + dlen;
}

static void
test_decode(void)
{
	const struct sym_python_layout *L = sym_python_layout_for(3, 11);
	uint8_t buf[512];
	char out[64];
	size_t n;
	const uint16_t ucs2[] = { 0x68, 0xe9, 0x2192 };		/* h é → */
	const uint32_t ucs4[] = { 0x61, 0x1f600, 0xd800 };	/* a 😀 lone surrogate */

	n = make_str(L, buf, 1, true, 5, "serve", 5);
	CHECK(sym_python_str(L, buf, n, out, sizeof(out)));
	CHECK_STR(out, "serve");
	CHECK(sym_python_str_size(L, buf, n) == n);
	CHECK(sym_python_str(L, buf, n - 1, out, sizeof(out)));	/* read in part */
	CHECK_STR(out, "serv");
	CHECK(sym_python_str(L, buf, n, out, 4));			/* output cut */
	CHECK_STR(out, "ser");
	n = make_str(L, buf, 2, false, 3, ucs2, sizeof(ucs2));
	CHECK(sym_python_str(L, buf, n, out, sizeof(out)));
	CHECK_STR(out, "h\xc3\xa9\xe2\x86\x92");
	CHECK(sym_python_str(L, buf, n, out, 6));			/* no half character */
	CHECK_STR(out, "h\xc3\xa9");
	n = make_str(L, buf, 4, false, 3, ucs4, sizeof(ucs4));
	CHECK(sym_python_str(L, buf, n, out, sizeof(out)));
	CHECK_STR(out, "a\xf0\x9f\x98\x80?");
	n = make_str(L, buf, 3, false, 1, "abc", 3);			/* no such kind */
	CHECK(!sym_python_str(L, buf, n, out, sizeof(out)) && sym_python_str_size(L, buf, n) == 0);
	n = make_str(L, buf, 2, true, 1, "ab", 2);			/* ascii is kind 1 */
	CHECK(!sym_python_str(L, buf, n, out, sizeof(out)));
	n = make_str(L, buf, 1, true, -1, "", 0);
	CHECK(!sym_python_str(L, buf, n, out, sizeof(out)));
	n = make_str(L, buf, 1, true, PY_STR_MAX_CHARS + 1, "", 0);
	CHECK(sym_python_str_size(L, buf, n) == 0);
	buf[L->unicode_state] &= ~(1u << 7);				/* not ready */
	CHECK(!sym_python_str(L, buf, n, out, sizeof(out)));
	/* 3.12+: no wstr, and bit 7 is statically_allocated, not ready */
	L = sym_python_layout_for(3, 12);
	n = make_str(L, buf, 1, true, 5, "serve", 5);
	CHECK(n == 45 && sym_python_str(L, buf, n, out, sizeof(out)));
	CHECK_STR(out, "serve");
	buf[L->unicode_state] &= ~(1u << 7);
	CHECK(sym_python_str(L, buf, n, out, sizeof(out)));
	n = make_str(L, buf, 2, false, 3, ucs2, sizeof(ucs2));
	CHECK(n == 62 && sym_python_str(L, buf, n, out, sizeof(out)));
	CHECK_STR(out, "h\xc3\xa9\xe2\x86\x92");
	L = sym_python_layout_for(3, 11);
	CHECK(!sym_python_str(L, buf, 8, out, sizeof(out)));		/* no header */
	n = make_str(L, buf, 4, false, 2, ucs4, 6);			/* half a character */
	CHECK(sym_python_str(L, buf, n, out, sizeof(out)));
	CHECK_STR(out, "a");

	sym_python_frame_text("handle_request", "app/server.py", -1, out, sizeof(out));
	CHECK_STR(out, "handle_request (app/server.py)");
	sym_python_frame_text("handle_request", "app/server.py", 42, out, sizeof(out));
	CHECK_STR(out, "handle_request (app/server.py:42)");
	sym_python_frame_text("a;b", "x\ny.py", 0, out, sizeof(out));	/* line 0 is none */
	CHECK_STR(out, "a,b (x?y.py)");
	sym_python_frame_text("f", "", 7, out, sizeof(out));		/* no file, no line */
	CHECK_STR(out, "f");
	sym_python_frame_text("handle_request", "", -1, out, 8);
	CHECK_STR(out, "handle_");
	sym_python_frame_text("function_name", "a/very/long/path/name.py", -1, out, 24);
	CHECK_STR(out, "function_name (a/very/)");
	sym_python_frame_text("function_name", "a/very/long/path/name.py", 1234, out, 24);
	CHECK_STR(out, "function_name (a/:1234)");	/* the file cut, the line kept */
	sym_python_frame_text("function_name", "a.py", 1234, out, 20);
	CHECK_STR(out, "function_name");		/* no room for file and line */
	sym_python_frame_text("a_function_longer_than_the_buffer", "f.py", 3, out, 8);
	CHECK_STR(out, "a_funct");
}

/* ---- which offsets for which version ---- */

static void
test_select(void)
{
	static const struct { unsigned minor; uint8_t entry, instr; bool qualname, cframe; } v[] = {
		{ 9, SP_PY_ENTRY_EACH, SP_PY_INSTR_LASTI_BYTES, false, false },
		{ 10, SP_PY_ENTRY_EACH, SP_PY_INSTR_LASTI_UNITS, false, false },
		{ 11, SP_PY_ENTRY_FLAG, SP_PY_INSTR_PTR, true, true },
		{ 12, SP_PY_ENTRY_SHIM, SP_PY_INSTR_PTR, true, true },
		{ 13, SP_PY_ENTRY_SHIM, SP_PY_INSTR_PTR, true, false },
	};
	uint8_t code[PY_CODE_READ] = { 0 };

	CHECK(sym_python_layout_for(3, 8) == NULL && sym_python_layout_for(3, 14) == NULL);
	CHECK(sym_python_layout_for(2, 7) == NULL && sym_python_layout_for(4, 11) == NULL);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const struct sym_python_layout *L = sym_python_layout_for(3, v[i].minor);
		struct sym_python_code c;

		CHECK(L != NULL);
		if (!L)
			continue;
		CHECK_INT(L->minor, v[i].minor);
		CHECK_INT(L->entry_kind, v[i].entry);
		CHECK_INT(L->instr_kind, v[i].instr);
		CHECK(L->has_qualname == v[i].qualname);
		CHECK((L->cframe_current != SP_PY_NO_CFRAME) == v[i].cframe);
		CHECK(L->debug_offsets == (v[i].minor >= 13));
		if (L->debug_offsets)
			continue;
		/* every field the walker reads lies in what it reads */
		CHECK(L->frame_code + 8 <= SP_PY_FRAME_READ && L->frame_previous + 8 <= SP_PY_FRAME_READ);
		CHECK(L->frame_instr + 8 <= SP_PY_FRAME_READ && L->frame_entry < SP_PY_FRAME_READ);
		CHECK(L->code_size <= PY_CODE_READ && L->code_size >= L->code_instr0);
		/* a code object's fields at the layout's offsets */
		memset(code, 0, sizeof(code));
		memcpy(code + L->code_name, &(uint64_t){ 0x1110 }, 8);
		memcpy(code + L->code_filename, &(uint64_t){ 0x2220 }, 8);
		if (L->has_qualname)
			memcpy(code + L->code_qualname, &(uint64_t){ 0x3330 }, 8);
		memcpy(code + L->code_firstlineno, &(int32_t){ 42 }, 4);
		CHECK(sym_python_code_fields(L, code, L->code_size, &c));
		CHECK(c.name == 0x1110 && c.filename == 0x2220 && c.firstlineno == 42);
		CHECK(c.qualname == (L->has_qualname ? 0x3330u : 0));
		CHECK(!sym_python_code_fields(L, code, L->code_size - 1, &c));
	}
}

/* 3.13's _Py_DebugOffsets as v3.13.5 fills it (_PyRuntimeState_INIT) */
static void
make_debug(uint8_t *buf, uint32_t version)
{
	static const struct { unsigned w; uint64_t v; } f[] = {
		{ 2, 0 },			/* free_threaded */
		{ 3, 90000 }, { 5, 40 },	/* runtime size, interpreters.head */
		{ 6, 60000 }, { 9, 7264 },	/* interp size, threads.head */
		{ 19, 320 }, { 22, 16 }, { 23, 72 }, { 24, 152 },	/* tstate */
		{ 28, 80 }, { 29, 8 }, { 30, 0 }, { 31, 56 }, { 33, 70 },	/* frame */
		{ 34, 200 }, { 35, 112 }, { 36, 120 }, { 37, 128 }, { 38, 136 },
		{ 39, 68 }, { 43, 200 },	/* code */
		{ 44, 16 }, { 45, 8 },		/* PyObject */
		{ 64, 33 }, { 65, 16 }, { 66, 32 },	/* bytes */
		{ 67, 40 }, { 68, 32 }, { 69, 16 }, { 70, 40 },	/* str */
	};
	uint64_t v = version;

	memset(buf, 0, PY_DEBUG_OFFSETS_SIZE);
	memcpy(buf, "xdebugpy", 8);
	memcpy(buf + 8, &v, 8);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		memcpy(buf + f[i].w * 8, &f[i].v, 8);
}

static void
test_debug_offsets(void)
{
	const struct sym_python_layout *base = sym_python_layout_for(3, 13);
	const uint32_t v = 0x030d05f0;		/* 3.13.5 final */
	uint8_t buf[PY_DEBUG_OFFSETS_SIZE + 8];
	struct sym_python_layout L;

	CHECK(base && base->debug_offsets);
	if (!base)
		return;
	make_debug(buf, v);
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v, &L), 0);
	CHECK_INT(L.runtime_main_interp, 40);
	CHECK_INT(L.interp_threads_head, 7264);
	CHECK(L.tstate_interp == 16 && L.tstate_cframe == 72 && L.tstate_thread_id == 152);
	CHECK(L.frame_code == 0 && L.frame_previous == 8 && L.frame_instr == 56 && L.frame_entry == 70);
	CHECK(L.code_filename == 112 && L.code_name == 120 && L.code_qualname == 128);
	CHECK(L.code_linetable == 136 && L.code_firstlineno == 68);
	CHECK(L.code_instr0 == 200 && L.code_size == 200);
	CHECK(L.unicode_state == 32 && L.unicode_ascii_data == 40 && L.unicode_compact_data == 56);
	CHECK(L.bytes_data == 32 && !L.debug_offsets && L.cframe_current == SP_PY_NO_CFRAME);
	CHECK(L.entry_kind == SP_PY_ENTRY_SHIM && L.shim_owner == 3 && !L.unicode_ready_bit);
	/* what does not check out: refused */
	CHECK_INT(sym_python_layout_debug(base, buf, PY_DEBUG_OFFSETS_SIZE - 1, v, &L), -EINVAL);
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v + 0x100, &L), -EINVAL);
	make_debug(buf, 0x030c00f0);		/* says 3.12, and Py_Version agrees */
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), 0x030c00f0, &L), -EINVAL);
	make_debug(buf, v);
	buf[0] = 'X';				/* no cookie */
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v, &L), -EINVAL);
	make_debug(buf, v);
	buf[2 * 8] = 1;				/* free-threaded */
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v, &L), -EINVAL);
	make_debug(buf, v);
	memcpy(buf + 31 * 8, &(uint64_t){ SP_PY_FRAME_READ }, 8);	/* past the frame read */
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v, &L), -EINVAL);
	make_debug(buf, v);
	memcpy(buf + 24 * 8, &(uint64_t){ 320 }, 8);	/* past the thread state */
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v, &L), -EINVAL);
	make_debug(buf, v);
	memcpy(buf + 45 * 8, &(uint64_t){ 0 }, 8);	/* ob_type elsewhere */
	CHECK_INT(sym_python_layout_debug(base, buf, sizeof(buf), v, &L), -EINVAL);
}

int
main(void)
{
	test_select();
	test_debug_offsets();
	test_decode();
	test_embedded();
	return unit_report("test_sym_python");
}
