/*
 * cfi_readelf.h - check an unwind table against binutils' own reading of
 * the same CFI: `readelf --debug-dump=frames-interp`, which prints every
 * FDE's rows as LOC, CFA and one column per register it mentions.
 *
 * For every readelf row [LOC, next LOC or the FDE's end), each of our rows
 * over that range must say what readelf's columns say:
 *   CIE augmentation with 'S'  -> SP_CFA_SIGNAL
 *   ra "u" (undefined)         -> SP_CFA_END
 *   ra other than "c-8"        -> SP_CFA_NONE
 *   CFA "exp"                  -> SP_CFA_PLT, SP_CFA_RBP_DEREF or SP_CFA_NONE
 *                                 (counted apart; readelf does not print
 *                                 expressions here, test_cfi checks their
 *                                 values on a program it writes)
 *   CFA rsp+N / rbp+N          -> SP_CFA_RSP / SP_CFA_RBP, offset N; other
 *                                 registers -> SP_CFA_NONE
 *   rbp "u" or "s" or absent   -> rbp_offset 0; "c-N" -> -N; else NONE
 * An FDE readelf prints no rows for has its CIE's initial row.  Where no
 * FDE is (after sorting, an FDE ending where the next starts), our row
 * must be SP_CFA_NONE.
 */
#ifndef CFI_READELF_H
#define CFI_READELF_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfi_testlib.h"

struct re_row {
	uint64_t	loc;
	char		cfa[24], rbp[24], ra[24];
};

struct re_entry {			/* a CIE or an FDE as readelf prints it */
	uint64_t	off, cie, start, end;
	bool		is_cie, signal;
	struct re_row	*rows;
	size_t		nrows;
};

struct re_counts {
	size_t	fdes;			/* FDEs compared */
	size_t	rows;			/* readelf rows compared, implicit ones included */
	size_t	implicit;		/* of which CIE rows of FDEs printed without rows */
	size_t	ours;			/* our rows those covered */
	size_t	gaps;			/* gaps checked to be NONE */
	size_t	disagree;
	size_t	exp_plt, exp_deref, exp_signal, exp_none;	/* readelf "exp" CFA rows, by our type */
	size_t	end_rows;		/* ra undefined */
};

struct re_dump {
	struct re_entry	*e;
	size_t		n;
};

static inline bool
re_hex(const char *s, uint64_t *v)
{
	char *end;

	*v = strtoull(s, &end, 16);
	return end != s;
}

/* "   LOC   CFA   rbx   rbp   ra" -> column numbers of CFA, rbp, ra. */
static inline void
re_columns(char *line, int *cfa, int *rbp, int *ra)
{
	int i = 0;

	*cfa = *rbp = *ra = -1;
	for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n"), i++) {
		if (strcmp(tok, "CFA") == 0)
			*cfa = i;
		else if (strcmp(tok, "rbp") == 0)
			*rbp = i;
		else if (strcmp(tok, "ra") == 0)
			*ra = i;
	}
}

/* A register held in another is printed "r10 (r10)": glue "(...)" tokens
 * to the one before, so columns stay aligned. */
static inline char *
re_token(char **save)
{
	char *tok = strtok_r(NULL, " \t\n", save);
	char *next = *save;

	while (tok && next && *next == '(' ) {
		char *paren = strtok_r(NULL, " \t\n", save);

		paren[-1] = '_';	/* "r10 (r10)" -> "r10_(r10)" */
		next = *save;
	}
	return tok;
}

static inline void
re_add_row(struct re_entry *e, char *line, int ccfa, int crbp, int cra)
{
	struct re_row r = { 0 };
	char *save, *tok = strtok_r(line, " \t\n", &save);

	snprintf(r.rbp, sizeof(r.rbp), "u");
	snprintf(r.ra, sizeof(r.ra), "?");
	re_hex(tok, &r.loc);
	for (int i = 1; (tok = re_token(&save)) != NULL; i++) {
		if (i == ccfa)
			snprintf(r.cfa, sizeof(r.cfa), "%s", tok);
		else if (i == crbp)
			snprintf(r.rbp, sizeof(r.rbp), "%s", tok);
		else if (i == cra)
			snprintf(r.ra, sizeof(r.ra), "%s", tok);
	}
	e->rows = realloc(e->rows, (e->nrows + 1) * sizeof(*e->rows));
	e->rows[e->nrows++] = r;
}

/* Parse readelf's interpretation of section (".eh_frame", ".debug_frame"). */
static inline bool
re_load(const char *path, const char *section, struct re_dump *d)
{
	char cmd[1024], line[1024], want[64];
	bool in_section = false;
	int ccfa = -1, crbp = -1, cra = -1;
	struct re_entry *cur = NULL;
	FILE *p;

	memset(d, 0, sizeof(*d));
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	snprintf(want, sizeof(want), "Contents of the %s section", section);
	if ((p = popen(cmd, "r")) == NULL)
		return false;
	while (fgets(line, sizeof(line), p)) {
		uint64_t off, len, id, s, e;
		char kind[8], aug[32] = "";

		if (strncmp(line, "Contents of the ", 16) == 0) {
			in_section = strncmp(line, want, strlen(want)) == 0;
			cur = NULL;
		} else if (!in_section) {
			continue;
		} else if (sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %7s", &off, &len, &id, kind) == 4 &&
			   (strcmp(kind, "CIE") == 0 || strcmp(kind, "FDE") == 0)) {
			d->e = realloc(d->e, (d->n + 1) * sizeof(*d->e));
			cur = &d->e[d->n++];
			memset(cur, 0, sizeof(*cur));
			cur->off = off;
			cur->is_cie = kind[0] == 'C';
			if (cur->is_cie && sscanf(line, "%*s %*s %*s CIE \"%31[^\"]\"", aug) == 1)
				cur->signal = strchr(aug, 'S') != NULL;
			if (!cur->is_cie && sscanf(line, "%*s %*s %*s FDE cie=%" SCNx64 " pc=%" SCNx64 "..%" SCNx64,
						  &cur->cie, &s, &e) == 3) {
				cur->start = s;
				cur->end = e;
			}
		} else if (cur && strstr(line, " LOC ")) {
			re_columns(line, &ccfa, &crbp, &cra);
		} else if (cur && line[0] != ' ' && strlen(line) > 17 && line[16] == ' ') {
			re_add_row(cur, line, ccfa, crbp, cra);
		}
	}
	pclose(p);	/* readelf exits 1 over unrelated complaints (libc: a missing interpreter) */
	return d->n > 0;
}

static inline void
re_free(struct re_dump *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->e[i].rows);
	free(d->e);
}

static inline const struct re_entry *
re_cie(const struct re_dump *d, uint64_t off)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->e[i].is_cie && d->e[i].off == off)
			return &d->e[i];
	return NULL;
}

/* What readelf's row says our row must be; *expression when "exp" lets
 * it be PLT, RBP_DEREF or NONE. */
static inline struct unwind_row
re_expect(const struct re_row *r, bool signal, bool *expression)
{
	struct unwind_row w = { .cfa_type = SP_CFA_NONE };
	char reg[8];
	long off;
	int n = 0;

	*expression = false;
	if (signal)
		return (struct unwind_row){ .cfa_type = SP_CFA_SIGNAL };
	if (strcmp(r->ra, "u") == 0)
		return (struct unwind_row){ .cfa_type = SP_CFA_END };
	if (strcmp(r->ra, "c-8") != 0)
		return w;
	if (strcmp(r->cfa, "exp") == 0) {
		*expression = true;
		return w;
	}
	if (sscanf(r->cfa, "%7[a-z0-9]%ld%n", reg, &off, &n) != 2 || r->cfa[n] != '\0' ||
	    (strcmp(reg, "rsp") != 0 && strcmp(reg, "rbp") != 0) ||
	    off < INT32_MIN || off > INT32_MAX)
		return w;
	w.cfa_type = strcmp(reg, "rsp") == 0 ? SP_CFA_RSP : SP_CFA_RBP;
	w.cfa_offset = (int32_t)off;
	if (strcmp(r->rbp, "u") == 0 || strcmp(r->rbp, "s") == 0)
		return w;
	if (sscanf(r->rbp, "c%ld%n", &off, &n) == 1 && r->rbp[n] == '\0' &&
	    off != 0 && off >= INT16_MIN && off <= INT16_MAX) {
		w.rbp_offset = (int16_t)off;
		return w;
	}
	return (struct unwind_row){ .cfa_type = SP_CFA_NONE };
}

static inline void
re_mismatch(struct re_counts *c, const char *path, uint64_t pc, const struct re_row *r,
	    const struct unwind_row *got)
{
	if (c->disagree++ < 10)
		fprintf(stderr, "%s: at %#" PRIx64 " readelf says CFA %s rbp %s ra %s; "
			"we say type %d cfa %+d rbp %+d\n", path, pc, r->cfa, r->rbp, r->ra,
			got ? got->cfa_type : -1, got ? got->cfa_offset : 0, got ? got->rbp_offset : 0);
}

/* Our rows over [lo, hi) against readelf's row r. */
static inline void
re_check_range(const struct unwind_table *t, const char *path, uint64_t lo, uint64_t hi,
	       const struct re_row *r, bool signal, struct re_counts *c)
{
	bool expression;
	struct unwind_row want = re_expect(r, signal, &expression);
	const struct unwind_row *row = unwind_table_find(t, lo);

	c->rows++;
	c->end_rows += want.cfa_type == SP_CFA_END;
	for (; row && row < t->rows + t->nrows && (row->pc <= lo || row->pc < hi); row++) {
		bool ok = cfi_same_rule(row, &want);

		c->ours++;
		if (expression) {
			ok = ok || row->cfa_type == SP_CFA_PLT || row->cfa_type == SP_CFA_RBP_DEREF;
			c->exp_plt += row->cfa_type == SP_CFA_PLT;
			c->exp_deref += row->cfa_type == SP_CFA_RBP_DEREF;
			c->exp_none += row->cfa_type == SP_CFA_NONE;
		} else if (signal && strcmp(r->cfa, "exp") == 0) {
			c->exp_signal += row->cfa_type == SP_CFA_SIGNAL;
		}
		if (!ok)
			re_mismatch(c, path, row->pc > lo ? row->pc : lo, r, row);
	}
	if (row == NULL)
		re_mismatch(c, path, lo, r, NULL);
}

static inline int
re_fde_cmp(const void *a, const void *b)
{
	const struct re_entry *x = *(const struct re_entry * const *)a;
	const struct re_entry *y = *(const struct re_entry * const *)b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Compare t with readelf's reading of section in path; prints a summary. */
static inline struct re_counts
re_compare(const char *path, const char *section, const struct unwind_table *t)
{
	struct re_counts c = { 0 };
	struct re_dump d;
	const struct re_entry **fdes;
	size_t n = 0;

	if (!re_load(path, section, &d)) {
		fprintf(stderr, "%s: readelf printed no %s\n", path, section);
		c.disagree = 1;
		return c;
	}
	fdes = calloc(d.n, sizeof(*fdes));
	for (size_t i = 0; i < d.n; i++)
		if (!d.e[i].is_cie && d.e[i].end > d.e[i].start)
			fdes[n++] = &d.e[i];
	qsort(fdes, n, sizeof(*fdes), re_fde_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct re_entry *f = fdes[i], *cie = re_cie(&d, f->cie);
		uint64_t end = i + 1 < n && fdes[i + 1]->start < f->end ? fdes[i + 1]->start : f->end;
		bool signal = cie && cie->signal;

		if (end <= f->start)
			continue;
		c.fdes++;
		if (f->nrows == 0 && cie && cie->nrows > 0) {
			re_check_range(t, path, f->start, end, &cie->rows[cie->nrows - 1], signal, &c);
			c.implicit++;
		}
		for (size_t k = 0; k < f->nrows && f->rows[k].loc < end; k++) {
			uint64_t hi = k + 1 < f->nrows && f->rows[k + 1].loc < end ? f->rows[k + 1].loc : end;

			re_check_range(t, path, f->rows[k].loc, hi, &f->rows[k], signal, &c);
		}
		if (i + 1 == n || fdes[i + 1]->start > end) {
			const struct unwind_row *g = unwind_table_find(t, end);

			c.gaps++;
			if (g == NULL || g->cfa_type != SP_CFA_NONE) {
				if (c.disagree++ < 10)
					fprintf(stderr, "%s: gap at %#" PRIx64 " is not NONE\n", path, end);
			}
		}
	}
	printf("%s %s: %zu FDEs, %zu readelf rows (%zu implicit) over %zu of ours, %zu gaps: %zu disagree; "
	       "CFA expressions: %zu PLT, %zu DRAP, %zu signal, %zu NONE; %zu END rows\n",
	       path, section, c.fdes, c.rows, c.implicit, c.ours, c.gaps, c.disagree,
	       c.exp_plt, c.exp_deref, c.exp_signal, c.exp_none, c.end_rows);
	free(fdes);
	re_free(&d);
	return c;
}

#endif /* CFI_READELF_H */
