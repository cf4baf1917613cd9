/*
 * render_int.h - what the render/ files share: the canvas (a Cairo surface
 * written atomically to a file), text that fits its box, the palette.
 */
#ifndef PLUMB_RENDER_INT_H
#define PLUMB_RENDER_INT_H

#include <cairo.h>

#include "out.h"
#include "render.h"

#define RDR_FONT "DejaVu Sans"
#define RDR_PI 3.14159265358979323846

struct rdr_canvas {
	enum rdr_format fmt;
	cairo_surface_t *surf;
	cairo_t *cr;
	struct outfile out;
	int opened;
};

/*
 * Open path (format from its extension) for a w x h picture (points; one
 * pixel each in PNG) with a white background. On failure nothing is left
 * behind. Errors: EUSAGE (extension), EIO, ERUNTIME.
 */
int rdr_canvas_begin(struct rdr_canvas *c, const char *path, double w, double h,
		     struct plumb_err *err);

/* Finish the picture and rename it into place. Errors: EIO, ERUNTIME (the
 * temporary file is removed). */
int rdr_canvas_end(struct rdr_canvas *c, struct plumb_err *err);

/* Drop the picture (after a failure); safe after a failed begin. */
void rdr_canvas_abort(struct rdr_canvas *c);

enum rdr_align { RA_LEFT, RA_CENTER, RA_RIGHT };

/* Width of text at size (bold or not). */
double rdr_text_width(cairo_t *cr, const char *text, double size, int bold);

/*
 * Draw text with its baseline at y, aligned on x, no wider than maxw (0 =
 * no limit): the size shrinks down to 70% of `size` (at least 8), then the
 * text is cut with an ellipsis. Returns the width drawn.
 */
double rdr_text(cairo_t *cr, double x, double y, const char *text, double size, int bold,
		enum rdr_align align, double maxw);

/* Text broken at spaces into at most maxlines lines of maxw, lead apart,
 * the last one shrunk or cut (rdr_text). Returns the lines drawn. */
int rdr_text_wrap(cairo_t *cr, double x, double y, const char *text, double size, double maxw,
		  double lead, int maxlines);

/* Text on a white rounded patch centred at (cx, cy), for link labels. */
void rdr_label(cairo_t *cr, double cx, double cy, const char *text, double size);

/* Colours. */
void rdr_rgb(cairo_t *cr, unsigned rgb);
void rdr_rgba(cairo_t *cr, unsigned rgb, double a);
unsigned rdr_palette(int i);    /* distinct line colours, cycling */

void rdr_round_rect(cairo_t *cr, double x, double y, double w, double h, double r);

/* Nice axis step for a range of `span` with about n ticks. */
double rdr_nice_step(double span, int n);

#endif
