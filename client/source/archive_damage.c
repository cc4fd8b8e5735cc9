/*
 * archive_damage.c - damage in an archive: said, kept as a gap, read
 * past where a later volume allows (archive_damage.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <pcp/pmapi.h>
#include "archive_damage.h"
#include "common/util.h"

void
archive_damage_init(struct archive_damage *d, const char *path, const char *host,
		    double from, double to)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->host = host;
	d->from = from;
	d->to = to;
	d->open_since = NAN;
	d->cut = -1;
	d->have_files = archive_files_find(path, &d->files) == 0;
}

void
archive_damage_free(struct archive_damage *d)
{
	if (d->links[0] != '\0')
		archive_links_remove(d->links);
	d->links[0] = '\0';
	if (d->have_files)
		archive_files_free(&d->files);
	d->have_files = false;
}

/* "2026-11-30 23:35:05.081687 UTC", or "its start" before any result. */
static void
when(double t, char *buf, size_t len)
{
	char	day[32];

	if (isnan(t)) {
		snprintf(buf, len, "its start");
		return;
	}
	utc_strftime(t, "%Y-%m-%d %H:%M:%S", day, sizeof(day));
	snprintf(buf, len, "%s.%06ld UTC", day, lrint((t - floor(t)) * 1e6) % 1000000);
}

/* "volume 2" or "unknown volume" */
static void
volume_name(int vol, char *buf, size_t len)
{
	if (vol >= 0)
		snprintf(buf, len, "volume %d", vol);
	else
		snprintf(buf, len, "unknown volume");
}

/* Leave the volume links of an earlier resume for new ones. */
static int
open_from(struct archive_damage *d, int vol, const char *scratch)
{
	char	links[PATH_MAX];
	int	ctx;

	if ((ctx = archive_open_from(&d->files, vol, d->cut, scratch, links, sizeof(links))) < 0) {
		fprintf(stderr, "%s: warning: archive %s: cannot read on from volume %d: %s\n",
			pmGetProgname(), d->path, vol, pmErrStr(ctx));
		archive_links_remove(links);
		return -1;
	}
	if (d->links[0] != '\0')
		archive_links_remove(d->links);
	snprintf(d->links, sizeof(d->links), "%s", links);
	return ctx;
}

/* Say what broke where, and open a gap from last. */
static void
open_gap(struct archive_damage *d, int vol, double last, const char *what, int next)
{
	char	at[64], vname[32];

	when(last, at, sizeof(at));
	volume_name(vol, vname, sizeof(vname));
	if (next >= 0)
		fprintf(stderr, "%s: archive %s: %s damaged after %s: %s; reading on from "
			"volume %d\n", pmGetProgname(), d->path, vname, at, what, next);
	else
		fprintf(stderr, "%s: archive %s: %s damaged after %s: %s; nothing after it "
			"can be read\n", pmGetProgname(), d->path, vname, at, what);
	snprintf(d->why, sizeof(d->why), "partial: archive %s %s unreadable: %s",
		 d->path, vname, what);
	if (isnan(d->open_since))
		d->open_since = isnan(last) ? d->from : last;
	d->count++;
}

int
archive_damage_fetch(struct archive_damage *d, int sts, double last, const char *scratch)
{
	int	vol = d->have_files ? archive_volume_open(&d->files) : -1;
	int	next = vol >= 0 ? archive_volume_next(&d->files, vol) : -1;

	open_gap(d, vol, last, pmErrStr(sts), next);
	return next >= 0 ? open_from(d, next, scratch) : -1;
}

int
archive_damage_resume(struct archive_damage *d, int vol, double last, const char *why,
		      const char *scratch)
{
	int	next = vol >= 0 && d->have_files ? archive_volume_next(&d->files, vol) : -1;

	open_gap(d, vol, last, why, next);
	return next >= 0 ? open_from(d, next, scratch) : -1;
}

int
archive_damage_cut(struct archive_damage *d, double last, const char *scratch)
{
	int	vol = d->cut, next = d->have_files ? archive_volume_next(&d->files, vol) : -1;

	d->cut = -1;
	open_gap(d, vol, last, d->cut_why, next);
	return next >= 0 ? open_from(d, next, scratch) : -1;
}

static int
close_gap(struct archive_damage *d, double t, const struct source_consumer *c)
{
	struct data_gap	g = { d->host, fmax(d->open_since, d->from), fmin(t, d->to), d->why };

	d->open_since = NAN;
	if (g.end < g.start)
		g.end = g.start;
	return c->gap ? c->gap(c->arg, &g) : 0;
}

int
archive_damage_result(struct archive_damage *d, int sts, double last, double t,
		      const struct source_consumer *c)
{
	char	at[64], vname[32];
	int	vol = d->have_files ? archive_volume_open(&d->files) : -1;

	when(t, at, sizeof(at));
	volume_name(vol, vname, sizeof(vname));
	fprintf(stderr, "%s: archive %s: %s: the records of %s cannot be unpacked: %s; "
		"skipped\n", pmGetProgname(), d->path, vname, at, pmErrStr(sts));
	snprintf(d->why, sizeof(d->why), "partial: archive %s %s: records unreadable: %s",
		 d->path, vname, pmErrStr(sts));
	d->count++;
	d->open_since = isnan(last) ? d->from : last;
	return close_gap(d, t, c);
}

int
archive_damage_read(struct archive_damage *d, double t, const struct source_consumer *c)
{
	return isnan(d->open_since) ? 0 : close_gap(d, t, c);
}

int
archive_damage_end(struct archive_damage *d, const struct source_consumer *c)
{
	return isnan(d->open_since) ? 0 : close_gap(d, d->to, c);
}
