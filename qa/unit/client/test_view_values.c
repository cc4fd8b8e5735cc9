/*
 * test_view_values.c - an archive range's view file (emit/view_values.c):
 * a value per drain time, ascending, ids defined at their first use in the
 * file and never again, counts with their µs, each drain's heat slices as
 * the counters' differences (a restart a baseline, not a drain); a
 * process's file holds its records alone and no heat; names lose their
 * control characters, so lines stay lines; a forgotten host holds nothing;
 * a window past the bound of records gives a file that says so, empty.
 */
#include "unit.h"
#include "emit/view_values.h"

static void
add(struct view_values *v, const char *host, const char *proc, const char *comm, uint32_t pid,
    uint32_t tid, const char *stack, uint64_t count, double t)
{
	struct stack_sample	s = { .host = host, .process = proc, .thread = comm, .stack = stack,
				      .event = "on-cpu", .pid = pid, .tid = tid, .count = count,
				      .value_us = count * 10101, .time = t };

	CHECK_INT(view_values_add(v, &s), 0);
}

static void
heat(struct view_values *v, const char *host, double t, bool restart, uint64_t a, uint64_t b)
{
	uint64_t		vals[2] = { a, b };
	struct heat_counters	c = { .host = host, .time = t, .values = vals, .n = 2, .drain = 1,
				      .restart = restart };

	CHECK_INT(view_values_heat(v, &c), 0);
}

static char *
render(struct view_values *v, const char *host, uint32_t pid)
{
	struct profile	p = { .kind = PROFILE_FLAME, .host = (char *)host, .name = "Total",
			      .pid = pid, .start = 100, .end = 102 };
	struct data_gap	g = { NULL, 100.5, 101, "pmcd restarted" };
	struct membuf	m;

	membuf_init(&m);
	CHECK_INT(view_values_render(v, &p, "on-cpu", &g, 1, &m), 0);
	membuf_append(&m, "", 1);
	return m.data;
}

int
main(void)
{
	struct view_values	*v = view_values_new();
	char			*got;

	CHECK(v != NULL);
	add(v, "h1", "app", "worker", 7, 8, "main;;work", 3, 101.0);
	add(v, "h1", "app", "worker", 7, 8, "main;rest", 1, 102.0);
	add(v, "h1", "app", "worker", 7, 8, "main;;work", 2, 102.0);
	add(v, "h1", "other\nname", "x\ty", 9, 9, "main", 1, 101.5);
	add(v, "h2", "app", "worker", 7, 8, "main", 5, 101.0);
	heat(v, "h1", 100.0, true, 10, 10);	/* a baseline */
	heat(v, "h1", 101.0, false, 12, 15);
	heat(v, "h1", 102.0, false, 13, 15);
	heat(v, "h1", 103.0, false, 1, 0);	/* went back: a baseline again */
	got = render(v, "h1", 0);
	CHECK_STR(got, "{\"version\":1,\"host\":\"h1\",\"event\":\"on-cpu\","
		  "\"start\":100.000000,\"end\":102.000000,"
		  "\"gaps\":[{\"start\":100.500000,\"end\":101.000000,\"why\":\"pmcd restarted\"}],\"values\":[\n"
		  "\"drains 1 101.000000 hz 1000000\\nt 1 7 8 worker\\tapp\\nf 1 main\\nf 2 work\\n"
		  "s 1 1,2\\n1 1:3:30303\\nh 101.000000 2 2 5\",\n"
		  "\"drains 1 101.500000 hz 1000000\\nt 2 9 9 x\xef\xbf\xbdy\\tother\xef\xbf\xbdname\\n"
		  "s 2 1\\n2 2:1:10101\",\n"
		  "\"drains 1 102.000000 hz 1000000\\nf 3 rest\\ns 3 1,3\\n1 3:1:10101\\n1 1:2:20202\\n"
		  "h 102.000000 2 1 0\"\n]}\n");
	free(got);
	got = render(v, "h1", 9);	/* a process's: its records, no heat */
	CHECK(strstr(got, "\"drains 1 101.500000 hz 1000000\\nt 1 9 9 ") != NULL);
	CHECK(strstr(got, "h 10") == NULL && strstr(got, "worker") == NULL);
	free(got);
	view_values_forget(v, "h1");
	got = render(v, "h1", 0);
	CHECK(strstr(got, "\"values\":[\n]}") != NULL);
	free(got);
	got = render(v, "h2", 0);
	CHECK(strstr(got, "\"drains 1 101.000000 hz 1000000\\nt 1 7 8 worker\\tapp\\nf 1 main\\ns 1 1\\n1 1:5:50505\"") != NULL);
	free(got);
	view_values_free(v);

	/* the bound: 2^20 records kept, the next one told (1), the file empty */
	v = view_values_new();
	struct stack_sample	s = { .host = "h", .process = "p", .thread = "t", .stack = "a;b",
				      .pid = 1, .tid = 1, .count = 1, .value_us = 1 };
	int			sts = 0;
	unsigned		i;

	for (i = 0; i < (1u << 20) && sts == 0; i++) {
		s.time = 1000 + i * 0.001;
		sts = view_values_add(v, &s);
	}
	CHECK_INT(sts, 0);
	CHECK_INT(view_values_add(v, &s), 1);
	CHECK_INT(view_values_add(v, &s), 0);
	got = render(v, "h", 0);
	CHECK(strstr(got, "\"error\":\"range too long for the page: more than 1048576 records; "
			  "narrow it with -S/-T\",\"values\":[\n]}") != NULL);
	free(got);
	view_values_forget(v, "h");
	CHECK_INT(view_values_add(v, &s), 0);
	got = render(v, "h", 0);
	CHECK(strstr(got, "error") == NULL && strstr(got, "\\n1 1:1:1\"") != NULL);
	free(got);
	view_values_free(v);
	return unit_report("test_view_values");
}
