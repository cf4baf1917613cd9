/*
 * test_report.c - models/study's rows at scale: more rows than the old
 * 2,048-row array, more layouts than its 32, the best layout among those
 * past both, every layout and load in the tok/s table, n/a cells, and a
 * row that names the wrong box refused.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study_int.h"

void suite_report(void);

#define NBOX 2
#define NLAY 40
#define NX 30
#define BEST 35         /* the best layout: past the old 32-layout array */

/* predict's JSON of NBOX x NLAY x NX rows (layout, load, box order) into a
 * temporary file; box 1 has no room for layout 3. wrong: the last row
 * names another box. Returns the path (caller unlinks and frees). */
static char *write_rows(int wrong)
{
	char *path = strdup("/tmp/plumb-test-report.XXXXXX");
	int fd, li, xi, si, first = 1;
	FILE *f;
	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\"model_info\": {\"name\": \"m\"}, \"weights\": \"bf16\", \"rows\": [\n", f);
	for (li = 0; li < NLAY; li++)
		for (xi = 0; xi < NX; xi++)
			for (si = 0; si < NBOX; si++) {
				int na = si == 1 && li == 3, last = li == NLAY - 1 && xi == NX - 1 &&
								    si == NBOX - 1;
				fprintf(f, "%s{\"scenario\": \"box%d\", \"layout\": \"L%d\", "
					"\"concurrency\": %d, \"fits\": %s, \"tok_s_total\": %d, "
					"\"why\": \"%s\"}\n", first ? "" : ",",
					wrong && last ? 0 : si, li, 1 << (xi % 12) | xi << 12,
					na ? "false" : "true", 100 * (si + 1) + (li == BEST ? 1000 : li),
					na ? "n/a: L3 needs more GPUs" : "");
				first = 0;
			}
	fputs("]}\n", f);
	CU_ASSERT_FATAL(fclose(f) == 0);
	return path;
}

static void study_init(struct study *st, struct scenario *box)
{
	int i;
	memset(st, 0, sizeof(*st));
	memset(box, 0, NBOX * sizeof(*box));
	st->ns = NBOX;
	st->s = calloc(NBOX, sizeof(*st->s));
	CU_ASSERT_PTR_NOT_NULL_FATAL(st->s);
	for (i = 0; i < NBOX; i++) {
		snprintf(box[i].name, sizeof(box[i].name), "box%d", i);
		st->s[i] = &box[i];
	}
}

/* study_study_release frees the scenarios; these are the test's own. */
static void study_release(struct study *st)
{
	st->ns = 0;
	study_study_release(st);
}

static void test_rows_at_scale(void)
{
	static struct scenario box[NBOX];
	struct study st;
	struct plumb_err err;
	char *path = write_rows(0), *mem = NULL, *p;
	size_t len = 0;
	FILE *f;
	int xi, n;

	study_init(&st, box);
	plumb_err_clear(&err);
	CU_ASSERT_EQUAL_FATAL(study_read_rows(&st, path, &err), 0);
	CU_ASSERT_EQUAL(st.nrows, NBOX * NLAY * NX);
	CU_ASSERT(st.nrows > 2048);
	CU_ASSERT_EQUAL(st.nlayouts, NLAY);
	CU_ASSERT_EQUAL(st.nx, NX);
	for (xi = 0; xi < NX; xi++) {
		const struct prow *b0 = study_best(&st, 0, xi), *b1 = study_best(&st, 1, xi);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b1);
		CU_ASSERT_STRING_EQUAL(b0->layout, "L35");
		CU_ASSERT_STRING_EQUAL(b1->layout, "L35");
		CU_ASSERT_EQUAL(b1->tok, 1200);
		CU_ASSERT_EQUAL(b0->x, st.xs[xi]);
	}
	CU_ASSERT_PTR_NULL(study_fit(&st, 1, 3, 0));
	CU_ASSERT_PTR_NOT_NULL(study_row(&st, 1, 3, 0));
	CU_ASSERT_PTR_NOT_NULL(study_fit(&st, 0, 3, 0));
	CU_ASSERT_STRING_EQUAL(study_row(&st, 0, NLAY - 1, NX - 1)->layout, "L39");
	/* the tok/s table: a row per layout and load, n/a where it is */
	f = open_memstream(&mem, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(study_table(f, &st, &err), 0);
	fclose(f);
	for (n = 0, p = mem; (p = strstr(p, "<tr><td class=\"l n\">")); p++)
		n++;
	CU_ASSERT_EQUAL(n, NLAY * NX);
	CU_ASSERT_PTR_NOT_NULL(strstr(mem, "<td class=\"l n\">L39</td>"));
	for (n = 0, p = mem; (p = strstr(p, "<td>n/a</td>")); p++)
		n++;
	CU_ASSERT_EQUAL(n, NX);
	/* the reason, once */
	for (n = 0, p = mem; (p = strstr(p, "L3 needs more GPUs")); p++)
		n++;
	CU_ASSERT_EQUAL(n, 1);
	free(mem);
	study_release(&st);
	unlink(path);
	free(path);
}

static void test_rows_wrong_box(void)
{
	static struct scenario box[NBOX];
	struct study st;
	struct plumb_err err;
	char *path = write_rows(1);

	study_init(&st, box);
	plumb_err_clear(&err);
	CU_ASSERT(study_read_rows(&st, path, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "is of 'box0', not of box 2 'box1'"));
	study_release(&st);
	unlink(path);
	free(path);
}

void suite_report(void)
{
	CU_pSuite s = CU_add_suite("report", NULL, NULL);
	CU_add_test(s, "rows past 2,048, layouts past 32, the best among them", test_rows_at_scale);
	CU_add_test(s, "a row of the wrong box is refused", test_rows_wrong_box);
}
