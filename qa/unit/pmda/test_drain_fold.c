/*
 * test_drain_fold - a sampled stack is folded root first: user frames
 * outermost first, then kernel frames outermost first, named by the real
 * symbolizer; a user stack is cut at a return address outside code; a
 * stack with no frames still gets one; an off-wake stack carries its
 * waker above "--", innermost first, its thread name on top.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "agent/drain.h"
#include "sampler/sampler.h"
#include "symbolizer/symbolize.h"

/* noinline, global: real functions with symbols in this executable */
static volatile int	sink;
__attribute__((noinline)) void fold_outer(void) { for (int i = 0; i < 8; i++) sink += i * 3; }
__attribute__((noinline)) void fold_inner(void) { for (int i = 0; i < 8; i++) sink += i * 5; }
__attribute__((noinline)) void wake_outer(void) { for (int i = 0; i < 8; i++) sink += i * 7; }
__attribute__((noinline)) void wake_inner(void) { for (int i = 0; i < 8; i++) sink += i * 11; }

int
main(void)
{
	struct symbolizer	*sym = symbolizer_new(8u << 20);
	struct sp_stack_key	key = { .tgid = (uint32_t)getpid(), .tid = (uint32_t)getpid() };
	/* innermost first, as the kernel records them; +4 stays inside */
	uint64_t		user[2] = { (uint64_t)(uintptr_t)fold_inner + 4,
					    (uint64_t)(uintptr_t)fold_outer + 4 };
	struct sampled_stack	st = { .key = &key, .count = 3, .user_ips = user, .nuser = 2 };
	char			*buf = NULL;
	size_t			cap = 0;

	CHECK(sym != NULL);
	symbolizer_note_process(sym, (pid_t)key.tgid);
	CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
	CHECK_STR(buf, "fold_outer;fold_inner");

	/* kernel frames follow the user ones; their names start "[k] " */
	{
		uint64_t	kernel[1] = { 0xffffffffffff0000ull };
		char		*semi;

		st.kernel_ips = kernel;
		st.nkernel = 1;
		CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
		CHECK(strncmp(buf, "fold_outer;fold_inner;", 22) == 0);
		semi = strrchr(buf, ';');
		CHECK(semi != NULL && semi[1] == '[');
	}

	/* a return address in no mapping (what a frame-pointer walk reads in
	 * code without frame pointers) ends the user stack: the frames past
	 * it are left out and the root says "[unknown]"; kernel frames stay */
	{
		uint64_t	walked[4] = { user[0], 0x10, user[1], 0x5dfb700000003ull };

		st.user_ips = walked;
		st.nuser = 4;
		st.nkernel = 0;
		CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 1);
		CHECK_STR(buf, "[unknown];fold_inner");
		/* the leaf is the sampled pc itself: kept by its address */
		walked[0] = 0x10;
		walked[1] = user[0];
		st.nuser = 2;
		CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
		CHECK_STR(buf, "fold_inner;[unknown] 0x0000000000000010");
		st.user_ips = user;
	}

	/* off-wake: the blocked frames, "--", the waker's kernel frames as
	 * recorded (the wake first), its user frames innermost first, its
	 * thread name last (a full 16-byte comm, not NUL-terminated) */
	{
		uint64_t		wuser[2] = { (uint64_t)(uintptr_t)wake_inner + 4,
						     (uint64_t)(uintptr_t)wake_outer + 4 };
		uint64_t		wkernel[1] = { 0xffffffffffff0000ull };
		struct sp_wake_key	wake = { .waker_tgid = (uint32_t)getpid() };
		const char		*sep;

		memcpy(wake.waker_comm, "producer;thread1", SP_COMM_LEN);
		st.wake = &wake;
		st.waker_user_ips = wuser;
		st.nwaker_user = 2;
		CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
		CHECK_STR(buf, "fold_outer;fold_inner;--;wake_inner;wake_outer;producer,thread1");
		/* kernel frames go between the separator and the user ones */
		st.waker_kernel_ips = wkernel;
		st.nwaker_kernel = 1;
		CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
		sep = strstr(buf, ";--;");
		CHECK(sep != NULL && strncmp(buf, "fold_outer;fold_inner;--;[", 26) == 0);
		CHECK(sep != NULL && strstr(sep, ";wake_inner;wake_outer;producer,thread1") != NULL);
		/* a waker's user stack cut at a non-code address: "[unknown]"
		 * ends its user part, its name still on top, counted as cut */
		{
			uint64_t	cut[3] = { wuser[0], 0x10, wuser[1] };

			st.waker_user_ips = cut;
			st.nwaker_user = 3;
			st.nwaker_kernel = 0;
			CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 1);
			CHECK_STR(buf, "fold_outer;fold_inner;--;wake_inner;[unknown];producer,thread1");
		}
		/* a waker with no stacks (an idle CPU's interrupt): the separator
		 * and its name; a blocked stack lost keeps its "[unknown]" */
		st.nwaker_user = 0;
		st.nuser = 0;
		CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
		CHECK_STR(buf, "[unknown];--;producer,thread1");
		st.wake = NULL;
		st.nuser = 2;
	}

	/* both stacks lost: the samples still show, as one frame */
	st.nuser = st.nkernel = 0;
	CHECK_INT(drain_fold_stack(sym, &st, &buf, &cap), 0);
	CHECK_STR(buf, "[unknown]");

	free(buf);
	symbolizer_free(sym);
	return unit_report("test_drain_fold");
}
