/*
 * fuzz_s3_config.c - AWS credentials and config files as pmflame reads
 * them (client/publish/s3_config.c).  The input is NUL-separated: the
 * credentials file, the config file, $AWS_PROFILE, $AWS_ENDPOINT_URL.  The
 * files are memfds named through $AWS_SHARED_CREDENTIALS_FILE and
 * $AWS_CONFIG_FILE, so s3_config_load reads them as it reads ~/.aws; the
 * INI lookup is also called directly for a few keys and sections.
 */
#include "fuzz.h"
#include "publish/s3_config.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*part[4];
	char			*copy = fuzz_split(data, size, part, 4), err[512];
	char			cred_path[32], conf_path[32];
	int			cred = fuzz_memfd(part[0], strlen(part[0]), cred_path);
	int			conf = fuzz_memfd(part[1], strlen(part[1]), conf_path);
	struct s3_config	c;
	static const char	*keys[] = { "aws_access_key_id", "region", "s3" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		free(s3_ini_get(part[0], part[2][0] ? part[2] : "default", keys[i]));
		free(s3_ini_get(part[1], "profile dev", keys[i]));
	}
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("AWS_REGION");
	unsetenv("AWS_DEFAULT_REGION");
	unsetenv("AWS_ENDPOINT_URL_S3");
	setenv("AWS_SHARED_CREDENTIALS_FILE", cred_path, 1);
	setenv("AWS_CONFIG_FILE", conf_path, 1);
	setenv("AWS_PROFILE", part[2], 1);
	setenv("AWS_ENDPOINT_URL", part[3], 1);
	if (s3_config_load(&c, err, sizeof(err)) == 0) {
		if (!c.access_key[0] || !c.secret_key[0] || !c.region[0] ||
		    strpbrk(c.region, "/: \t") != NULL)
			abort();
		if (c.endpoint && strpbrk(c.endpoint, " \t\r\n?#") != NULL)
			abort();
		s3_config_free(&c);
	}
	close(cred);
	close(conf);
	free(copy);
	return 0;
}
