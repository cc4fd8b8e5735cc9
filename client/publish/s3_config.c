/*
 * s3_config.c - credentials, region and endpoint for the S3 sink, read the
 * way the AWS CLI and SDKs read them, so a host already set up for them
 * needs nothing more.  Secrets are kept in memory only: they never reach a
 * message, a spool file or a log.
 */
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "s3_config.h"
#include "common/util.h"

#define INI_MAX_BYTES	(1024 * 1024)	/* bigger is not a credentials file */


/* Trim blanks and a CR at both ends of [*s, *e). */
static void
trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

static bool
span_is(const char *s, const char *e, const char *word, bool nocase)
{
	size_t	n = strlen(word);

	if ((size_t)(e - s) != n)
		return false;
	return nocase ? strncasecmp(s, word, n) == 0 : strncmp(s, word, n) == 0;
}

char *
s3_ini_get(const char *text, const char *section, const char *key)
{
	const char	*line, *next, *s, *e, *eq;
	bool		in_section = false, seen_key = false;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		e = next ? next : line + strlen(line);
		if (next)
			next++;
		s = line;
		trim(&s, &e);
		if (s == e || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			const char *ns = s + 1, *ne = e;

			if (ne[-1] != ']')
				continue;	/* not a section header; ignore it */
			ne--;
			trim(&ns, &ne);
			in_section = span_is(ns, ne, section, false);
			seen_key = false;
			continue;
		}
		if (!in_section)
			continue;
		/* an indented line after a key continues it (nested "s3 =" blocks) */
		if (seen_key && s != line)
			continue;
		if ((eq = memchr(s, '=', e - s)) == NULL)
			continue;
		seen_key = true;
		{
			const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;

			trim(&ks, &ke);
			trim(&vs, &ve);
			if (span_is(ks, ke, key, true))
				return strndup(vs, ve - vs);
		}
	}
	return NULL;
}

/* The whole of a small text file, or NULL (errno set) when it cannot be read. */
static char *
read_small_file(const char *path)
{
	FILE		*f;
	struct stat	st;
	char		*buf = NULL;
	size_t		n;
	int		saved;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	if (fstat(fileno(f), &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_size > INI_MAX_BYTES) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EFBIG;
		goto fail;
	}
	if ((buf = malloc(st.st_size + 1)) == NULL)
		goto fail;
	n = fread(buf, 1, st.st_size, f);
	if (ferror(f)) {
		errno = EIO;
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
fail:
	saved = errno;
	free(buf);
	fclose(f);
	errno = saved;
	return NULL;
}

static const char *
envvar(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* $VAR, else ~/.aws/NAME; malloc'd. */
static char *
aws_file_path(const char *var, const char *name)
{
	const char	*home, *v;
	struct passwd	*pw;
	char		*path;

	if ((v = envvar(var)) != NULL)
		return strdup(v);
	if ((home = envvar("HOME")) == NULL) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : "/";
	}
	if (asprintf(&path, "%s/.aws/%s", home, name) < 0)
		return NULL;
	return path;
}

struct profile_files {
	const char	*profile;
	char		*cred_path, *conf_path;
	char		*cred_text, *conf_text;	/* NULL when the file is absent */
	char		*conf_section;		/* "default" or "profile NAME" */
};

/* Secret keys that others can read are keys others have: say so (the AWS
 * CLI makes the file 0600).  The warning names the file, never a key. */
static void
warn_if_exposed(const char *path)
{
	struct stat	st;

	if (stat(path, &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)))
		fprintf(stderr, "pmflame: warning: %s is readable by %s (mode %04o): "
			"chmod 600 it\n", path,
			(st.st_mode & S_IROTH) ? "every user" : "its group",
			(unsigned)(st.st_mode & 07777));
}

static int
profile_files_open(struct profile_files *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->profile = envvar("AWS_PROFILE") ? envvar("AWS_PROFILE") : "default";
	p->cred_path = aws_file_path("AWS_SHARED_CREDENTIALS_FILE", "credentials");
	p->conf_path = aws_file_path("AWS_CONFIG_FILE", "config");
	if (strcmp(p->profile, "default") == 0)
		p->conf_section = strdup("default");
	else if (asprintf(&p->conf_section, "profile %s", p->profile) < 0)
		p->conf_section = NULL;
	if (!p->cred_path || !p->conf_path || !p->conf_section) {
		seterr(err, errlen, "out of memory reading AWS configuration");
		return -1;
	}
	p->cred_text = read_small_file(p->cred_path);
	if (p->cred_text)
		warn_if_exposed(p->cred_path);
	if (!p->cred_text && errno != ENOENT && errno != ENOTDIR) {
		seterr(err, errlen, "cannot read %s: %s", p->cred_path, strerror(errno));
		return -1;
	}
	p->conf_text = read_small_file(p->conf_path);
	if (!p->conf_text && errno != ENOENT && errno != ENOTDIR) {
		seterr(err, errlen, "cannot read %s: %s", p->conf_path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
profile_files_close(struct profile_files *p)
{
	free(p->cred_path);
	free(p->conf_path);
	free(p->cred_text);
	free(p->conf_text);
	free(p->conf_section);
}

/* key from the credentials file, else from the config file; malloc'd or NULL */
static char *
profile_get(const struct profile_files *p, const char *key)
{
	char *v = NULL;

	if (p->cred_text)
		v = s3_ini_get(p->cred_text, p->profile, key);
	if (!v && p->conf_text)
		v = s3_ini_get(p->conf_text, p->conf_section, key);
	if (v && !*v) {
		free(v);
		v = NULL;
	}
	return v;
}

static int
credentials_from_env(struct s3_config *c, char *err, size_t errlen)
{
	const char *id = envvar("AWS_ACCESS_KEY_ID");
	const char *secret = envvar("AWS_SECRET_ACCESS_KEY");

	if (!id && !secret)
		return 0;
	if (!id || !secret) {
		seterr(err, errlen, "%s is set but %s is not",
		       id ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
		       id ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
		return -1;
	}
	c->access_key = strdup(id);
	c->secret_key = strdup(secret);
	if (envvar("AWS_SESSION_TOKEN"))
		c->session_token = strdup(envvar("AWS_SESSION_TOKEN"));
	c->source = strdup("environment");
	return 1;
}

static int
credentials_from_profile(struct s3_config *c, const struct profile_files *p,
			 char *err, size_t errlen)
{
	c->access_key = profile_get(p, "aws_access_key_id");
	c->secret_key = profile_get(p, "aws_secret_access_key");
	c->session_token = profile_get(p, "aws_session_token");
	if (c->access_key && c->secret_key) {
		if (asprintf(&c->source, "profile \"%s\"", p->profile) < 0)
			c->source = NULL;
		return 1;
	}
	if (c->access_key || c->secret_key) {
		seterr(err, errlen, "profile \"%s\" in %s has %s but not %s", p->profile,
		       p->cred_path, c->access_key ? "aws_access_key_id" : "aws_secret_access_key",
		       c->access_key ? "aws_secret_access_key" : "aws_access_key_id");
		return -1;
	}
	return 0;
}

/* "http[s]://host[:port][/]" only: a path would break path-style URLs. */
static int
set_endpoint(struct s3_config *c, const char *url, char *err, size_t errlen)
{
	const char	*host;
	size_t		len = strlen(url);

	if (strncmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncmp(url, "https://", 8) == 0)
		host = url + 8;
	else {
		seterr(err, errlen, "AWS_ENDPOINT_URL \"%s\" must start with http:// or https://", url);
		return -1;
	}
	while (len > (size_t)(host - url) && url[len - 1] == '/')
		len--;
	if (len == (size_t)(host - url) || memchr(host, '/', len - (host - url)) ||
	    strpbrk(url, " \t\r\n?#")) {
		seterr(err, errlen, "AWS_ENDPOINT_URL \"%s\" must be scheme://host[:port] only", url);
		return -1;
	}
	c->endpoint = strndup(url, len);
	return 0;
}

int
s3_config_load(struct s3_config *c, char *err, size_t errlen)
{
	struct profile_files	p;
	const char		*v;
	int			found;

	memset(c, 0, sizeof(*c));
	if (profile_files_open(&p, err, errlen) < 0)
		goto fail;
	if ((found = credentials_from_env(c, err, errlen)) == 0)
		found = credentials_from_profile(c, &p, err, errlen);
	if (found < 0)
		goto fail;
	if (found == 0) {
		seterr(err, errlen, "no S3 credentials: set AWS_ACCESS_KEY_ID and "
		       "AWS_SECRET_ACCESS_KEY, or profile \"%s\" in %s", p.profile, p.cred_path);
		goto fail;
	}
	if ((v = envvar("AWS_REGION")) || (v = envvar("AWS_DEFAULT_REGION")))
		c->region = strdup(v);
	else if (!(c->region = p.conf_text ? s3_ini_get(p.conf_text, p.conf_section, "region") : NULL) ||
		 !*c->region) {
		free(c->region);
		c->region = strdup("us-east-1");
	}
	if (((v = envvar("AWS_ENDPOINT_URL_S3")) || (v = envvar("AWS_ENDPOINT_URL"))) &&
	    set_endpoint(c, v, err, errlen) < 0)
		goto fail;
	if (!c->access_key || !c->secret_key || !c->region || !c->source) {
		seterr(err, errlen, "out of memory reading AWS configuration");
		goto fail;
	}
	if (strpbrk(c->region, "/: \t")) {
		seterr(err, errlen, "region \"%s\" is not a region name", c->region);
		goto fail;
	}
	profile_files_close(&p);
	return 0;
fail:
	profile_files_close(&p);
	s3_config_free(c);
	return -1;
}

void
s3_config_free(struct s3_config *c)
{
	/* scrub secrets so a core dump or reused heap does not show them */
	if (c->secret_key)
		explicit_bzero(c->secret_key, strlen(c->secret_key));
	if (c->session_token)
		explicit_bzero(c->session_token, strlen(c->session_token));
	free(c->access_key);
	free(c->secret_key);
	free(c->session_token);
	free(c->region);
	free(c->endpoint);
	free(c->source);
	memset(c, 0, sizeof(*c));
}
