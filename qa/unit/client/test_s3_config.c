/*
 * test_s3_config.c - S3 credentials, region and endpoint come from the
 * environment and ~/.aws files the way the AWS tools read them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "publish/s3_config.h"
#include "unit.h"

static char dir[] = "/tmp/test_s3_config.XXXXXX";
static char cred_path[256], conf_path[256];

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void
clear_env(void)
{
	static const char *vars[] = {
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
		"AWS_PROFILE", NULL
	};
	int i;

	for (i = 0; vars[i]; i++)
		unsetenv(vars[i]);
	setenv("AWS_SHARED_CREDENTIALS_FILE", cred_path, 1);
	setenv("AWS_CONFIG_FILE", conf_path, 1);
	unlink(cred_path);
	unlink(conf_path);
}

static void
check_ini(const char *text, const char *section, const char *key, const char *want)
{
	char *got = s3_ini_get(text, section, key);

	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
	free(got);
}

static void
test_ini(void)
{
	const char *text =
		"# comment\n"
		"; another = comment\n"
		"[default]\n"
		"aws_access_key_id=AKIDDEFAULT\n"
		"aws_secret_access_key   =   se/cr+et==  \r\n"
		"\n"
		"[ other ]\n"
		"AWS_Access_Key_ID = AKIDOTHER\n"
		"s3 =\n"
		"    region = nested-region\n"
		"region = real-region\n"
		"[broken\n"
		"x = 1\n"
		"[profile p]\n"
		"region=eu-west-3";	/* no final newline */

	check_ini(text, "default", "aws_access_key_id", "AKIDDEFAULT");
	check_ini(text, "default", "aws_secret_access_key", "se/cr+et==");	/* '=' and CR kept/trimmed */
	check_ini(text, "other", "aws_access_key_id", "AKIDOTHER");		/* keys case-insensitive */
	check_ini(text, "other", "region", "real-region");			/* nested block skipped */
	check_ini(text, "Default", "aws_access_key_id", NULL);			/* sections are not */
	check_ini(text, "default", "region", NULL);
	check_ini(text, "nosuch", "region", NULL);
	check_ini(text, "profile p", "region", "eu-west-3");
	check_ini(text, "other", "x", "1");		/* a malformed header changes nothing */
	check_ini(text, "default", "comment", NULL);
	check_ini("", "default", "x", NULL);
	check_ini("[default]\nkey\n=novalue\nk = \n", "default", "k", "");
	check_ini("[default]\n[default\n", "default", "x", NULL);
	check_ini("[]\nx=1\n", "", "x", "1");
}

static void
test_env_wins(void)
{
	struct s3_config	c;
	char			err[512];

	clear_env();
	write_file(cred_path, "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
	setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET", 1);
	setenv("AWS_SESSION_TOKEN", "ENVTOKEN", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.access_key, "ENVKEY");
	CHECK_STR(c.secret_key, "ENVSECRET");
	CHECK_STR(c.session_token, "ENVTOKEN");
	CHECK_STR(c.region, "us-east-1");
	CHECK(c.endpoint == NULL);
	CHECK_STR(c.source, "environment");
	s3_config_free(&c);

	/* half a pair is a mistake worth stopping for */
	unsetenv("AWS_SECRET_ACCESS_KEY");
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "AWS_SECRET_ACCESS_KEY is not") != NULL);
}

static void
test_profiles(void)
{
	struct s3_config	c;
	char			err[512];

	clear_env();
	write_file(cred_path,
		   "[default]\naws_access_key_id = DEFKEY\naws_secret_access_key = DEFSECRET\n"
		   "[work]\naws_access_key_id = WORKKEY\naws_secret_access_key = WORKSECRET\n"
		   "aws_session_token = WORKTOKEN\n"
		   "[half]\naws_access_key_id = HALFKEY\n");
	write_file(conf_path,
		   "[default]\nregion = eu-north-1\n"
		   "[profile work]\nregion = ap-south-1\n"
		   "[profile conf]\naws_access_key_id = CONFKEY\naws_secret_access_key = CONFSECRET\n");
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.access_key, "DEFKEY");
	CHECK_STR(c.secret_key, "DEFSECRET");
	CHECK(c.session_token == NULL);
	CHECK_STR(c.region, "eu-north-1");
	CHECK_STR(c.source, "profile \"default\"");
	s3_config_free(&c);

	setenv("AWS_PROFILE", "work", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.access_key, "WORKKEY");
	CHECK_STR(c.session_token, "WORKTOKEN");
	CHECK_STR(c.region, "ap-south-1");
	s3_config_free(&c);

	/* credentials may live in the config file too, under "profile NAME" */
	setenv("AWS_PROFILE", "conf", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.access_key, "CONFKEY");
	CHECK_STR(c.region, "us-east-1");
	s3_config_free(&c);

	setenv("AWS_PROFILE", "half", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "profile \"half\"") != NULL);
	CHECK(strstr(err, "aws_secret_access_key") != NULL);

	setenv("AWS_PROFILE", "missing", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "no S3 credentials") != NULL);
	CHECK(strstr(err, "\"missing\"") != NULL);
	CHECK(strstr(err, "AWS_ACCESS_KEY_ID") != NULL);

	/* no files at all */
	clear_env();
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "no S3 credentials") != NULL);
}

static void
test_region_and_endpoint(void)
{
	struct s3_config	c;
	char			err[512];

	clear_env();
	write_file(conf_path, "[default]\nregion = from-file\n");
	setenv("AWS_ACCESS_KEY_ID", "K", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "S", 1);
	setenv("AWS_DEFAULT_REGION", "default-region", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.region, "default-region");
	s3_config_free(&c);
	setenv("AWS_REGION", "region-wins", 1);
	setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000//", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.region, "region-wins");
	CHECK_STR(c.endpoint, "http://127.0.0.1:9000");
	s3_config_free(&c);
	setenv("AWS_ENDPOINT_URL_S3", "https://s3.example.net", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), 0);
	CHECK_STR(c.endpoint, "https://s3.example.net");
	s3_config_free(&c);
	unsetenv("AWS_ENDPOINT_URL_S3");

	setenv("AWS_ENDPOINT_URL", "ftp://host", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "http:// or https://") != NULL);
	setenv("AWS_ENDPOINT_URL", "http://host/path", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "scheme://host[:port] only") != NULL);
	setenv("AWS_ENDPOINT_URL", "http://", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	setenv("AWS_ENDPOINT_URL", "http://host?x=1", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	unsetenv("AWS_ENDPOINT_URL");

	setenv("AWS_REGION", "bad/region", 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "not a region name") != NULL);
}

static void
test_unreadable_file(void)
{
	struct s3_config	c;
	char			err[512];

	clear_env();
	/* a directory where the credentials file should be: say so, don't guess */
	setenv("AWS_SHARED_CREDENTIALS_FILE", dir, 1);
	CHECK_INT(s3_config_load(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "cannot read") != NULL);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(cred_path, sizeof(cred_path), "%s/credentials", dir);
	snprintf(conf_path, sizeof(conf_path), "%s/config", dir);
	test_ini();
	test_env_wins();
	test_profiles();
	test_region_and_endpoint();
	test_unreadable_file();
	clear_env();
	rmdir(dir);
	return unit_report("test_s3_config");
}
