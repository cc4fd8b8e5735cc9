/*
 * control_table.c - the rows of the control table (see controls.h).
 *
 * A new control is a row here (an item never used before: archives hold
 * them), its setter in agent.c, and its entries in help/help, help/pmns
 * and docs/pmdastackprof.1; test_controls fails until the docs agree with
 * the row.  Bounds and parsers are control_parse.c's pure validators.
 */
#include <stddef.h>
#include "agent_priv.h"
#include "controls.h"

#define FIELD(f)	offsetof(struct agent_config, f)

static int
parse_process(struct control_value *v)
{
	return control_parse_regex(v->text, &v->regex, v->why, sizeof(v->why));
}

static int
parse_pids(struct control_value *v)
{
	return control_parse_pids(v->text, &v->pids, &v->npids);
}

static int
parse_unwind(struct control_value *v)
{
	return control_parse_unwind(v->text, &v->u);
}

static int
parse_urls(struct control_value *v)
{
	return control_parse_urls(v->text, &v->u);
}

const struct control controls[] = {
	{
		.name = "enabled", .item = 0, .type = CONTROL_U32,
		.min = 0, .max = 1, .bounds = "0 or 1", .def = "1",
		.set = agent_set_enabled, .field = FIELD(enabled),
		.argname = "0|1",
		.doc = "sampling on (1) or off (0, BPF detached)",
	},
	{
		.name = "frequency", .item = 1, .type = CONTROL_U32, .units = CONTROL_UNITS_HZ,
		.min = 1, .max = 1000, .def = "99",
		.set = agent_set_frequency, .field = FIELD(frequency_hz),
		.opt = 'F', .argname = "HZ",
		.doc = "per-CPU sampling rate in Hz",
	},
	{
		.name = "process", .item = 2, .type = CONTROL_STRING,
		.max = CONTROL_TEXT_MAX, .parse = parse_process,
		.bounds = "a PCRE2 regex of at most 4096 bytes", .def = "",
		.set = agent_set_process, .field = FIELD(process_regex),
		.argname = "REGEX",
		.doc = "regex over comm and command line selecting processes",
	},
	{
		.name = "pids", .item = 3, .type = CONTROL_STRING,
		.max = CONTROL_TEXT_MAX, .parse = parse_pids,
		.bounds = "at most 1024 PIDs", .def = "",
		.set = agent_set_pids, .field = FIELD(pids_text),
		.argname = "PID,...",
		.doc = "comma-separated PIDs to sample",
	},
	{
		.name = "interval", .item = 4, .type = CONTROL_U32, .units = CONTROL_UNITS_MSEC,
		.min = 100, .max = 60000, .def = "1000",
		.set = agent_set_interval, .field = FIELD(interval_ms),
		.opt = 'I', .argname = "MS",
		.doc = "drain interval in milliseconds",
	},
	{
		.name = "heatmap_slots", .item = 5, .type = CONTROL_U32,
		.min = 1, .max = 1000, .check = control_check_slots,
		.bounds = "a divisor of 1000", .def = "50",
		.set = agent_set_heatmap_slots, .field = FIELD(heatmap_slots),
		.opt = 's', .argname = "N",
		.doc = "heat map slices of a second",
	},
	{
		.name = "unwind", .item = 6, .type = CONTROL_STRING,
		.max = 4, .parse = parse_unwind,
		.bounds = "auto or fp", .def = "auto",
		.set = agent_set_unwind, .field = FIELD(unwind),
		.argname = "auto|fp",
		.doc = "user stacks walked with unwind tables where they exist (auto) or frame pointers only (fp)",
	},
	{
		.name = "debuginfod", .item = 7, .type = CONTROL_STRING,
		.max = CONTROL_TEXT_MAX, .parse = parse_urls,
		.bounds = "at most 8 http or https URLs", .def = "",
		.def_env = "DEBUGINFOD_URLS",
		.set = agent_set_debuginfod, .field = FIELD(debuginfod_urls),
		.argname = "URLS",
		.doc = "debuginfod servers asked for the debug files of stripped binaries",
	},
	{
		.name = "offcpu", .item = 8, .type = CONTROL_U32,
		.min = 0, .max = 1, .bounds = "0 or 1", .def = "0",
		.set = agent_set_offcpu, .field = FIELD(offcpu),
		.argname = "0|1",
		.doc = "off-CPU profile on (1) or off (0, sched_switch detached)",
	},
	{
		.name = "offcpu_min_us", .item = 9, .type = CONTROL_U32, .units = CONTROL_UNITS_USEC,
		.min = 0, .max = 1000000, .def = "1000",
		.set = agent_set_offcpu_min_us, .field = FIELD(offcpu_min_us),
		.argname = "US",
		.doc = "off-CPU blocks this many microseconds or longer are all counted",
	},
	{
		.name = "offcpu_sample", .item = 13, .type = CONTROL_U32,
		.units = CONTROL_UNITS_COUNT,
		.min = 0, .max = 1000000, .def = "0",
		.set = agent_set_offcpu_sample, .field = FIELD(offcpu_sample),
		.argname = "N",
		.doc = "one in N shorter off-CPU blocks is counted, as N times its length "
		       "(0: none)",
	},
	{
		.name = "offwake", .item = 15, .type = CONTROL_U32,
		.min = 0, .max = 1, .bounds = "0 or 1", .def = "0",
		.set = agent_set_offwake, .field = FIELD(offwake),
		.argname = "0|1",
		.doc = "off-wake profile on (1: the waker's stacks of off-CPU blocks, while "
		       "offcpu is 1) or off (0, sched_waking detached)",
	},
	{
		.name = "pagefault", .item = 10, .type = CONTROL_U32,
		.min = 0, .max = 1, .bounds = "0 or 1", .def = "0",
		.set = agent_set_pagefault, .field = FIELD(pagefault),
		.argname = "0|1",
		.doc = "page-fault profile on (1) or off (0, perf events closed)",
	},
	{
		.name = "pagefault_period", .item = 11, .type = CONTROL_U32,
		.units = CONTROL_UNITS_COUNT,
		.min = 1, .max = 1000000, .def = "100",
		.set = agent_set_pagefault_period, .field = FIELD(pagefault_period),
		.argname = "N",
		.doc = "one page fault in N is sampled and counted as N",
	},
	{
		.name = "interpreters", .item = 12, .type = CONTROL_U32,
		.min = 0, .max = 1, .bounds = "0 or 1", .def = "1",
		.set = agent_set_interpreters, .field = FIELD(interpreters),
		.argname = "0|1",
		.doc = "interpreter (CPython) frames in user stacks (1) or native frames only (0)",
	},
	{
		.name = "keyframe_s", .item = 14, .type = CONTROL_U32, .units = CONTROL_UNITS_SEC,
		.min = 0, .max = 86400, .def = "1800",
		.set = agent_set_keyframe_s, .field = FIELD(keyframe_s),
		.argname = "S",
		.doc = "every S seconds each history client is told again the definitions it "
		       "uses, so a reader can start there (0: never)",
	},
};

const size_t	ncontrols = sizeof(controls) / sizeof(controls[0]);

/* which controls are stored is a 64-bit mask (struct agent) */
_Static_assert(sizeof(controls) / sizeof(controls[0]) <= 64, "more than 64 controls");
