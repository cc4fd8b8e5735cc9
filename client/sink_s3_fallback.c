/*
 * sink_s3_fallback.c - weak stand-ins for the S3 sink, so pmflame links
 * and says so clearly when sink_s3.c is not part of the build.
 *
 * Why a file of its own: the linker takes a member out of libflame.a only
 * to resolve a still-undefined symbol, and never to replace a weak
 * definition.  Had sink.c held these, the real sink_s3.o would never be
 * linked.  This file sorts after sink_s3.c in the archive, so the strong
 * definitions win whenever they exist.
 */
#include <stdio.h>
#include "sink.h"

__attribute__((weak)) struct sink *
sink_s3_open(const char *url, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: S3 support not built into this pmflame", url);
	return NULL;
}

__attribute__((weak)) int
sink_s3_flush_spool(char *err, size_t errlen)
{
	snprintf(err, errlen, "S3 support not built into this pmflame");
	return -1;
}
