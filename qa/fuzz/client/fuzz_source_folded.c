/*
 * fuzz_source_folded.c - folded stacks as pmflame -i reads them
 * (client/source/source_folded.c), from a file (a memfd by path).  The
 * sampling rate takes the extremes pmflame accepts (1, 99 and 10^6 Hz)
 * depending on the input's length.  Beyond "no crash": every sample handed
 * over has a non-empty process name without ';', a stack, and a count
 * whose microseconds did not overflow; its frames, as the reader split
 * them, are the stack's non-empty frames in order.
 */
#include "fuzz.h"
#include "source/source.h"
#include "lib/hash.h"

static void
split_matches(const struct stack_sample *s)
{
	const char	*f = s->stack, *end = f + strlen(f), *semi;
	uint32_t	i = 0;

	if (s->frames == NULL)
		abort();
	for (; f <= end; f = semi + 1) {
		if ((semi = memchr(f, ';', (size_t)(end - f))) == NULL)
			semi = end;
		if (semi == f)
			continue;
		if (i >= s->frames->n || s->frames->lens[i] != (uint32_t)(semi - f) ||
		    memcmp(s->frames->names[i], f, (size_t)(semi - f)) != 0 ||
		    s->frames->hashes[i] != hash_bytes(f, (size_t)(semi - f)))
			abort();
		i++;
	}
	if (i != s->frames->n)
		abort();
}

static int
take(void *arg, const struct stack_sample *s)
{
	unsigned freq = *(unsigned *)arg;

	if (s->process == NULL || s->process[0] == '\0' || strchr(s->process, ';') ||
	    s->stack == NULL || s->count > UINT64_MAX / 1000000)
		abort();
	if (s->value_us < s->count / freq * 1000000)
		abort();	/* wrapped */
	split_matches(s);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned	rates[] = { 1, 99, 1000000 };
	unsigned		freq = rates[size % 3];
	char			path[32], err[512];
	int			fd = fuzz_memfd(data, size, path);

	source_folded_read(path, "host", freq, take, &freq, err, sizeof(err));
	close(fd);
	return 0;
}
