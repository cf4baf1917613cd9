/*
 * study_int.h - what the files of models/study share: the temporary
 * directory, the rows read back from the prediction, the page's sections.
 */
#ifndef PLUMB_STUDY_INT_H
#define PLUMB_STUDY_INT_H

#include <jansson.h>
#include <stdio.h>

#include "err.h"
#include "predict.h"
#include "study.h"
#include "scn.h"

/* ---- the temporary directory (study_rows.c) -------------------------- */

struct study_tmp {
	char *dir;                      /* NULL: none */
	char **files;                   /* every file made in it (owned) */
	int nfiles, cap;
};

/* Make the directory under $TMPDIR (or /tmp). PLUMB_EIO on failure. */
int study_tmp_open(struct study_tmp *t, struct plumb_err *err);
/* A new file name in the directory, remembered for study_tmp_close (owned by
 * t); NULL and an error when out of memory. */
char *study_tmp_file(struct study_tmp *t, const char *name, struct plumb_err *err);
/* Remove the files and the directory; a no-op the second time. */
void study_tmp_close(struct study_tmp *t);
/* A whole file as a new NUL-terminated string (caller frees), NULL on error. */
char *study_slurp(const char *path);

/* ---- rows (study_rows.c) --------------------------------------------- */

struct prow {
	int si, li, xi;                 /* box, layout, load index */
	int fits, x;
	const char *layout, *diag, *why;        /* borrowed from the JSON document */
	const char *run;                        /* layout_run: what ran, "" the layout */
	double tok, lo, hi, stream, tpot, ttft, comm, busy;
	double part[PART_N];                    /* the step's parts, ms per GPU */
	double ttft_p[3], tpot_p[3];            /* p50, p90, p99 in ms (NaN: none) */
	double gpu_w, box_w, j_per_tok, usd_per_mtok;   /* compare's, NaN: not given */
	json_t *draws;                          /* tok_s_draws (borrowed), or NULL */
};

struct study {
	const struct study_opts *o;
	json_t *doc;
	struct prow *rows;
	int nrows;
	const char **layouts;           /* in the order the rows give them (borrowed) */
	int nlayouts;
	int *xs, nx;                    /* loads, in the rows' order */
	int *at;                        /* [si][li][xi]: a row's index, -1 none */
	int interval;                   /* some row has a range */
	struct scenario **s;            /* owned */
	int ns;
};

/* Read the rows of predict's or compare's JSON at path into st (st->ns and
 * st->s set). PLUMB_ERUNTIME when the document is not what they write. */
int study_read_rows(struct study *st, const char *path, struct plumb_err *err);
/* The row of box si, layout li, load xi, whether it fits or not; NULL none. */
const struct prow *study_row(const struct study *st, int si, int li, int xi);
/* The row of box si, layout li at load xi when it fits, else NULL. */
const struct prow *study_fit(const struct study *st, int si, int li, int xi);
/* The fastest row of box si at load xi, NULL if nothing fits. */
const struct prow *study_best(const struct study *st, int si, int xi);
/* Release what study_read_rows made and the scenarios. */
void study_study_release(struct study *st);

double study_num(json_t *o, const char *key);
const char *study_str(json_t *o, const char *key);
const char *study_loadname(int x);

/* ---- the page (study_html.c, study_page.c) --------------------------- */

void study_answer(FILE *f, const struct study *st);
/* The answer in one sentence with its conditions (study_lead.c). */
void study_lead(FILE *f, const struct study *st);
/* Latency percentiles per box, layout and load against the targets, and
 * each box's power and cost per million tokens (study_lead.c). */
void study_latency(FILE *f, const struct study *st);
void study_money(FILE *f, const struct study *st);
/* The footer: plumb's version, the date, the command line (study_lead.c). */
void study_footer(FILE *f, const struct study_opts *o);
int study_figure_tput(FILE *f, struct study *st, const char *path, struct plumb_err *err);
int study_table(FILE *f, const struct study *st, struct plumb_err *err);
int study_diagnosis(FILE *f, const struct study *st, const char *depends, struct study_tmp *t,
		  struct plumb_err *err);
/* The SVG file at path inline, ids prefixed with pre. */
int study_inline_svg(FILE *f, const char *path, const char *pre, const char *label,
		   struct plumb_err *err);

#endif
