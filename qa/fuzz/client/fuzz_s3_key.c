/*
 * fuzz_s3_key.c - S3 names (client/publish/s3_key.c): the user's
 * s3://bucket/prefix, object keys joined from process and host names that
 * anyone can choose, the check a spooled entry's names pass before they
 * are sent anywhere, and the URL built from them.
 *
 * Input: NUL-separated target URL, relative path, endpoint.  Beyond "no
 * crash": a key made here passes s3_object_name_ok, stays under the prefix
 * and within S3's length, and the URL has no byte that needs quoting.
 */
#include "fuzz.h"
#include "publish/s3_config.h"
#include "publish/s3_key.h"

static void
check_url(const char *url, const char *endpoint)
{
	if (url == NULL)
		exit(2);
	/* everything after the endpoint was encoded by us */
	for (const char *p = url + strlen(endpoint); *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f || *p == '?' || *p == '#')
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*part[3];
	char			*copy = fuzz_split(data, size, part, 3), err[256], *key, *url;
	struct s3_target	t;
	struct s3_config	cfg = { .region = "us-east-1" };

	s3_object_name_ok(part[0], part[1]);
	if (s3_target_parse(part[0], &t, err, sizeof(err)) < 0) {
		free(copy);
		return 0;
	}
	if ((key = s3_key_join(&t, part[1], err, sizeof(err))) != NULL) {
		if (!s3_object_name_ok(t.bucket, key) || strlen(key) > S3_KEY_MAX ||
		    strncmp(key, t.prefix, strlen(t.prefix)) != 0)
			abort();
		cfg.endpoint = part[2][0] ? (char *)part[2] : NULL;
		url = s3_object_url(&cfg, t.bucket, key);
		check_url(url, cfg.endpoint ? cfg.endpoint : "https://");
		free(url);
		free(key);
	}
	s3_target_free(&t);
	free(copy);
	return 0;
}
