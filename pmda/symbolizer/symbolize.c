/*
 * symbolize.c - the symbolizer's façade: addresses in, DeepFlow frame names
 * out.  It routes each address to its source (kallsyms, an ELF table, a
 * perf map, the vDSO), formats the name, counts what it could not name, and
 * keeps the caches inside their byte budget.
 *
 * The lookup path allocates nothing once a process and its files are
 * known: a hash probe for the process, two binary searches (mapping,
 * symbol), and a copy of an already demangled name into the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sym_internal.h"
#include "sym_python.h"
#include "lib/clock.h"

#define KALLSYMS_RELOAD_GENS	30	/* retry kallsyms on a miss this often */
#define YOUNG_MAX		256	/* exec'd processes whose maps we re-read */
#define CACHE_IDLE_NS		(60 * 1000000000ull)	/* unused ELF tables kept this long */

/*
 * At exec (sched_process_exec) a dynamically linked program has only its
 * executable, ld.so and the vDSO mapped: its libraries come a millisecond
 * later.  A process that lives 50 ms may be gone before anything else makes
 * us read its maps again, so we re-read them on this schedule after the
 * exec until they grow (static programs: until the schedule ends).
 */
static const uint64_t young_after_ns[] = { 1000000, 3000000, 10000000, 30000000 };
#define YOUNG_TRIES	(sizeof(young_after_ns) / sizeof(young_after_ns[0]))

struct young {
	pid_t		pid;
	struct sym_ident id;
	uint64_t	exec_ns;
	size_t		nmaps;		/* at the last read */
	unsigned	tries;
};

struct symbolizer {
	size_t		limit;		/* bytes for ELF tables + processes */
	uint64_t	idle_ns;	/* unused ELF tables expire after this */
	unsigned	gen;		/* drain generation, advanced by collect */
	bool		need_trim;	/* something was loaded since the last trim */
	struct sym_kernel *kernel;
	unsigned	kernel_gen;	/* generation kallsyms was (last tried to be) read */
	int		kallsyms_fd;	/* opened at start, while privileged */
	struct sym_cache *cache;
	struct sym_procs *procs;
	struct sym_debuginfod *debuginfod;	/* NULL until set up */
	struct sym_counters cnt;
	struct symbolizer_python_stats python;
	struct young	young[YOUNG_MAX];	/* just exec'd: maps still growing */
	int		nyoung;
};

struct symbolizer *
symbolizer_new(size_t cache_limit_bytes)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	s->limit = cache_limit_bytes;
	s->idle_ns = CACHE_IDLE_NS;
	s->gen = 1;
	s->kallsyms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	s->cache = sym_cache_new();
	s->procs = sym_procs_new();
	if (s->cache == NULL || s->procs == NULL) {
		symbolizer_free(s);
		return NULL;
	}
	return s;
}

void
symbolizer_free(struct symbolizer *s)
{
	if (s == NULL)
		return;
	sym_debuginfod_free(s->debuginfod);	/* its threads touch no table */
	if (s->procs)
		sym_procs_free(s->procs, s->cache);
	sym_cache_free(s->cache);
	sym_kernel_free(s->kernel);
	if (s->kallsyms_fd >= 0)
		close(s->kallsyms_fd);
	free(s);
}

void
symbolizer_set_kallsyms(struct symbolizer *s, const char *path)
{
	sym_kernel_free(s->kernel);
	s->kernel = NULL;
	s->kernel_gen = 0;
	if (s->kallsyms_fd >= 0)
		close(s->kallsyms_fd);
	s->kallsyms_fd = open(path, O_RDONLY | O_CLOEXEC);
}

/* prefix + name into buf, truncated, always NUL-terminated. */
static void
put_name(char *buf, size_t len, const char *prefix, const char *name)
{
	size_t pl = strlen(prefix), nl = strlen(name);

	if (len == 0)
		return;
	if (pl >= len)
		pl = len - 1;
	memcpy(buf, prefix, pl);
	if (nl >= len - pl)
		nl = len - pl - 1;
	memcpy(buf + pl, name, nl);
	buf[pl + nl] = '\0';
}

static void
put_unknown(struct symbolizer *s, char *buf, size_t len, uint64_t ip)
{
	s->cnt.misses++;
	snprintf(buf, len, "[unknown] 0x%016" PRIx64, ip);
}

/* "[/path]": the module is known, the symbol is not.  Pseudo-paths such as
 * "[vdso]" already carry their brackets. */
static void
put_module(struct symbolizer *s, char *buf, size_t len, const char *path)
{
	s->cnt.misses++;
	snprintf(buf, len, path[0] == '[' ? "%s" : "[%s]", path);
	frame_name_sanitize(buf);
}

void
symbolize_kernel(struct symbolizer *s, uint64_t ip, char *buf, size_t len)
{
	const char *name = NULL;

	s->cnt.kernel_lookups++;
	if (s->kernel)
		name = sym_kernel_find(s->kernel, ip);
	/* first use, or a module loaded since we read kallsyms */
	if (name == NULL && (s->kernel_gen == 0 || s->gen - s->kernel_gen >= KALLSYMS_RELOAD_GENS)) {
		s->kernel_gen = s->gen;
		struct sym_kernel *k = sym_kernel_load(s->kallsyms_fd);
		if (k) {
			sym_kernel_free(s->kernel);
			s->kernel = k;
			name = sym_kernel_find(k, ip);
		} else {
			s->cnt.proc_errors++;
		}
	}
	if (name)
		put_name(buf, len, "[k] ", name);
	else
		put_unknown(s, buf, len, ip);
}

static struct sym_proc *
capture(struct symbolizer *s, pid_t tgid)
{
	struct sym_proc *p;

	s->cnt.cache_misses++;
	s->need_trim = true;
	p = sym_procs_capture(s->procs, s->cache, tgid, s->gen);
	if (p)
		p->used_gen = s->gen;
	if (p && p->lost) {
		s->cnt.lost_processes++;
		p->dead_gen = s->gen;
	}
	return p;
}

/* The process entry to use for tgid now; NULL when /proc/PID is gone. */
static struct sym_proc *
proc_for(struct symbolizer *s, pid_t tgid)
{
	struct sym_proc *p = sym_procs_get(s->procs, tgid);
	struct sym_ident now;

	if (p && p->dead_gen && p->checked_gen != s->gen) {
		/* its image is gone: is another one (PID reuse, exec) there now? */
		p->checked_gen = s->gen;
		if (sym_proc_ident(tgid, &now) && !sym_ident_equal(&now, &p->id))
			p = NULL;
	}
	if (p)
		s->cnt.cache_hits++;
	else
		p = capture(s, tgid);
	if (p)
		p->used_gen = s->gen;
	return p && !p->lost ? p : NULL;
}

/*
 * The bound is exceeded during a drain (trim never evicts what the current
 * generation uses), but not without limit: past twice the limit no table
 * is loaded and no perf map grows until collect has trimmed (counted in
 * budget_refused; the frame is named by its module meanwhile).
 */
static bool
over_budget(struct symbolizer *s)
{
	size_t now = sym_cache_bytes(s->cache) + sym_procs_bytes(s->procs) +
		     sym_kernel_bytes(s->kernel);

	return now > 2 * s->limit;
}

static void
name_file_frame(struct symbolizer *s, struct sym_proc *p, struct sym_map *m,
		uint64_t ip, char *buf, size_t len)
{
	struct sym_elf *e = m->elf;
	uint64_t vaddr;
	long i;

	if (!m->tried && over_budget(s)) {
		s->cnt.budget_refused++;
		put_module(s, buf, len, m->path);	/* tried again next generation */
		return;
	}
	if (!m->tried) {
		e = sym_proc_map_elf(p, m, s->cache, &s->cnt);
		s->need_trim = true;
	}
	if (e && sym_elf_offset_to_vaddr(e, ip - m->start + m->pgoff, &vaddr) &&
	    (i = sym_list_find(&e->list, vaddr)) >= 0) {
		put_name(buf, len, m->is_exe ? "" : "[l] ", sym_list_name(&e->list, i));
		return;
	}
	put_module(s, buf, len, m->path);	/* "[/path]", or "[vdso]" as is */
	if (e != NULL && m->kind == SYM_MAP_FILE && e->debug_gen != s->gen) {
		char root[64];
		snprintf(root, sizeof(root), "/proc/%d/root", (int)p->pid);
		sym_debug_note_miss(e, root, s->gen);	/* a -dbgsym installed since */
	}
	sym_debuginfod_note_miss(s->debuginfod, e, s->gen);	/* named from a later interval */
}

static void
name_anon_frame(struct symbolizer *s, struct sym_proc *p, struct sym_map *m,
		uint64_t ip, char *buf, size_t len)
{
	size_t before = sym_perfmap_bytes(p->perfmap);
	bool may_grow = !over_budget(s);
	const char *name = sym_perfmap_find(p, ip, s->gen, may_grow, &s->cnt);
	size_t after = sym_perfmap_bytes(p->perfmap);

	if (after != before) {
		sym_procs_add_bytes(s->procs, p, (ssize_t)(after - before));
		s->need_trim = true;
	}
	if (!may_grow)
		s->cnt.budget_refused++;
	if (name) {
		put_name(buf, len, "", name);
		return;
	}
	/* JIT code without a perf map: one stable name per kind, not per address */
	s->cnt.misses++;
	if (m->kind == SYM_MAP_MEMFD)
		snprintf(buf, len, "[unknown] [%s]", m->path + 1);
	else
		snprintf(buf, len, "[unknown] [anon]");
	frame_name_sanitize(buf);
}

static void trim(struct symbolizer *s);
static void refresh_young(struct symbolizer *s, uint64_t now);

static void
put_python_unknown(struct symbolizer *s, char *buf, size_t len)
{
	s->cnt.misses++;
	s->python.unnamed++;
	snprintf(buf, len, "[unknown] [python]");
}

/* A Python frame (SP_INTERP_TAG): named from its code object. */
static void
name_python_frame(struct symbolizer *s, struct sym_proc *p, uint64_t ip, char *buf, size_t len)
{
	size_t before = sym_python_bytes(p->python);

	if (!sym_python_name(p, ip, buf, len, &s->python))
		s->cnt.misses++;
	sym_procs_add_bytes(s->procs, p, (ssize_t)sym_python_bytes(p->python) - (ssize_t)before);
}

int
symbolizer_python_record(struct symbolizer *s, pid_t tgid, struct sp_python_proc *rec)
{
	struct sym_proc *p = proc_for(s, tgid);
	size_t before;
	int err;

	if (!p)
		return -ESRCH;
	before = sym_python_bytes(p->python);
	err = sym_python_detect(p, rec, &s->python);
	sym_procs_add_bytes(s->procs, p, (ssize_t)sym_python_bytes(p->python) - (ssize_t)before);
	return err;
}

void
symbolizer_python_stats(const struct symbolizer *s, struct symbolizer_python_stats *st)
{
	*st = s->python;
}

bool
symbolize_user(struct symbolizer *s, pid_t tgid, uint64_t ip, char *buf, size_t len)
{
	struct sym_proc *p;
	struct sym_map *m;
	bool code = true;

	s->cnt.user_lookups++;
	p = proc_for(s, tgid);
	if (ip & SP_INTERP_TAG) {
		if (p)
			name_python_frame(s, p, ip, buf, len);
		else
			put_python_unknown(s, buf, len);
		goto out;
	}
	if (p == NULL) {
		put_unknown(s, buf, len, ip);
		goto out;
	}
	m = sym_proc_find_map(p, ip);
	if (m == NULL && p->maps_gen != s->gen && !p->dead_gen) {
		/* mapped since we read the maps (dlopen, new JIT region)? */
		sym_procs_reread(s->procs, s->cache, p, s->gen);
		s->need_trim = true;
		m = sym_proc_find_map(p, ip);
	}
	if (m == NULL) {
		put_unknown(s, buf, len, ip);
		code = false;
		goto out;
	}
	switch (m->kind) {
	case SYM_MAP_FILE:
	case SYM_MAP_VDSO:
		name_file_frame(s, p, m, ip, buf, len);
		break;
	case SYM_MAP_ANON:
	case SYM_MAP_MEMFD:
		name_anon_frame(s, p, m, ip, buf, len);
		break;
	case SYM_MAP_SPECIAL:
		s->cnt.misses++;
		put_name(buf, len, "", m->path);
		break;
	}
out:
	if (s->need_trim)
		trim(s);
	return code;
}

void
symbolizer_note_process(struct symbolizer *s, pid_t tgid)
{
	struct sym_proc *p = sym_procs_get(s->procs, tgid);
	struct sym_ident now;

	if (s->nyoung > 0)
		refresh_young(s, clock_mono_ns());
	/* at most one /proc read per process and generation */
	if (p && p->checked_gen == s->gen)
		return;
	if (p) {
		bool alive = sym_proc_ident(tgid, &now);
		p->checked_gen = s->gen;
		if (!alive)
			return;		/* gone: keep what we had for its late samples */
		if (!p->lost && sym_ident_equal(&now, &p->id))
			return;
	}
	capture(s, tgid);
	trim(s);
}

static enum symbolizer_map_kind
public_kind(enum sym_map_kind k)
{
	return k == SYM_MAP_FILE ? SYMBOLIZER_MAP_FILE :
	       k == SYM_MAP_VDSO ? SYMBOLIZER_MAP_VDSO : SYMBOLIZER_MAP_OTHER;
}

int
symbolizer_mappings(struct symbolizer *s, pid_t tgid,
		    void (*fn)(void *arg, const struct symbolizer_mapping *m), void *arg)
{
	struct sym_proc *p = proc_for(s, tgid);	/* used now: trim keeps it */

	if (s->need_trim)
		trim(s);
	if (p == NULL)
		return -ESRCH;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct sym_map *m = &p->maps[i];
		struct symbolizer_mapping pm = {
			.start = m->start, .end = m->end, .pgoff = m->pgoff,
			.dev = m->dev, .ino = m->ino, .kind = public_kind(m->kind),
			.path = m->kind == SYM_MAP_FILE ? m->path : NULL,
		};
		fn(arg, &pm);
	}
	return (int)p->nmaps;
}

int
symbolizer_reread_mappings(struct symbolizer *s, pid_t tgid)
{
	struct sym_proc *p = sym_procs_get(s->procs, tgid);
	bool ok;

	if (p == NULL || p->dead_gen)
		return proc_for(s, tgid) ? 0 : -ESRCH;
	ok = sym_procs_reread(s->procs, s->cache, p, s->gen);
	s->need_trim = true;
	trim(s);
	return ok ? 0 : -ESRCH;
}

/* The live entry of tgid whose maps hold m as it was handed out. */
static const struct sym_map *
entry_map(struct symbolizer *s, pid_t tgid, const struct symbolizer_mapping *m,
	  struct sym_proc **pp)
{
	struct sym_proc *p = sym_procs_get(s->procs, tgid);
	struct sym_map *sm;

	if (p == NULL || p->lost || (sm = sym_proc_find_map(p, m->start)) == NULL ||
	    sm->start != m->start || sm->end != m->end || sm->pgoff != m->pgoff)
		return NULL;
	*pp = p;
	return sm;
}

int
symbolizer_open_mapping(struct symbolizer *s, pid_t tgid, const struct symbolizer_mapping *m)
{
	struct sym_proc *p;
	const struct sym_map *sm = entry_map(s, tgid, m, &p);
	int fd;

	if (sm == NULL || sm->kind != SYM_MAP_FILE)
		return -ENOENT;
	if ((fd = sym_proc_open_map(p, sm)) < 0) {
		s->cnt.proc_errors++;
		return -ENOENT;
	}
	return fd;
}

int
symbolizer_read_vdso(struct symbolizer *s, pid_t tgid, const struct symbolizer_mapping *m,
		     void **image, size_t *len)
{
	struct sym_proc *p;
	const struct sym_map *sm = entry_map(s, tgid, m, &p);

	if (sm == NULL || sm->kind != SYM_MAP_VDSO)
		return -ENOENT;
	if ((*image = sym_vdso_image(tgid, sm->start, sm->end)) == NULL) {
		s->cnt.proc_errors++;
		return -EIO;
	}
	*len = sm->end - sm->start;
	return 0;
}

/* Re-read the maps of young processes that are due; forget finished ones. */
static void
refresh_young(struct symbolizer *s, uint64_t now)
{
	int i, out = 0;

	for (i = 0; i < s->nyoung; i++) {
		struct young y = s->young[i];
		struct sym_proc *p = sym_procs_get(s->procs, y.pid);
		bool keep = p && !p->lost && sym_ident_equal(&p->id, &y.id);

		if (keep && now - y.exec_ns >= young_after_ns[y.tries]) {
			y.tries++;
			keep = sym_procs_reread(s->procs, s->cache, p, s->gen);
			s->need_trim = true;
			/* grown: the loader has mapped the libraries */
			if (keep && p->nmaps > y.nmaps)
				keep = false;
			else if (keep)
				y.nmaps = p->nmaps;
			if (y.tries >= YOUNG_TRIES)
				keep = false;
		}
		if (keep)
			s->young[out++] = y;
	}
	s->nyoung = out;
}

void
symbolizer_tick(struct symbolizer *s)
{
	if (s->nyoung > 0)
		refresh_young(s, clock_mono_ns());
	if (s->need_trim)
		trim(s);
}

int
symbolizer_timeout_ms(const struct symbolizer *s)
{
	uint64_t now, next = UINT64_MAX;

	if (s->nyoung == 0)
		return -1;
	now = clock_mono_ns();
	for (int i = 0; i < s->nyoung; i++) {
		uint64_t due = s->young[i].exec_ns + young_after_ns[s->young[i].tries];
		if (due < next)
			next = due;
	}
	return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
}

void
symbolizer_note_exec(struct symbolizer *s, pid_t tgid)
{
	uint64_t now = clock_mono_ns();
	struct sym_proc *p;

	if (s->nyoung > 0)
		refresh_young(s, now);
	p = capture(s, tgid);
	if (p && !p->lost && s->nyoung < YOUNG_MAX)
		s->young[s->nyoung++] = (struct young){
			.pid = tgid, .id = p->id, .exec_ns = now, .nmaps = p->nmaps,
		};
	trim(s);
}

/* Over budget: drop unused ELF tables, then the least recently used
 * processes (releasing their tables), until we fit.  Processes looked up in
 * the current generation stay: evicting them mid-drain would reload the
 * same tables stack after stack (thrashing), so the bound is exceeded until
 * the next collect instead, and that is visible in cache_bytes. */
static void
trim(struct symbolizer *s)
{
	size_t fixed;
	struct sym_proc *p;

	s->need_trim = false;
	for (;;) {
		fixed = sym_procs_bytes(s->procs) + sym_kernel_bytes(s->kernel);
		size_t room = s->limit > fixed ? s->limit - fixed : 0;
		if (sym_cache_trim(s->cache, room, &s->cnt.cache_evictions) <= room)
			return;
		if ((p = sym_procs_oldest(s->procs)) == NULL || p->used_gen == s->gen)
			return;
		sym_procs_drop(s->procs, s->cache, p);
		s->cnt.cache_evictions++;
	}
}

void
symbolizer_collect(struct symbolizer *s)
{
	struct sym_proc *p, *next;

	if (s->nyoung > 0)
		refresh_young(s, clock_mono_ns());
	/* between drains: names from fetched debug files start with the next */
	if (sym_debug_apply(s->cache) + sym_debuginfod_apply(s->debuginfod, s->cache) > 0)
		s->need_trim = true;
	s->gen++;
	for (p = sym_procs_oldest(s->procs); p; p = next) {
		next = sym_procs_newer(s->procs, p);
		if (p->dead_gen) {
			/* kept one generation so late samples still find it */
			if (s->gen - p->dead_gen > 1)
				sym_procs_drop(s->procs, s->cache, p);
		} else {
			struct sym_ident now;
			/* exited, or exec'd another image; checked_gen stays old so
			 * the next lookup looks for a successor image once */
			if (!sym_proc_ident(p->pid, &now) || !sym_ident_equal(&now, &p->id))
				p->dead_gen = s->gen;
			else
				p->checked_gen = s->gen;
		}
	}
	/* the byte bound alone would keep the tables of every binary seen
	 * since start, e.g. a browser's after it exited: memory should follow
	 * the processes running now */
	if (sym_cache_expire(s->cache, clock_mono_ns(), s->idle_ns, &s->cnt.cache_evictions) > 0)
		malloc_trim(0);		/* large tables were mmap'ed; the rest is heap */
	trim(s);
}

void
symbolizer_set_cache_idle(struct symbolizer *s, uint64_t idle_ns)
{
	s->idle_ns = idle_ns;
}

void
symbolizer_get_stats(const struct symbolizer *s, struct symbolizer_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->kernel_lookups = s->cnt.kernel_lookups;
	st->user_lookups = s->cnt.user_lookups;
	st->misses = s->cnt.misses;
	st->lost_processes = s->cnt.lost_processes;
	st->cache_hits = s->cnt.cache_hits;
	st->cache_misses = s->cnt.cache_misses;
	st->cache_evictions = s->cnt.cache_evictions;
	st->cache_bytes = sym_cache_bytes(s->cache) + sym_procs_bytes(s->procs) +
			  sym_kernel_bytes(s->kernel);
	st->elf_errors = s->cnt.elf_errors;
	st->debug_mismatches = s->cnt.debug_mismatches;
	st->perfmap_bad_lines = s->cnt.perfmap_bad_lines;
	st->proc_errors = s->cnt.proc_errors;
	st->elf_refused = s->cnt.elf_refused;
	st->perfmap_refused = s->cnt.perfmap_refused;
	st->maps_truncated = sym_procs_truncated(s->procs);
	st->budget_refused = s->cnt.budget_refused;
	st->processes = sym_procs_count(s->procs);
	sym_debuginfod_stats(s->debuginfod, st);
}

int
symbolizer_debuginfod_setup(struct symbolizer *s, const struct symbolizer_debuginfod_config *cfg)
{
	int err;

	if (s->debuginfod != NULL)
		return -EBUSY;
	s->debuginfod = sym_debuginfod_new(cfg, &err);
	return s->debuginfod ? 0 : err;
}

int
symbolizer_set_debuginfod(struct symbolizer *s, const char *urls)
{
	return sym_debuginfod_set_urls(s->debuginfod, urls);
}
