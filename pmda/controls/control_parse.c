/*
 * control_parse.c - validation of stored control values (see header).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include <pcp/pmapi.h>
#include "control_parse.h"
#include "stackprof.h"

int
control_parse_uint(const char *text, unsigned lo, unsigned hi, unsigned *out)
{
	const char	*p = text;
	unsigned long	v;
	char		*end;

	if (text == NULL)
		return PM_ERR_CONV;
	while (isspace((unsigned char)*p))
		p++;
	/* strtoul accepts "-5" as a huge number: allow digits only */
	if (!isdigit((unsigned char)*p))
		return PM_ERR_CONV;
	errno = 0;
	v = strtoul(p, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end != '\0')
		return PM_ERR_CONV;
	if (errno == ERANGE || v < lo || v > hi)
		return PM_ERR_BADSTORE;
	*out = (unsigned)v;
	return 0;
}

static int
pid_seen(const pid_t *pids, size_t n, pid_t pid)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

/* Parse one comma-separated field into a PID > 0. */
static int
parse_one_pid(const char *field, size_t len, pid_t *pid)
{
	char		buf[32];
	unsigned	v;
	int		sts;

	if (len >= sizeof(buf))
		return PM_ERR_BADSTORE;
	memcpy(buf, field, len);
	buf[len] = '\0';
	if ((sts = control_parse_uint(buf, 1, INT_MAX, &v)) < 0)
		return sts == PM_ERR_CONV ? PM_ERR_BADSTORE : sts;
	*pid = (pid_t)v;
	return 0;
}

int
control_parse_pids(const char *text, pid_t **pids, size_t *n)
{
	pid_t		*out = NULL;
	size_t		count = 0;
	const char	*p = text, *comma;
	int		sts;

	if (text == NULL || strlen(text) > CONTROL_TEXT_MAX)
		return PM_ERR_BADSTORE;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0') {
		*pids = NULL;
		*n = 0;
		return 0;
	}
	if ((out = calloc(CONTROL_PIDS_MAX, sizeof(*out))) == NULL)
		return -ENOMEM;
	for (;;) {
		pid_t	pid;
		size_t	len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if ((sts = parse_one_pid(p, len, &pid)) < 0)
			goto fail;
		if (!pid_seen(out, count, pid)) {
			if (count == CONTROL_PIDS_MAX) {
				sts = PM_ERR_BADSTORE;
				goto fail;
			}
			out[count++] = pid;
		}
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	*pids = out;
	*n = count;
	return 0;
fail:
	free(out);
	return sts;
}

int
control_parse_regex(const char *text, struct bounded_regex **re, char *why, size_t whylen)
{
	struct bounded_regex	*r;

	if (text == NULL)
		return PM_ERR_BADSTORE;
	if (*text == '\0') {
		*re = NULL;
		return 0;
	}
	if ((r = bounded_regex_compile(text, 0, why, whylen)) == NULL)
		return PM_ERR_BADSTORE;
	*re = r;
	return 0;
}

void
control_free_regex(struct bounded_regex *re)
{
	bounded_regex_free(re);
}

/* One URL as libcurl parses it (libdebuginfod hands it to libcurl). */
static bool
url_acceptable(const char *url)
{
	CURLU		*h = curl_url();
	char		*scheme = NULL, *part = NULL;
	bool		ok = false;

	if (h == NULL)
		return false;
	if (curl_url_set(h, CURLUPART_URL, url, CURLU_DISALLOW_USER) != CURLUE_OK ||
	    curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0))
		goto out;
	if (curl_url_get(h, CURLUPART_HOST, &part, 0) != CURLUE_OK || part[0] == '\0')
		goto out;
	curl_free(part);
	part = NULL;
	ok = curl_url_get(h, CURLUPART_QUERY, &part, 0) == CURLUE_NO_QUERY &&
	     curl_url_get(h, CURLUPART_FRAGMENT, &part, 0) == CURLUE_NO_FRAGMENT;
out:
	curl_free(scheme);
	curl_free(part);
	curl_url_cleanup(h);
	return ok;
}

int
control_parse_urls(const char *text, unsigned *n)
{
	char		url[CONTROL_TEXT_MAX + 1];
	const char	*p = text;
	unsigned	count = 0;

	if (text == NULL || strlen(text) > CONTROL_TEXT_MAX)
		return PM_ERR_BADSTORE;
	for (const char *c = text; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return PM_ERR_BADSTORE;
	while (*p != '\0') {
		size_t	len;

		if (*p == ' ') {
			p++;
			continue;
		}
		len = strcspn(p, " ");
		memcpy(url, p, len);
		url[len] = '\0';
		if (++count > CONTROL_URLS_MAX || !url_acceptable(url))
			return PM_ERR_BADSTORE;
		p += len;
	}
	*n = count;
	return 0;
}

int
control_check_slots(unsigned slots)
{
	if (slots < 1 || slots > SP_HEATMAP_MAX_SLOTS || 1000 % slots != 0)
		return PM_ERR_BADSTORE;
	return 0;
}

int
control_parse_unwind(const char *text, unsigned *mode)
{
	if (text != NULL && strcmp(text, "auto") == 0)
		*mode = SP_UNWIND_AUTO;
	else if (text != NULL && strcmp(text, "fp") == 0)
		*mode = SP_UNWIND_FP;
	else
		return PM_ERR_BADSTORE;
	return 0;
}

void
control_value_release(struct control_value *v)
{
	control_free_regex(v->regex);
	free(v->pids);
	v->regex = NULL;
	v->pids = NULL;
	v->npids = 0;
}
