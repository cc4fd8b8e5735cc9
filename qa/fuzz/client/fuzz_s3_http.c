/*
 * fuzz_s3_http.c - what pmflame makes of an S3 server's answer
 * (client/publish/s3_http.c): the error document's Code and Message, and
 * the outcome (retry, give up, absent) from them and the HTTP status.
 *
 * Input: 2 bytes of HTTP status (little-endian, 0 = no response), 1 byte of
 * curl error code, then the response body.  The body is NUL-terminated, as
 * the membuf it arrives in always is.
 */
#include "fuzz.h"
#include "publish/s3_http.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long		status = fuzz_byte(&data, &size);
	int		curl_code;
	const char	*doc[1];
	char		*copy, code[128], msg[512];
	enum s3_outcome	out;

	status |= (long)fuzz_byte(&data, &size) << 8;
	curl_code = (int)fuzz_byte(&data, &size);
	copy = fuzz_split(data, size, doc, 1);
	s3_error_field(status >= 300 ? doc[0] : NULL, "Code", code, sizeof(code));
	s3_error_field(status >= 300 ? doc[0] : NULL, "Message", msg, sizeof(msg));
	if (strlen(code) >= sizeof(code) || strlen(msg) >= sizeof(msg))
		abort();
	out = s3_classify(status, curl_code, code[0] ? code : NULL);
	if ((status >= 200 && status < 300) != (out == S3_OK))
		abort();
	if (status >= 500 && out != S3_TRANSIENT)
		abort();
	free(copy);
	return 0;
}
