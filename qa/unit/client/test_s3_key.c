/*
 * test_s3_key.c - s3:// targets, object keys and URLs: hostile names stay
 * inside the prefix and reach S3 exactly as named; failures are sorted
 * into retry-later and a-person-must-act.
 */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include "publish/s3_config.h"
#include "publish/s3_http.h"
#include "publish/s3_key.h"
#include "unit.h"

static void
check_target(const char *url, const char *bucket, const char *prefix)
{
	struct s3_target	t;
	char			err[512];

	CHECK_INT(s3_target_parse(url, &t, err, sizeof(err)), 0);
	CHECK_STR(t.bucket, bucket);
	CHECK_STR(t.prefix, prefix);
	s3_target_free(&t);
}

static void
check_bad_target(const char *url, const char *why)
{
	struct s3_target	t;
	char			err[512] = "";

	CHECK_INT(s3_target_parse(url, &t, err, sizeof(err)), -1);
	if (!strstr(err, why))
		fprintf(stderr, "  %s: error \"%s\" lacks \"%s\"\n", url, err, why);
	CHECK(strstr(err, why) != NULL);
	CHECK(t.bucket == NULL && t.prefix == NULL);
}

static void
test_targets(void)
{
	char long_bucket[80];

	check_target("s3://bucket", "bucket", "");
	check_target("s3://bucket/", "bucket", "");
	check_target("s3://my-bucket.v2/flame", "my-bucket.v2", "flame/");
	check_target("s3://b0b/a/b/c/", "b0b", "a/b/c/");
	check_target("s3://abc/x y+z@", "abc", "x y+z@/");	/* encoded later, not refused */

	check_bad_target("http://bucket/p", "not an s3://bucket/prefix URL");
	check_bad_target("s3:/bucket", "not an s3://");
	check_bad_target("s3://", "not a valid S3 bucket name");
	check_bad_target("s3://ab/p", "not a valid S3 bucket name");
	check_bad_target("s3://Bucket/p", "not a valid S3 bucket name");
	check_bad_target("s3://bu_cket", "not a valid S3 bucket name");
	check_bad_target("s3://-bucket", "not a valid S3 bucket name");
	check_bad_target("s3://bucket-", "not a valid S3 bucket name");
	check_bad_target("s3://buc..ket", "not a valid S3 bucket name");
	check_bad_target("s3://buc.-ket", "not a valid S3 bucket name");
	check_bad_target("s3://192.168.1.1/p", "not a valid S3 bucket name");
	memset(long_bucket, 0, sizeof(long_bucket));
	strcpy(long_bucket, "s3://");
	memset(long_bucket + 5, 'a', 64);
	check_bad_target(long_bucket, "not a valid S3 bucket name");
	check_bad_target("s3://bucket/../etc", "\".\" or \"..\"");
	check_bad_target("s3://bucket/a/./b", "\".\" or \"..\"");
	check_bad_target("s3://bucket//a", "empty component");
	check_bad_target("s3://bucket/a//b", "empty component");
	check_bad_target("s3://bucket/a\nb", "control character");
}

static void
check_key(const struct s3_target *t, const char *rel, const char *want)
{
	char	err[512] = "", *key = s3_key_join(t, rel, err, sizeof(err));

	if (want) {
		CHECK_STR(key, want);
	} else {
		CHECK(key == NULL);
		CHECK(strstr(err, "object name") != NULL);
	}
	free(key);
}

static void
test_keys(void)
{
	struct s3_target	t = { "bucket", "flame/" }, bare = { "bucket", "" };
	char			huge[1100];

	check_key(&t, "host/proc/20261129T132050Z_20261129T132150Z.svg",
		  "flame/host/proc/20261129T132050Z_20261129T132150Z.svg");
	check_key(&bare, "index.html", "index.html");
	check_key(&t, "..", NULL);
	check_key(&t, "../escape", NULL);
	check_key(&t, "a/../../escape", NULL);
	check_key(&t, "/absolute", NULL);
	check_key(&t, "trailing/", NULL);
	check_key(&t, "a//b", NULL);
	check_key(&t, "", NULL);
	check_key(&t, "tab\there", NULL);
	check_key(&t, "del\x7f", NULL);
	check_key(&t, "...", "flame/...");		/* only "." and ".." are special */
	memset(huge, 'x', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	check_key(&t, huge, NULL);
}

static void
test_urls(void)
{
	struct s3_config	aws = { .region = "eu-west-3" };
	struct s3_config	local = { .region = "us-east-1", .endpoint = "http://127.0.0.1:4568" };
	char			*u;

	u = s3_object_url(&local, "bkt", "p/host/a b+c@d,e=f~g_h-i.svg");
	CHECK_STR(u, "http://127.0.0.1:4568/bkt/p/host/a%20b%2Bc%40d%2Ce%3Df~g_h-i.svg");
	free(u);
	u = s3_object_url(&local, "bkt", "p/\xc3\xa9t\xc3\xa9?#%.json");
	CHECK_STR(u, "http://127.0.0.1:4568/bkt/p/%C3%A9t%C3%A9%3F%23%25.json");
	free(u);
	u = s3_object_url(&aws, "bkt", "index.html");
	CHECK_STR(u, "https://bkt.s3.eu-west-3.amazonaws.com/index.html");
	free(u);
	u = s3_object_url(&aws, "my.bkt", "index.html");
	CHECK_STR(u, "https://s3.eu-west-3.amazonaws.com/my.bkt/index.html");
	free(u);
}

static void
test_sha256(void)
{
	char hex[65];

	s3_sha256_hex("", 0, hex);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	s3_sha256_hex("abc", 3, hex);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void
test_classify(void)
{
	CHECK_INT(s3_classify(200, CURLE_OK, NULL), S3_OK);
	CHECK_INT(s3_classify(204, CURLE_OK, NULL), S3_OK);
	CHECK_INT(s3_classify(0, CURLE_COULDNT_CONNECT, NULL), S3_TRANSIENT);
	CHECK_INT(s3_classify(0, CURLE_OPERATION_TIMEDOUT, NULL), S3_TRANSIENT);
	CHECK_INT(s3_classify(0, CURLE_COULDNT_RESOLVE_HOST, NULL), S3_TRANSIENT);
	CHECK_INT(s3_classify(0, CURLE_GOT_NOTHING, NULL), S3_TRANSIENT);
	CHECK_INT(s3_classify(0, CURLE_URL_MALFORMAT, NULL), S3_PERMANENT);
	CHECK_INT(s3_classify(0, CURLE_PEER_FAILED_VERIFICATION, NULL), S3_PERMANENT);
	CHECK_INT(s3_classify(500, CURLE_OK, "InternalError"), S3_TRANSIENT);
	CHECK_INT(s3_classify(503, CURLE_OK, "SlowDown"), S3_TRANSIENT);
	CHECK_INT(s3_classify(429, CURLE_OK, NULL), S3_TRANSIENT);
	CHECK_INT(s3_classify(408, CURLE_OK, NULL), S3_TRANSIENT);
	CHECK_INT(s3_classify(400, CURLE_OK, "RequestTimeout"), S3_TRANSIENT);
	CHECK_INT(s3_classify(400, CURLE_OK, "InvalidArgument"), S3_PERMANENT);
	CHECK_INT(s3_classify(403, CURLE_OK, "InvalidAccessKeyId"), S3_PERMANENT);
	CHECK_INT(s3_classify(403, CURLE_OK, "SignatureDoesNotMatch"), S3_PERMANENT);
	CHECK_INT(s3_classify(404, CURLE_OK, "NoSuchBucket"), S3_PERMANENT);
	CHECK_INT(s3_classify(404, CURLE_OK, "NoSuchKey"), S3_ABSENT);
	CHECK_INT(s3_classify(301, CURLE_OK, "PermanentRedirect"), S3_PERMANENT);
}

int
main(void)
{
	test_targets();
	test_keys();
	test_urls();
	test_sha256();
	test_classify();
	return unit_report("test_s3_key");
}
