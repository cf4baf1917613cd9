/*
 * render.c - the canvas every picture is drawn on and the drawing helpers
 * (render_int.h): format from the extension, atomic output through
 * io/out.h, text fitted to its room, colours.
 */
#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render_int.h"

int rdr_format_of(const char *path)
{
	const char *dot = strrchr(path, '.');
	if (!dot || strchr(dot, '/'))
		return -1;
	if (!strcasecmp(dot, ".png"))
		return RDR_PNG;
	if (!strcasecmp(dot, ".svg"))
		return RDR_SVG;
	if (!strcasecmp(dot, ".pdf"))
		return RDR_PDF;
	return -1;
}

/*
 * The text log, a test hook (docs/testing.md, tests/render_layout.sh):
 * when PLUMB_RENDER_TEXTLOG names a file, every picture appends a line
 * "PAGE w h path" and one "TEXT x0 y0 x1 y1 cut text" per string drawn,
 * its ink box in page points and whether it had to be cut to fit. The
 * open log rides on the Cairo context as user data; without the variable
 * nothing is written and nothing changes.
 */
static const cairo_user_data_key_t textlog_key;

static void textlog_close(void *f)
{
	fclose(f);
}

static void textlog_open(struct rdr_canvas *c, const char *path, double w, double h)
{
	const char *name = getenv("PLUMB_RENDER_TEXTLOG");
	FILE *f;
	if (!name || !*name || !(f = fopen(name, "a")))
		return;
	fprintf(f, "PAGE %.1f %.1f %s\n", w, h, path);
	if (cairo_set_user_data(c->cr, &textlog_key, f, textlog_close) != CAIRO_STATUS_SUCCESS)
		fclose(f);
}

/* Log text drawn at the current point with the current font. */
static void textlog(cairo_t *cr, const char *text, int cut)
{
	FILE *f = cairo_get_user_data(cr, &textlog_key);
	cairo_text_extents_t e;
	double x, y, px[4], py[4], x0, y0, x1, y1;
	int i;
	if (!f || !text[0])
		return;
	cairo_get_current_point(cr, &x, &y);
	cairo_text_extents(cr, text, &e);
	px[0] = px[3] = x + e.x_bearing;
	px[1] = px[2] = x + e.x_bearing + e.width;
	py[0] = py[1] = y + e.y_bearing;
	py[2] = py[3] = y + e.y_bearing + e.height;
	for (i = 0; i < 4; i++)
		cairo_user_to_device(cr, &px[i], &py[i]);
	x0 = x1 = px[0];
	y0 = y1 = py[0];
	for (i = 1; i < 4; i++) {
		x0 = fmin(x0, px[i]);
		x1 = fmax(x1, px[i]);
		y0 = fmin(y0, py[i]);
		y1 = fmax(y1, py[i]);
	}
	fprintf(f, "TEXT %.2f %.2f %.2f %.2f %d %s\n", x0, y0, x1, y1, cut, text);
}

static cairo_status_t write_fn(void *closure, const unsigned char *data, unsigned int len)
{
	FILE *f = closure;
	return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int rdr_canvas_begin(struct rdr_canvas *c, const char *path, double w, double h,
		     struct plumb_err *err)
{
	cairo_font_options_t *fo;
	int fmt = rdr_format_of(path), rc;

	memset(c, 0, sizeof(*c));
	if (fmt < 0)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "cannot tell the picture format of '%s' (use .png, .svg or .pdf)",
				     path);
	c->fmt = fmt;
	w = ceil(w);
	h = ceil(h);
	if ((rc = out_open(&c->out, path, err)) < 0)
		return rc;
	c->opened = 1;
	if (fmt == RDR_PNG) {
		c->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
	} else if (fmt == RDR_SVG) {
		c->surf = cairo_svg_surface_create_for_stream(write_fn, c->out.f, w, h);
	} else {
		c->surf = cairo_pdf_surface_create_for_stream(write_fn, c->out.f, w, h);
		/* Fixed dates: the same inputs give the same bytes. */
		cairo_pdf_surface_set_metadata(c->surf, CAIRO_PDF_METADATA_CREATE_DATE,
					       "2025-01-01T00:00:00Z");
		cairo_pdf_surface_set_metadata(c->surf, CAIRO_PDF_METADATA_MOD_DATE,
					       "2025-01-01T00:00:00Z");
		cairo_pdf_surface_set_metadata(c->surf, CAIRO_PDF_METADATA_CREATOR, "plumb");
	}
	if (cairo_surface_status(c->surf) != CAIRO_STATUS_SUCCESS) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0, "cairo: %s",
				   cairo_status_to_string(cairo_surface_status(c->surf)));
		rdr_canvas_abort(c);
		return rc;
	}
	c->cr = cairo_create(c->surf);
	fo = cairo_font_options_create();
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_set_font_options(c->cr, fo);
	cairo_font_options_destroy(fo);
	cairo_set_source_rgb(c->cr, 1, 1, 1);
	cairo_paint(c->cr);
	cairo_set_line_join(c->cr, CAIRO_LINE_JOIN_ROUND);
	textlog_open(c, path, w, h);
	return 0;
}

void rdr_canvas_abort(struct rdr_canvas *c)
{
	if (c->cr)
		cairo_destroy(c->cr);
	if (c->surf) {
		cairo_surface_finish(c->surf);
		cairo_surface_destroy(c->surf);
	}
	c->cr = NULL;
	c->surf = NULL;
	if (c->opened)
		out_abort(&c->out);
	c->opened = 0;
}

int rdr_canvas_end(struct rdr_canvas *c, struct plumb_err *err)
{
	cairo_status_t st = cairo_status(c->cr);
	int rc;

	if (st == CAIRO_STATUS_SUCCESS && c->fmt == RDR_PNG)
		st = cairo_surface_write_to_png_stream(c->surf, write_fn, c->out.f);
	cairo_destroy(c->cr);
	c->cr = NULL;
	cairo_surface_finish(c->surf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(c->surf);
	cairo_surface_destroy(c->surf);
	c->surf = NULL;
	if (st != CAIRO_STATUS_SUCCESS) {
		rc = plumb_err_set(err, st == CAIRO_STATUS_WRITE_ERROR ? PLUMB_EIO : PLUMB_ERUNTIME,
				   c->out.path, 0, 0, "cannot draw: %s", cairo_status_to_string(st));
		rdr_canvas_abort(c);
		return rc;
	}
	c->opened = 0;
	return out_commit(&c->out, err);
}

void rdr_release_fonts(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}

static void font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, RDR_FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

double rdr_text_width(cairo_t *cr, const char *text, double size, int bold)
{
	cairo_text_extents_t e;
	font(cr, size, bold);
	cairo_text_extents(cr, text, &e);
	return e.x_advance;
}

double rdr_text(cairo_t *cr, double x, double y, const char *text, double size, int bold,
		enum rdr_align align, double maxw)
{
	char buf[512];
	double w = rdr_text_width(cr, text, size, bold), min = size * 0.7;
	size_t n;
	int cut = 0;

	if (min < 8)
		min = 8;
	snprintf(buf, sizeof(buf), "%s", text);
	if (maxw > 0 && w > maxw) {
		int tries;
		for (tries = 0; tries < 4 && w > maxw && size > min; tries++) {
			double s = size * maxw / w * 0.98;
			size = s < min ? min : s;
			w = rdr_text_width(cr, buf, size, bold);
		}
		/* Still too wide: cut characters (whole UTF-8 sequences) and add "...". */
		n = strlen(buf);
		while (w > maxw && n > 0) {
			do
				n--;
			while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80);
			while (n > 0 && buf[n - 1] == ' ')
				n--;
			snprintf(buf + n, sizeof(buf) - n, "...");
			w = rdr_text_width(cr, buf, size, bold);
			cut = 1;
		}
	}
	font(cr, size, bold);
	if (align == RA_CENTER)
		x -= w / 2;
	else if (align == RA_RIGHT)
		x -= w;
	cairo_move_to(cr, x, y);
	textlog(cr, buf, cut);
	cairo_show_text(cr, buf);
	cairo_new_path(cr);
	return w;
}

int rdr_text_wrap(cairo_t *cr, double x, double y, const char *text, double size, double maxw,
		  double lead, int maxlines)
{
	char line[800], word[256];
	const char *p = text;
	int n = 0;
	line[0] = 0;
	while (*p && n < maxlines) {
		size_t wl = strcspn(p, " "), ll = strlen(line);
		char tryb[800];
		snprintf(word, sizeof(word), "%.*s", (int)(wl < sizeof(word) - 1 ? wl : sizeof(word) - 1), p);
		snprintf(tryb, sizeof(tryb), "%s%s%s", line, ll ? " " : "", word);
		if (ll && rdr_text_width(cr, tryb, size, 0) > maxw && n + 1 < maxlines) {
			rdr_text(cr, x, y + n * lead, line, size, 0, RA_LEFT, maxw);
			n++;
			snprintf(line, sizeof(line), "%s", word);
		} else {
			snprintf(line, sizeof(line), "%s", tryb);
		}
		p += wl;
		while (*p == ' ')
			p++;
	}
	if (line[0] && n < maxlines)
		rdr_text(cr, x, y + n++ * lead, line, size, 0, RA_LEFT, maxw);
	return n;
}

void rdr_label(cairo_t *cr, double cx, double cy, const char *text, double size)
{
	double w = rdr_text_width(cr, text, size, 0);
	cairo_save(cr);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.92);
	rdr_round_rect(cr, cx - w / 2 - 3, cy - size * 0.65 - 2, w + 6, size * 1.3 + 4, 3);
	cairo_fill(cr);
	cairo_restore(cr);
	rdr_text(cr, cx, cy + size * 0.36, text, size, 0, RA_CENTER, 0);
}

void rdr_rgb(cairo_t *cr, unsigned rgb)
{
	cairo_set_source_rgb(cr, ((rgb >> 16) & 255) / 255.0, ((rgb >> 8) & 255) / 255.0,
			     (rgb & 255) / 255.0);
}

void rdr_rgba(cairo_t *cr, unsigned rgb, double a)
{
	cairo_set_source_rgba(cr, ((rgb >> 16) & 255) / 255.0, ((rgb >> 8) & 255) / 255.0,
			      (rgb & 255) / 255.0, a);
}

unsigned rdr_palette(int i)
{
	static const unsigned p[] = { 0x1f77b4, 0xd62728, 0x2ca02c, 0xff7f0e, 0x9467bd,
				      0x8c564b, 0xe377c2, 0x17becf };
	if (i < 0)
		i = -i;
	return p[i % (int)(sizeof(p) / sizeof(p[0]))];
}

void rdr_round_rect(cairo_t *cr, double x, double y, double w, double h, double r)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x + w - r, y + r, r, -RDR_PI / 2, 0);
	cairo_arc(cr, x + w - r, y + h - r, r, 0, RDR_PI / 2);
	cairo_arc(cr, x + r, y + h - r, r, RDR_PI / 2, RDR_PI);
	cairo_arc(cr, x + r, y + r, r, RDR_PI, 1.5 * RDR_PI);
	cairo_close_path(cr);
}

double rdr_nice_step(double span, int n)
{
	double raw, mag, f;
	if (!(span > 0) || n < 1)
		return 1;
	raw = span / n;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	if (f <= 1)
		f = 1;
	else if (f <= 2)
		f = 2;
	else if (f <= 2.5)
		f = 2.5;
	else if (f <= 5)
		f = 5;
	else
		f = 10;
	return f * mag;
}
