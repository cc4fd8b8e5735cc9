# qa/fuzz/fuzz.mk - libFuzzer harnesses (included by GNUmakefile).
#
#   make fuzz FUZZ_SECONDS=N   build every harness into build-fuzz/fuzz/, then
#                              run each for N seconds (qa/fuzz/run); non-zero
#                              exit on any crash, leak, hang or memory blow-up
#
# A harness is qa/fuzz/pmda/fuzz_NAME.c or qa/fuzz/client/fuzz_NAME.c, linked
# against its side's libraries only (the PMDA's without the sampler: no BPF
# skeleton is needed).  Its seeds are qa/fuzz/corpus/NAME/; a new file joins
# without editing this one.

FUZZ_SECONDS	?= 60
FUZZ_PMDA_SRCS	:= $(wildcard qa/fuzz/pmda/fuzz_*.c)
FUZZ_CLIENT_SRCS := $(wildcard qa/fuzz/client/fuzz_*.c)
FUZZ_NAMES	:= $(sort $(patsubst fuzz_%.c,%,$(notdir $(FUZZ_PMDA_SRCS) $(FUZZ_CLIENT_SRCS))))

.PHONY: fuzz fuzz-build
fuzz:
	@$(MAKE) --no-print-directory FUZZ=1 fuzz-build
	qa/fuzz/run $(FUZZ_SECONDS) $(FUZZ_NAMES)

ifeq ($(FUZZ),1)
FUZZ_PMDA_ARS	:= $(filter-out %/sampler.a,$(PMDA_ARS))
FUZZ_PMDA_BINS	:= $(FUZZ_PMDA_SRCS:qa/fuzz/pmda/%.c=$(BUILD)/fuzz/%)
FUZZ_CLIENT_BINS := $(FUZZ_CLIENT_SRCS:qa/fuzz/client/%.c=$(BUILD)/fuzz/%)

fuzz-build: $(FUZZ_PMDA_BINS) $(FUZZ_CLIENT_BINS)

$(BUILD)/fuzz/%: qa/fuzz/pmda/%.c qa/fuzz/fuzz.h $(FUZZ_PMDA_ARS)
	@mkdir -p $(@D)
	$(CC) -I. -Ipmda -Ibpf -Iqa/fuzz $(CFLAGS) -fsanitize=fuzzer $(DEPFLAGS) -o $@ $< \
		-Wl,--start-group $(FUZZ_PMDA_ARS) -Wl,--end-group $(PMDA_LIBS)

$(BUILD)/fuzz/%: qa/fuzz/client/%.c qa/fuzz/fuzz.h $(CLIENT_ARS)
	@mkdir -p $(@D)
	$(CC) -I. -Iclient -Iqa/fuzz $(CFLAGS) -fsanitize=fuzzer $(DEPFLAGS) -o $@ $< \
		-Wl,--start-group $(CLIENT_ARS) -Wl,--end-group $(CLIENT_LIBS) $(CLIENT_TEST_LIBS)
endif
