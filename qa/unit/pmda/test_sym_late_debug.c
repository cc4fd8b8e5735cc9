/*
 * test_sym_late_debug.c - a debug file installed while the program runs
 * (a -dbgsym package: /usr/lib/debug/.build-id/xx/rest.debug) names its
 * frames within two drains, without a restart: the first drain after it
 * appears finds it, the next names the frames (names change between drains
 * only); until then the frames are "[/path]".  Root only: the build-id tree is the
 * system's (the file has a build-id of its own and is removed after).
 */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include "unit.h"
#include "symbolizer/symbolize.h"
#include "pmda/sym_testlib.h"

static const char prog_src[] =
	"#include <stdio.h>\n#include <stdint.h>\n#include <unistd.h>\n"
	"const char salt[] __attribute__((used)) = SALT;\n"
	"__attribute__((noinline)) static int late_static(int x)\n"
	"{ volatile int s = 0; for (int i = 0; i < x; i++) s += i; return s; }\n"
	"int main(void) {\n"
	"  char c;\n"
	"  printf(\"%p late_static\\n\", (void *)(uintptr_t)late_static);\n"
	"  fflush(stdout);\n"
	"  return (int)read(0, &c, 1) + late_static(2);\n"
	"}\n";

int
main(void)
{
	char prog[512], want[600], dir[600], file[800], id[128] = "", cmd[700], name[256], buf[512];
	struct symbolizer *s;
	struct child c;
	unsigned long ip;
	FILE *p;

	if (geteuid() != 0 || access("/usr/lib/debug", W_OK) != 0)
		unit_skip("test_sym_late_debug", "needs root (writes /usr/lib/debug/.build-id)");
	snprintf(prog, sizeof(prog), "%s", spath("late"));
	write_file(spath("late.c"), prog_src);
	must_run("cc -O1 -g -DSALT='\"%d.%ld\"' -o %s %s", (int)getpid(), (long)time(NULL), prog,
		 spath("late.c"));
	snprintf(cmd, sizeof(cmd), "readelf -n %s | awk '/Build ID:/ { print $3 }'", prog);
	if ((p = popen(cmd, "r")) == NULL || fscanf(p, "%127s", id) != 1 || strlen(id) < 4)
		exit(2);
	pclose(p);
	must_run("objcopy --only-keep-debug %s %s.debug && strip --strip-all %s", prog, prog, prog);
	snprintf(dir, sizeof(dir), "/usr/lib/debug/.build-id/%.2s", id);
	snprintf(file, sizeof(file), "%s/%s.debug", dir, id + 2);

	char *argv[] = { prog, NULL };
	c = child_start(argv);
	ip = child_addr(&c, name, sizeof(name));
	CHECK(ip != 0);
	s = symbolizer_new(64u << 20);
	snprintf(want, sizeof(want), "[%s]", prog);

	symbolize_user(s, c.pid, ip, buf, sizeof(buf));
	CHECK_STR(buf, want);
	symbolizer_collect(s);
	symbolize_user(s, c.pid, ip, buf, sizeof(buf));
	CHECK_STR(buf, want);		/* still nothing to find */

	/* installed during a drain that has looked already: the next drain
	 * finds it, the one after names the frames */
	must_run("mkdir -p %s && cp %s.debug %s", dir, prog, file);
	symbolize_user(s, c.pid, ip, buf, sizeof(buf));
	CHECK_STR(buf, want);
	symbolizer_collect(s);
	symbolize_user(s, c.pid, ip, buf, sizeof(buf));
	CHECK_STR(buf, want);		/* found in this drain: names change between drains */
	symbolizer_collect(s);
	symbolize_user(s, c.pid, ip, buf, sizeof(buf));
	CHECK_STR(buf, "late_static");	/* the main executable's: plain */
	symbolize_user(s, c.pid, ip + 1, buf, sizeof(buf));
	CHECK_STR(buf, "late_static");

	unlink(file);
	rmdir(dir);
	child_stop(&c);
	symbolizer_free(s);
	return unit_report("test_sym_late_debug");
}
