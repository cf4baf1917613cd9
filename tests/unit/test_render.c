/*
 * test_render.c - pictures: every bundled scenario draws to valid PNG, SVG
 * and PDF; the topology layout keeps node boxes apart and ends every edge
 * on its boxes for 1-16 GPUs, 1-2 sockets, 0-4 switches, and frames several
 * hosts. The trace and the charts are in test_render_chart.c.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "fixtures.h"
#include "render.h"
#include "test_render_int.h"

void suite_render(void);

char tmpdir[256];

int suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/plumb-render.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

int suite_clean(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];
	if (d) {
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
				remove(p);
			}
		closedir(d);
	}
	rmdir(tmpdir);
	rdr_release_fonts();
	return 0;
}

/* Whole file into memory; *n its size. NULL if it cannot be read. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)sz + 1);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[sz] = 0;
	fclose(f);
	*n = (size_t)sz;
	return buf;
}

/* PNG: signature, then IHDR with width and height (big-endian). */
int png_ok(const char *path, long *w, long *h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	size_t n;
	unsigned char *b = (unsigned char *)slurp(path, &n);
	int ok = b && n > 33 && !memcmp(b, sig, 8) && !memcmp(b + 12, "IHDR", 4);
	if (ok) {
		*w = ((long)b[16] << 24) | ((long)b[17] << 16) | ((long)b[18] << 8) | b[19];
		*h = ((long)b[20] << 24) | ((long)b[21] << 16) | ((long)b[22] << 8) | b[23];
	}
	free(b);
	return ok;
}

/* SVG: an XML declaration, tags balanced (names matched), ends with </svg>. */
int svg_ok(const char *path)
{
	size_t n, depth = 0;
	char *b = slurp(path, &n), *p, *stack[256];
	int ok = b && !strncmp(b, "<?xml", 5) && strstr(b, "</svg>");
	for (p = b; ok && (p = strchr(p, '<'));) {
		char *end = strchr(p, '>'), *name;
		size_t len;
		if (!end) {
			ok = 0;
			break;
		}
		if (p[1] == '?' || p[1] == '!') {
			p = end + 1;
			continue;
		}
		name = p + (p[1] == '/');
		name++;
		len = strcspn(name, " \t\r\n/>");
		if (p[1] == '/') {
			ok = depth > 0 && !strncmp(stack[depth - 1], name, len) &&
			     strcspn(stack[depth - 1], " \t\r\n/>") == len;
			depth--;
		} else if (end[-1] != '/') {
			if (depth >= 256)
				ok = 0;
			else
				stack[depth++] = name;
		}
		p = end + 1;
	}
	ok = ok && depth == 0;
	free(b);
	return ok;
}

int pdf_ok(const char *path)
{
	size_t n;
	char *b = slurp(path, &n);
	int ok = b && n > 100 && !strncmp(b, "%PDF-", 5) && strstr(b + n - 64 > b ? b + n - 64 : b, "%%EOF");
	free(b);
	return ok;
}

/* ---- geometry ------------------------------------------------------------ */

static int on_border(const struct rdr_box *b, double x, double y)
{
	const double eps = 0.51;
	int inside = x >= b->x - eps && x <= b->x + b->w + eps && y >= b->y - eps &&
		     y <= b->y + b->h + eps;
	int edge = fabs(x - b->x) < eps || fabs(x - b->x - b->w) < eps || fabs(y - b->y) < eps ||
		   fabs(y - b->y - b->h) < eps;
	return inside && edge;
}

/* Count violations: overlapping boxes, edges not ending on their boxes,
 * boxes outside the picture. Prints the first few. */
static int check_layout(const struct rdr_layout *L, const char *what)
{
	int i, j, bad = 0;
	for (i = 0; i < L->nbox; i++) {
		const struct rdr_box *a = &L->box[i];
		if (a->x < 0 || a->y < 0 || a->x + a->w > L->w || a->y + a->h > L->h) {
			if (bad++ < 3)
				printf("\n  %s: box %d (%s) outside the %gx%g picture", what, i, a->line1,
				       L->w, L->h);
		}
		for (j = i + 1; j < L->nbox; j++) {
			const struct rdr_box *b = &L->box[j];
			if (a->x < b->x + b->w - 1e-6 && b->x < a->x + a->w - 1e-6 &&
			    a->y < b->y + b->h - 1e-6 && b->y < a->y + a->h - 1e-6) {
				if (bad++ < 3)
					printf("\n  %s: boxes '%s' and '%s' overlap", what, a->line1, b->line1);
			}
		}
	}
	for (i = 0; i < L->nedge; i++) {
		const struct rdr_edge *e = &L->edge[i];
		int k = e->npts - 1;
		if (e->npts < 2 || !on_border(&L->box[e->a], e->px[0], e->py[0]) ||
		    !on_border(&L->box[e->b], e->px[k], e->py[k])) {
			if (bad++ < 3)
				printf("\n  %s: edge %d ('%s' - '%s') does not end on its boxes", what, i,
				       L->box[e->a].line1, L->box[e->b].line1);
		}
	}
	return bad;
}

static int layout_of(const struct scenario *s, enum rdr_view view, int a, int b, const char *what)
{
	struct rdr_topo_opts o;
	struct rdr_layout *L = NULL;
	struct plumb_err err;
	int bad;
	rdr_topo_opts_init(&o);
	o.view = view;
	o.path_a = a;
	o.path_b = b;
	if (rdr_topo_layout(s, &o, &L, &err) < 0) {
		printf("\n  %s: %s", what, err.msg);
		return 1;
	}
	bad = check_layout(L, what);
	if (a >= 0) {
		int i, hl = 0;
		for (i = 0; i < L->nedge; i++)
			hl += L->edge[i].hl != RH_NONE;
		if (!hl) {
			printf("\n  %s: --path %d:%d highlights no edge", what, a, b);
			bad++;
		}
	}
	free(L);
	return bad;
}

/* Every bundled scenario: each view, and a path from GPU 0 to the last. */
static void test_bundled(void)
{
	DIR *d = opendir("scenarios");
	struct dirent *e;
	int n = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d))) {
		char path[300], out[600];
		struct scenario *s = NULL;
		struct plumb_err err;
		struct rdr_topo_opts o;
		struct rdr_layout *L = NULL;
		size_t len = strlen(e->d_name);
		long w, h;
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
			continue;
		snprintf(path, sizeof(path), "scenarios/%s", e->d_name);
		CU_ASSERT_EQUAL_FATAL(scn_load(path, &s, &err), 0);
		n++;
		EXPECT_INT(layout_of(s, RDR_VIEW_DEFAULT, -1, -1, path), 0);
		EXPECT_INT(layout_of(s, RDR_VIEW_DEFAULT, 0, s->ngpus - 1, path), 0);
		if (s->vm.mode == SCN_VM) {
			EXPECT_INT(layout_of(s, RDR_VIEW_HOST, 1, 0, path), 0);
			EXPECT_INT(layout_of(s, RDR_VIEW_GUEST, 0, 1, path), 0);
		}
		rdr_topo_opts_init(&o);
		CU_ASSERT_EQUAL(rdr_topo_layout(s, &o, &L, &err), 0);
		snprintf(out, sizeof(out), "%s/%s.png", tmpdir, e->d_name);
		EXPECT_INT(rdr_topology(out, s, &o, &err), 0);
		CU_ASSERT(png_ok(out, &w, &h));
		if (L) {
			EXPECT_INT(w, (long)ceil(L->w));
			EXPECT_INT(h, (long)ceil(L->h));
		}
		free(L);
		snprintf(out, sizeof(out), "%s/%s.svg", tmpdir, e->d_name);
		EXPECT_INT(rdr_topology(out, s, &o, &err), 0);
		CU_ASSERT(svg_ok(out));
		snprintf(out, sizeof(out), "%s/%s.pdf", tmpdir, e->d_name);
		EXPECT_INT(rdr_topology(out, s, &o, &err), 0);
		CU_ASSERT(pdf_ok(out));
		if (s->vm.mode == SCN_VM) {
			snprintf(out, sizeof(out), "%s/%s-bars.svg", tmpdir, e->d_name);
			EXPECT_INT(rdr_bars(out, s, &err), 0);
			CU_ASSERT(svg_ok(out));
		}
		snprintf(out, sizeof(out), "%s/%s-matrix.svg", tmpdir, e->d_name);
		EXPECT_INT(rdr_matrix(out, s, &o, &err), 0);
		CU_ASSERT(svg_ok(out));
		scn_free(s);
	}
	closedir(d);
	CU_ASSERT(n >= 5);
}

/* A synthetic box: gpus GPUs over sockets sockets, behind nsw switches
 * (0: one root complex per GPU; nested: each switch under another), with
 * NVLink pairs or an NVSwitch, maybe a VM. */
static struct scenario *box(int gpus, int sockets, int nsw, int nested, int nvl, int vm, int nps)
{
	static char y[16384];
	struct scenario *s = NULL;
	struct plumb_err err;
	size_t n = 0;
	int i, k;
	n += (size_t)snprintf(y + n, sizeof(y) - n,
			      "plumb_scenario: 1\nname: synthetic\nhost: {cpu_vendor: amd, sockets: %d, numa_per_socket: %d}\npcie:\n",
			      sockets, nps);
	if (nsw == 0) {
		for (i = 0; i < gpus; i++)
			n += (size_t)snprintf(y + n, sizeof(y) - n,
					      "  - {id: rc%d, kind: root_complex, socket: %d, numa: %d}\n"
					      "  - {id: rp%d, kind: root_port, parent: rc%d}\n"
					      "  - {id: g%d, kind: gpu, parent: rp%d, model: rtx-pro-6000}\n",
					      i, i * sockets / gpus, (i * sockets / gpus) * nps + (i % nps),
					      i, i, i, i);
	} else {
		for (k = 0; k < nsw; k++) {
			int sk = k * sockets / nsw;
			n += (size_t)snprintf(y + n, sizeof(y) - n,
					      "  - {id: rc%d, kind: root_complex, socket: %d, numa: %d}\n"
					      "  - {id: rp%d, kind: root_port, parent: rc%d}\n"
					      "  - {id: sw%d, kind: switch, parent: rp%d, acs: %s}\n",
					      k, sk, sk * nps + (k % nps), k, k, k, k, k % 2 ? "true" : "false");
			if (nested)
				n += (size_t)snprintf(y + n, sizeof(y) - n,
						      "  - {id: sv%d, kind: switch, parent: sw%d}\n"
						      "  - {id: nic%d, kind: nic, parent: sw%d, model: ConnectX-7}\n",
						      k, k, k, k);
			for (i = k * gpus / nsw; i < (k + 1) * gpus / nsw; i++)
				n += (size_t)snprintf(y + n, sizeof(y) - n,
						      "  - {id: g%d, kind: gpu, parent: %s%d, model: %s}\n", i,
						      nested ? "sv" : "sw", k, nvl == 2 ? "h200" : "rtx-pro-6000");
		}
	}
	if (nvl == 1 && gpus >= 2) {
		n += (size_t)snprintf(y + n, sizeof(y) - n, "nvlink:\n  pairs:\n");
		for (i = 0; i + 1 < gpus; i += 2)
			n += (size_t)snprintf(y + n, sizeof(y) - n,
					      "    - {gpus: [g%d, g%d], links: 2}\n", i, i + 1);
		if (gpus >= 4)
			n += (size_t)snprintf(y + n, sizeof(y) - n, "    - {gpus: [g0, g3], links: 1}\n");
	} else if (nvl == 2) {
		n += (size_t)snprintf(y + n, sizeof(y) - n, "nvlink: {nvswitch: true}\n");
	}
	if (vm)
		n += (size_t)snprintf(y + n, sizeof(y) - n,
				      "virtualization: {mode: vm, chipset: q35, pcie_passthrough: true}\n");
	if (scn_parse("synthetic.yaml", y, &s, &err) < 0) {
		printf("\n  synthetic box: %s\n%s", err.msg, y);
		return NULL;
	}
	return s;
}

static void test_synthetic(void)
{
	static const int gpus[] = { 1, 2, 3, 4, 8, 12, 16 };
	int gi, sk, sw, nested, nvl, vm, nps;
	for (gi = 0; gi < 7; gi++)
		for (sk = 1; sk <= 2; sk++)
			for (sw = 0; sw <= 4; sw++)
				for (nested = 0; nested <= (sw > 0); nested++)
					for (nvl = 0; nvl <= 2; nvl++)
						for (vm = 0; vm <= 1; vm++)
							for (nps = 1; nps <= 2; nps++) {
								char what[128];
								struct scenario *s;
								int g = gpus[gi];
								if (sw > g || (nvl == 2 && sw == 0))
									continue;
								s = box(g, sk, sw, nested, nvl, vm, nps);
								CU_ASSERT_PTR_NOT_NULL(s);
								if (!s)
									continue;
								snprintf(what, sizeof(what),
									 "%d GPUs, %d sockets, %d switches%s, nvlink %d%s, nps %d",
									 g, sk, sw, nested ? " nested" : "", nvl,
									 vm ? ", VM" : "", nps);
								EXPECT_INT(layout_of(s, RDR_VIEW_DEFAULT, -1, -1, what), 0);
								if (g > 1)
									EXPECT_INT(layout_of(s, RDR_VIEW_DEFAULT, 0, g - 1, what), 0);
								scn_free(s);
							}
}

/* A failed write leaves nothing behind; the extension picks the format. */
static void test_output_errors(void)
{
	struct scenario *s = box(2, 1, 0, 0, 0, 0, 1);
	struct rdr_topo_opts o;
	struct plumb_err err;
	char p[400];
	DIR *d;
	struct dirent *e;
	int left = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	rdr_topo_opts_init(&o);
	snprintf(p, sizeof(p), "%s/x.gif", tmpdir);
	EXPECT_INT(rdr_topology(p, s, &o, &err), -PLUMB_EUSAGE);
	snprintf(p, sizeof(p), "%s/no-such-dir/x.png", tmpdir);
	EXPECT_INT(rdr_topology(p, s, &o, &err), -PLUMB_EIO);
	o.path_a = 0;
	o.path_b = 7;
	snprintf(p, sizeof(p), "%s/x.png", tmpdir);
	EXPECT_INT(rdr_topology(p, s, &o, &err), -PLUMB_EINPUT);
	CU_ASSERT_EQUAL(access(p, F_OK), -1);
	d = opendir(tmpdir);
	while (d && (e = readdir(d)))
		left += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	EXPECT_INT(left, 0);
	scn_free(s);
}

/* Several hosts: a frame per host, no inter-socket link between hosts, an
 * NVSwitch per host, one network switch joined by a link per host; a path
 * between hosts lights its NICs' links and both network links. */
static void test_hosts(void)
{
	struct scenario *s = NULL;
	struct plumb_err err;
	struct rdr_topo_opts o;
	struct rdr_layout *L = NULL;
	int i, frames = 0, nvs = 0, netsw = 0, net = 0, net_hl = 0, xs = 0;
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/2x-hgx-8x-h100-ib.yaml", &s, &err), 0);
	CU_ASSERT_FATAL(s->nhosts == 2);
	rdr_topo_opts_init(&o);
	o.path_a = 3;
	o.path_b = 12;
	CU_ASSERT_EQUAL_FATAL(rdr_topo_layout(s, &o, &L, &err), 0);
	for (i = 0; i < L->nframe; i++)
		frames += L->frame[i].kind == RF_HOST;
	for (i = 0; i < L->nbox; i++) {
		nvs += L->box[i].kind == RB_NVSWITCH;
		netsw += L->box[i].kind == RB_NETSW;
	}
	for (i = 0; i < L->nedge; i++) {
		net += L->edge[i].kind == RE_NET;
		net_hl += L->edge[i].kind == RE_NET && L->edge[i].hl != RH_NONE;
		xs += L->edge[i].kind == RE_XSOCKET;
	}
	EXPECT_INT(frames, 2);
	EXPECT_INT(nvs, 2);
	EXPECT_INT(netsw, 1);
	EXPECT_INT(net, 2);
	EXPECT_INT(net_hl, 2);
	EXPECT_INT(xs, 2);              /* one UPI in each two-socket host, none between */
	CU_ASSERT(strstr(L->note, "NET transport") != NULL);
	free(L);
	scn_free(s);
}

void suite_render(void)
{
	CU_pSuite s = CU_add_suite("render", suite_init, suite_clean);
	CU_add_test(s, "bundled scenarios: PNG, SVG, PDF; layout geometry", test_bundled);
	CU_add_test(s, "1-16 GPUs, 1-2 sockets, 0-4 switches: no overlaps, edges on boxes",
		    test_synthetic);
	CU_add_test(s, "output errors leave nothing behind", test_output_errors);
	CU_add_test(s, "several hosts: frames, NVSwitch per host, the network", test_hosts);
}
