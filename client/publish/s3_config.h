/*
 * s3_config.h - where an S3 sink finds its credentials, region and
 * endpoint: the environment variables and files every AWS tool reads.
 *
 *   credentials  AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN),
 *                else profile $AWS_PROFILE (default "default") in
 *                $AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials), then in
 *                $AWS_CONFIG_FILE (~/.aws/config, section "profile NAME")
 *   region       AWS_REGION, AWS_DEFAULT_REGION, the profile's "region" in
 *                the config file, else us-east-1
 *   endpoint     AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (S3-compatible
 *                servers, path-style addressing); else AWS itself
 */
#ifndef S3_CONFIG_H
#define S3_CONFIG_H

#include <stddef.h>

struct s3_config {
	char	*access_key;
	char	*secret_key;
	char	*session_token;	/* NULL when there is none */
	char	*region;
	char	*endpoint;	/* "http[s]://host[:port]" without a trailing '/'; NULL = AWS */
	char	*source;	/* where the credentials came from, for messages */
};

/* Fill c from the environment and files; -1 with a message in err. */
int s3_config_load(struct s3_config *c, char *err, size_t errlen);
void s3_config_free(struct s3_config *c);

/*
 * Look up key in [section] of an INI text as the AWS tools write it: '#' and
 * ';' start comment lines, keys are case-insensitive, blanks around '=' and
 * at line ends are ignored, indented lines below "key =" are a nested block
 * and never match.  Returns a malloc'd value, or NULL when absent.
 */
char *s3_ini_get(const char *text, const char *section, const char *key);

#endif /* S3_CONFIG_H */
