/*
 * valid_int.h - internals shared by the files of models/valid (valid.h is
 * the module's interface): the case loader (valid_load.c), the data files
 * of a case (valid_data.c), the predictions (valid_pred.c), the model-error
 * spread and ranges (valid_err.c) and the Markdown report (valid_report.c).
 */
#ifndef PLUMB_VALID_INT_H
#define PLUMB_VALID_INT_H

#include "p2ptest.h"
#include "valid.h"
#include "ytree.h"

/* The p2p matrices plumb predicts, and where p2ptest keeps them. */
struct val_p2p_map {
	enum meas_p2p_kind meas;
	enum p2pt_matrix pred;
};
extern const struct val_p2p_map val_p2p_map[];
extern const int val_np2p_map;

/* Read case idx's data file and list its measured points (valid_data.c). */
int val_case_data(struct val_set *v, int idx, struct plumb_err *err);
/* The points a p2p case quotes in `points:` (valid_data.c). */
int val_quoted_points(struct val_set *v, int idx, const struct ytree *t,
		      const struct ynode *list, struct plumb_err *err);

/*
 * What plumb predicts for row ri of a decode or serving case c on scenario
 * scn (c->scn, or a copy with other constants): a decode case's step in ms
 * in vals[0]; a serving case's values by enum val_srv_metric. NAN where the
 * model gives none.
 */
#define VAL_ROW_NV 5
int val_row_values(const struct val_case *c, const struct scenario *scn, int ri,
		   double vals[VAL_ROW_NV], struct plumb_err *err);

/* qsort comparator of doubles, ascending. */
int val_cmp_double(const void *a, const void *b);
/* Median of the n sorted values x (0 when n is 0). */
double val_median_sorted(const double *x, int n);

#endif
