/*
 * bars.c - the VM's 64-bit MMIO region with every GPU's large BARs placed
 * in it (models/topo/bar.h), once as the firmware leaves it and once after
 * the kernel's pci=realloc: what fits, what does not, and why.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bar.h"
#include "render_int.h"

static void gib(char *buf, size_t n, double bytes)
{
	double g = bytes / (1024.0 * 1024 * 1024);
	if (g >= 1024)
		snprintf(buf, n, "%.4g TiB", g / 1024);
	else
		snprintf(buf, n, "%.4g GiB", g);
}

static void track(cairo_t *cr, const struct scenario *s, const struct bar_result *r, double x0,
		  double w, double y, double lo, double hi, const char *title)
{
	char buf[256], a[32], b[32];
	int i, missing = 0;
	double th = 54, sx = w / (hi - lo);
	rdr_rgb(cr, 0x111111);
	rdr_text(cr, x0, y - 10, title, 14, 1, RA_LEFT, w);
	/* below the region: guest RAM and the 32-bit hole */
	rdr_rgb(cr, 0xe9e3d0);
	cairo_rectangle(cr, x0 + (0 - lo) * sx, y + 8, (r->start64 - lo) * sx, th - 16);
	cairo_fill(cr);
	rdr_rgb(cr, 0x6b5a2e);
	rdr_text(cr, x0 + (r->start64 - lo) * sx / 2, y + th / 2 + 4, "guest RAM, 32-bit hole", 11, 0,
		 RA_CENTER, (r->start64 - lo) * sx - 6);
	/* the region the pass may use */
	rdr_rgb(cr, 0xeef2f7);
	cairo_rectangle(cr, x0 + (r->start64 - lo) * sx, y, (r->limit64 + 1.0 - r->start64) * sx, th);
	cairo_fill_preserve(cr);
	rdr_rgb(cr, 0x5b7396);
	cairo_set_line_width(cr, 1.5);
	cairo_stroke(cr);
	/* the firmware's bridge windows: each GPU's 64-bit BARs summed and
	 * rounded up to the largest one's alignment */
	for (i = 0; i < r->ngpus && !r->realloc; i++) {
		static const double dash[] = { 4, 3 };
		double bx = x0 + ((double)r->win_base[i] - lo) * sx, bw = (double)r->win_size[i] * sx;
		if (!r->win_size[i])
			continue;
		rdr_rgba(cr, rdr_palette(i), 0.12);
		cairo_rectangle(cr, bx + 0.5, y + 3, bw - 1, th - 6);
		cairo_fill_preserve(cr);
		rdr_rgb(cr, rdr_palette(i));
		cairo_set_line_width(cr, 1.2);
		cairo_set_dash(cr, dash, 2, 0);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	for (i = 0; i < r->nplace; i++) {
		const struct bar_place *p = &r->place[i];
		double bx, bw;
		if (!p->window64 || p->size < (1ULL << 30))
			continue;
		if (!p->assigned) {
			missing++;
			continue;
		}
		bx = x0 + (p->addr - lo) * sx;
		bw = p->size * sx;
		rdr_rgba(cr, rdr_palette(p->gpu), 0.75);
		cairo_rectangle(cr, bx + 0.5, y + 6, bw - 1, th - 12);
		cairo_fill(cr);
		rdr_rgb(cr, 0xffffff);
		snprintf(buf, sizeof(buf), "GPU%d", p->gpu);
		if (bw > 30)
			rdr_text(cr, bx + bw / 2, y + th / 2 + 2, buf, 11, 1, RA_CENTER, bw - 4);
		snprintf(buf, sizeof(buf), "BAR%d", p->region);
		if (bw > 30)
			rdr_text(cr, bx + bw / 2, y + th / 2 + 15, buf, 9, 0, RA_CENTER, bw - 4);
	}
	gib(a, sizeof(a), (double)r->limit64 + 1);
	snprintf(buf, sizeof(buf), "%s %s", r->realloc ? "window ends at" : "firmware limit", a);
	rdr_rgb(cr, 0x2c3e5a);
	rdr_text(cr, x0 + (r->limit64 + 1.0 - lo) * sx, y - 10, buf, 11, 0, RA_RIGHT, 0);
	gib(a, sizeof(a), (double)r->need64);
	gib(b, sizeof(b), (double)r->avail64);
	snprintf(buf, sizeof(buf), "%d of %d GPUs get every BAR: the large BARs need %s, the region "
		 "offers %s%s", r->ok_gpus, r->ngpus, a, b,
		 missing ? "; the rest are left unassigned" : "");
	rdr_rgb(cr, r->ok_gpus == r->ngpus ? 0x1d6b1d : 0xb22222);
	rdr_text(cr, x0, y + th + 20, buf, 12.5, 1, RA_LEFT, w);
	rdr_rgb(cr, 0x444444);
	for (i = 0; i < r->nmsg && i < 2; i++)
		rdr_text(cr, x0, y + th + 40 + 17 * i, r->msg[i], 11.5, 0, RA_LEFT, w);
	(void)s;
}

/*
 * The small BARs (registers, doorbells: under 1 GiB each) that the track's
 * address scale cannot show: each GPU's, to a scale of their own, packed
 * in GPU order. Their place in the 32-bit window is the firmware's and is
 * not modelled, so the strip shows sizes, not addresses.
 */
static void small_bars(cairo_t *cr, const struct scenario *s, double x, double y, double w)
{
	double total = 0, sx, bx = x, th = 22;
	char buf[160], a[32];
	int g, k;
	for (g = 0; g < s->ngpus; g++) {
		const struct scn_gpu_model *m;
		if (s->nodes[s->gpu_node[g]].gpu_model < 0)
			continue;
		m = &s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model];
		for (k = 0; k < m->nbars; k++)
			if (m->bars[k].size < (1ULL << 30))
				total += (double)m->bars[k].size;
	}
	if (total <= 0)
		return;
	sx = w / total;
	gib(a, sizeof(a), total);
	snprintf(buf, sizeof(buf), "the small BARs, %s in all, to their own scale: they go to the "
		 "32-bit window below 4 GiB", a);
	rdr_rgb(cr, 0x111111);
	rdr_text(cr, x, y - 10, buf, 12, 1, RA_LEFT, w);
	for (g = 0; g < s->ngpus; g++) {
		const struct scn_gpu_model *m;
		double gx = bx;
		if (s->nodes[s->gpu_node[g]].gpu_model < 0)
			continue;
		m = &s->catalog->gpus[s->nodes[s->gpu_node[g]].gpu_model];
		for (k = 0; k < m->nbars; k++) {
			double bw;
			if (m->bars[k].size >= (1ULL << 30))
				continue;
			bw = (double)m->bars[k].size * sx;
			rdr_rgba(cr, rdr_palette(g), k % 2 ? 0.45 : 0.8);
			cairo_rectangle(cr, bx + 0.5, y, bw - 1, th);
			cairo_fill(cr);
			snprintf(buf, sizeof(buf), "BAR%d", m->bars[k].region);
			rdr_rgb(cr, 0xffffff);
			if (bw > 34)
				rdr_text(cr, bx + bw / 2, y + th / 2 + 4, buf, 9, 0, RA_CENTER, 0);
			bx += bw;
		}
		snprintf(buf, sizeof(buf), "GPU%d", g);
		rdr_rgb(cr, 0x333333);
		if (bx - gx > 34)
			rdr_text(cr, (gx + bx) / 2, y + th + 13, buf, 9, 0, RA_CENTER, 0);
	}
}

/*
 * Why the two passes need different room, from GPU 0's BARs: the firmware
 * gives each GPU's root port one window for all its 64-bit prefetchable
 * BARs, rounded up to the largest BAR's alignment; pci=realloc packs only
 * the largest, and the small BARs (BAR0's registers, ...) live in the
 * 32-bit window.
 */
static void why(cairo_t *cr, const struct scenario *s, const struct bar_result *fw, double x,
		double y, double w)
{
	const struct scn_gpu_model *m;
	char line[900], part[64], a[32], b[32], big_s[32];
	uint64_t sum = 0, big = 0;
	int k, n64 = 0, big_region = -1;
	if (s->ngpus < 1 || s->nodes[s->gpu_node[0]].gpu_model < 0)
		return;
	m = &s->catalog->gpus[s->nodes[s->gpu_node[0]].gpu_model];
	for (k = 0; k < m->nbars; k++)
		if (m->bars[k].bits == 64 && m->bars[k].prefetchable) {
			sum += m->bars[k].size;
			n64++;
			if (m->bars[k].size > big) {
				big = m->bars[k].size;
				big_region = m->bars[k].region;
			}
		}
	if (!big)
		return;
	snprintf(line, sizeof(line), "Why the firmware needs more: each GPU's root port gets one "
		 "bridge window (dashed) for its 64-bit prefetchable BARs, ");
	for (k = 0; k < m->nbars; k++)
		if (m->bars[k].bits == 64 && m->bars[k].prefetchable) {
			gib(a, sizeof(a), (double)m->bars[k].size);
			if (m->bars[k].size < (1ULL << 30))
				snprintf(a, sizeof(a), "%.0f MiB", (double)m->bars[k].size / 1048576);
			snprintf(part, sizeof(part), "%sBAR%d %s", k && strlen(line) > 0 &&
				 line[strlen(line) - 2] != ',' ? " + " : "", m->bars[k].region, a);
			strncat(line, part, sizeof(line) - strlen(line) - 1);
		}
	gib(big_s, sizeof(big_s), (double)big);
	gib(a, sizeof(a), (double)((sum + big - 1) / big * big));
	gib(b, sizeof(b), (double)fw->need64);
	snprintf(part, sizeof(part), ",");
	snprintf(line + strlen(line), sizeof(line) - strlen(line),
		 ", aligned to BAR%d's %s: %s per GPU, %s for %d. pci=realloc places only each BAR%d; "
		 "the small BARs (", big_region, big_s, a, b, s->ngpus, big_region);
	for (k = 0, n64 = 0; k < m->nbars; k++)
		if (m->bars[k].size < big) {
			char sz[32];
			if (m->bars[k].size < (1ULL << 30))
				snprintf(sz, sizeof(sz), "%.0f MiB", (double)m->bars[k].size / 1048576);
			else
				gib(sz, sizeof(sz), (double)m->bars[k].size);
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%sBAR%d %s",
				 n64++ ? ", " : "", m->bars[k].region, sz);
		}
	snprintf(line + strlen(line), sizeof(line) - strlen(line), ") go to the 32-bit window.");
	rdr_rgb(cr, 0x222222);
	rdr_text_wrap(cr, x, y, line, 12, w, 17, 3);
}

int rdr_bars(const char *path, const struct scenario *s, struct plumb_err *err)
{
	struct bar_result *r = calloc(2, sizeof(*r));
	struct rdr_canvas c;
	const double W = 1300, x0 = 40, w = W - 80;
	double lo, hi, t, step;
	char buf[256], a[32];
	int rc;

	if (!r)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = bar_fit(s, 0, &r[0], err)) < 0 || (rc = bar_fit(s, 1, &r[1], err)) < 0)
		goto out;
	/* from address 0: guest RAM below the region shows as the gap */
	lo = 0;
	hi = fmax((double)r[0].limit64 + 1, (double)r[1].limit64 + 1);
	if ((rc = rdr_canvas_begin(&c, path, W, 690, err)) < 0)
		goto out;
	rdr_rgb(c.cr, 0x111111);
	snprintf(buf, sizeof(buf), "%.200s: GPU BARs in the VM's 64-bit MMIO space",
		 s->name[0] ? s->name : s->path);
	rdr_text(c.cr, 24, 32, buf, 18, 1, RA_LEFT, W - 48);
	gib(a, sizeof(a), (double)s->vm.mmio64_window);
	snprintf(buf, sizeof(buf), "firmware %s, guest RAM %.0f GiB (the region starts above it), "
		 "guest physical address bits %d, 64-bit MMIO window %s",
		 s->vm.firmware == SCN_OVMF ? "OVMF" : "SeaBIOS",
		 (double)s->vm.guest_ram / (1024.0 * 1024 * 1024), s->vm.guest_phys_bits, a);
	rdr_rgb(c.cr, 0x505050);
	rdr_text(c.cr, 24, 54, buf, 12, 0, RA_LEFT, W - 48);
	track(c.cr, s, &r[0], x0, w, 110, lo, hi,
	      "as the firmware assigns them (kernel without pci=realloc)");
	track(c.cr, s, &r[1], x0, w, 300, lo, hi, "after the kernel re-assigns them (pci=realloc)");
	why(c.cr, s, &r[0], 24, 548, W - 48);
	small_bars(c.cr, s, x0, 632, w);
	/* address axis */
	/* binary steps: 128 GiB, 256 GiB, ... */
	step = exp2(ceil(log2((hi - lo) / 8)));
	rdr_rgb(c.cr, 0x333333);
	cairo_set_line_width(c.cr, 1);
	cairo_move_to(c.cr, x0, 470);
	cairo_line_to(c.cr, x0 + w, 470);
	cairo_stroke(c.cr);
	for (t = 0; t <= hi + 1; t += step) {
		double x = x0 + w * (t - lo) / (hi - lo);
		cairo_move_to(c.cr, x, 470);
		cairo_line_to(c.cr, x, 476);
		cairo_stroke(c.cr);
		gib(a, sizeof(a), t);
		rdr_text(c.cr, x, 490, t == 0 ? "0" : a, 11, 0, RA_CENTER, 0);
	}
	rdr_text(c.cr, x0 + w / 2, 510, "guest physical address", 12, 0, RA_CENTER, 0);
	rc = rdr_canvas_end(&c, err);
out:
	free(r);
	return rc;
}
