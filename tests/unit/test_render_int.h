/*
 * test_render_int.h - what test_render.c and test_render_chart.c share
 * (defined in test_render.c).
 */
#ifndef PLUMB_TEST_RENDER_INT_H
#define PLUMB_TEST_RENDER_INT_H

/* A suite's temporary directory: suite_init makes it, suite_clean removes
 * it and its files (and releases the fonts). */
extern char tmpdir[256];
int suite_init(void);
int suite_clean(void);

/* 1 when the file at path is a PNG (its size in *w, *h), an SVG whose tags
 * balance, a PDF with its end marker. */
int png_ok(const char *path, long *w, long *h);
int svg_ok(const char *path);
int pdf_ok(const char *path);

#endif
