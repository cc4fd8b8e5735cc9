/*
 * test_cfi_fuzzed.c - what fuzz_cfi found in the CFI compiler, one test per
 * finding, rebuilt from the committed seeds (qa/fuzz/corpus/cfi) and the
 * one defect the fuzzer put in them.  The fuzzer's inputs are in
 * qa/fuzz/corpus/cfi/found-*, which `make fuzz` replays.
 */
#include "unit.h"
#include "sym_testlib.h"
#include "cfi_testlib.h"

#define SEED	"qa/fuzz/corpus/cfi/ok-nohdr.elf"

/* .eh_frame that ends before its first entry (a zero terminator first), in
 * a file without .eh_frame_hdr: the scan found no FDE and sorted a NULL
 * array, UB that UBSan stops on (qsort's first argument is nonnull). */
static void
test_eh_frame_without_fdes(void)
{
	uint64_t			addr, off, size;
	size_t				len;
	unsigned char			*img = slurp(SEED, &len);
	struct unwind_table		t = { 0 };
	struct unwind_build_stats	st;
	char				err[256] = "";

	CHECK(!cfi_section(SEED, ".eh_frame_hdr", &addr, &off, &size));
	if (!cfi_section(SEED, ".eh_frame", &addr, &off, &size) || off + 4 > len) {
		CHECK(!"no .eh_frame in " SEED);
		return;
	}
	memset(img + off, 0, 4);
	CHECK_INT(unwind_table_build_mem(img, len, &t, &st, err, sizeof(err)), 0);
	CHECK_INT(t.nrows, 0);
	unwind_table_free(&t);
	free(img);
}

int
main(void)
{
	elf_version(EV_CURRENT);
	test_eh_frame_without_fdes();
	return unit_report("test_cfi_fuzzed");
}
