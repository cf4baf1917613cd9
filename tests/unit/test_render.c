/*
 * test_render.c - pictures and traces: every bundled scenario draws to
 * valid PNG, SVG and PDF; the topology layout keeps node boxes apart and
 * ends every edge on its boxes for 1-16 GPUs, 1-2 sockets, 0-4 switches;
 * the Chrome trace is valid JSON whose events are the simulated step's.
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

void suite_render(void);

static char tmpdir[256];

static int suite_init(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/plumb-render.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int suite_clean(void)
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
static int png_ok(const char *path, long *w, long *h)
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
static int svg_ok(const char *path)
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

static int pdf_ok(const char *path)
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

/* ---- JSON ------------------------------------------------------------------ */

struct jp {
	const char *p;
	int ok;
	/* the object being read at depth 2 (an element of traceEvents) */
	char ph[8];
	double pid, tid, dur;
	/* totals */
	int x_gpu, x_link, meta;
	double dur_gpu[SCN_MAX_GPUS];
};

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static void jstring(struct jp *j, char *out, size_t n)
{
	size_t k = 0;
	if (*j->p != '"') {
		j->ok = 0;
		return;
	}
	j->p++;
	while (*j->p && *j->p != '"') {
		if ((unsigned char)*j->p < 0x20) {
			j->ok = 0;
			return;
		}
		if (*j->p == '\\') {
			j->p++;
			if (*j->p == 'u') {
				int i;
				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
						j->ok = 0;
				j->p += 4;
			} else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) {
				j->ok = 0;
				return;
			}
		}
		if (out && k + 1 < n)
			out[k++] = *j->p;
		j->p++;
	}
	if (out)
		out[k] = 0;
	if (*j->p != '"')
		j->ok = 0;
	else
		j->p++;
}

static double jnumber(struct jp *j)
{
	char *end;
	double v;
	if (!strchr("-0123456789", *j->p) || !*j->p) {
		j->ok = 0;
		return 0;
	}
	v = strtod(j->p, &end);
	if (end == j->p)
		j->ok = 0;
	j->p = end;
	return v;
}

static void jvalue(struct jp *j, int depth, const char *key);

static void jobject(struct jp *j, int depth)
{
	char key[64];
	j->p++;
	if (depth == 2) {
		j->ph[0] = 0;
		j->pid = j->tid = j->dur = -1;
	}
	ws(j);
	if (*j->p == '}') {
		j->p++;
		return;
	}
	while (j->ok) {
		ws(j);
		jstring(j, key, sizeof(key));
		ws(j);
		if (*j->p != ':') {
			j->ok = 0;
			return;
		}
		j->p++;
		ws(j);
		jvalue(j, depth + 1, depth == 2 ? key : "");
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == '}') {
			j->p++;
			break;
		}
		j->ok = 0;
	}
	if (depth == 2 && j->ok) {
		if (!strcmp(j->ph, "M"))
			j->meta++;
		else if (!strcmp(j->ph, "X") && j->pid == 1 && j->tid >= 0 && j->tid < SCN_MAX_GPUS) {
			j->x_gpu++;
			j->dur_gpu[(int)j->tid] += j->dur;
		} else if (!strcmp(j->ph, "X") && j->pid == 2) {
			j->x_link++;
		}
	}
}

static void jvalue(struct jp *j, int depth, const char *key)
{
	ws(j);
	if (*j->p == '{') {
		jobject(j, depth);
	} else if (*j->p == '[') {
		j->p++;
		ws(j);
		if (*j->p == ']') {
			j->p++;
			return;
		}
		while (j->ok) {
			jvalue(j, depth + 1, "");
			ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == ']') {
				j->p++;
				break;
			}
			j->ok = 0;
		}
	} else if (*j->p == '"') {
		jstring(j, !strcmp(key, "ph") ? j->ph : NULL, sizeof(j->ph));
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
	} else {
		double v = jnumber(j);
		if (!strcmp(key, "pid"))
			j->pid = v;
		else if (!strcmp(key, "tid"))
			j->tid = v;
		else if (!strcmp(key, "dur"))
			j->dur = v;
	}
}

static void trace_case(const struct scenario *s, const char *layout, int batch)
{
	struct pred_cfg c;
	struct rdr_trace_info info;
	struct plumb_err err;
	struct jp j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct step_span *spans = malloc(65536 * sizeof(*spans));
	struct pred_step_info pi;
	int g, n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	pred_cfg_init(&c);
	c.s = s;
	CU_ASSERT_EQUAL_FATAL(llm_model_lookup(llm_catalog_builtin(&err), "glm-5", &c.m, &err), 0);
	CU_ASSERT_EQUAL_FATAL(llm_prec_init(&c.prec, c.m, LLM_NVFP4, LLM_BF16, &err), 0);
	CU_ASSERT_EQUAL_FATAL(step_layout_parse(layout, &c.lay, &err), 0);
	EXPECT_INT(rdr_trace(f, &c, batch, 1024, &info, &err), 0);
	fclose(f);
	memset(&j, 0, sizeof(j));
	j.p = buf;
	j.ok = 1;
	jvalue(&j, 0, "");
	ws(&j);
	CU_ASSERT(j.ok && *j.p == 0);
	CU_ASSERT(strstr(buf, "\"traceEvents\"") != NULL);
	EXPECT_INT(j.x_gpu, info.gpu_events);
	EXPECT_INT(j.x_gpu, info.run.nspans);
	EXPECT_INT(j.x_link, info.link_events);
	CU_ASSERT(info.links > 0 && info.link_events > 0);
	CU_ASSERT(j.meta >= info.run.ngpus + 1);
	for (g = 0; g < info.run.ngpus; g++) {
		double want = (info.run.busy[g] + info.run.comm[g]) * 1e6;
		if (fabs(j.dur_gpu[g] - want) > 1e-6 * want + 0.01 * (info.run.nspans / info.run.ngpus))
			printf("\n  %s GPU%d: durations sum to %.3f us, the step says %.3f us", layout, g,
			       j.dur_gpu[g], want);
		CU_ASSERT(fabs(j.dur_gpu[g] - want) <= 1e-6 * want + 0.01 * (info.run.nspans / info.run.ngpus));
	}
	/* the same step as plumb predict's */
	CU_ASSERT_EQUAL(pred_step_spans(&c, SERVE_DECODE, batch, 1024, 1, spans, 65536, &n, &pi, &err), 0);
	EXPECT_INT(n, info.run.nspans);
	CU_ASSERT(fabs(pi.run.seconds - info.seconds) <= 1e-12 * info.seconds);
	free(spans);
	free(buf);
}

static void test_trace(void)
{
	struct scenario *s = NULL;
	struct plumb_err err;
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/proxmox-vm-8x-rtxpro6000.yaml", &s, &err), 0);
	trace_case(s, "tp8", 8);
	trace_case(s, "tp4pp2", 8);
	scn_free(s);
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/hgx-8x-h200.yaml", &s, &err), 0);
	trace_case(s, "ep8", 16);
	scn_free(s);
}

/* Boxes b[0..n) pairwise apart? */
static int boxes_apart(const struct rdr_box2 *b, int n)
{
	int i, j;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (b[i].x < b[j].x + b[j].w && b[j].x < b[i].x + b[i].w &&
			    b[i].y < b[j].y + b[j].h && b[j].y < b[i].y + b[i].h) {
				printf("\n  label %d (%.1f,%.1f %.1fx%.1f) overlaps %d (%.1f,%.1f %.1fx%.1f)\n",
				       i, b[i].x, b[i].y, b[i].w, b[i].h, j, b[j].x, b[j].y, b[j].w, b[j].h);
				return 0;
			}
	return 1;
}

/* The chart layer: scales, ticks, labels, coinciding series, outliers. */
static void test_chart_layer(void)
{
	static const double want_log[] = { 10, 20, 50, 100, 200, 500, 1000 };
	cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 600);
	cairo_t *cr = cairo_create(surf);
	struct rdr_chart c;
	struct rdr_axis a;
	double x[3] = { 1, 2, 4 }, y0[3] = { 11, 20, 40 }, y1[3] = { 11, 20, 40 },
	       y2[3] = { 15.8, 30, 60 }, yout[3] = { 20, 5000, 30 }, off[3], col[6];
	const double *xs[3] = { x, x, x }, *ys[3] = { y0, y1, y2 };
	const char *text[6] = { "a", "bb", "ccc", "dddd", "eeeee", "f" };
	unsigned rgb[6] = { 0 };
	int np[3] = { 3, 3, 3 }, same[3], i, k, placed = 0;
	char buf[32];

	/* log10 over 11 .. 793: 10 to 1000 in 1-2-5 steps */
	memset(&a, 0, sizeof(a));
	rdr_axis_fit(&a, RDR_LOG10, 11.3, 792.6, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.lo, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 1000, 1e-9);
	for (i = k = 0; i < a.nticks; i++)
		if (a.major[i]) {
			CU_ASSERT(k < 7 && fabs(a.tick[i] - want_log[k]) < 1e-9);
			k++;
		}
	EXPECT_INT(k, 7);
	/* 11 against 15.8 tok/s is tens of points apart on a 500-point axis */
	rdr_chart_init(&c, cr, 100, 50, 600, 500);
	c.ay = a;
	CU_ASSERT(rdr_chart_py(&c, 11) - rdr_chart_py(&c, 15.8) > 30);
	/* log2: 1 .. 64, seven powers of two */
	rdr_axis_fit(&a, RDR_LOG2, 1, 64, 0);
	EXPECT_INT(a.nticks, 7);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 64, 1e-9);
	/* linear from zero */
	rdr_axis_fit(&a, RDR_LIN, 3, 97, 1);
	CU_ASSERT_DOUBLE_EQUAL(a.lo, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 100, 1e-9);
	/* ratio: symmetric on a log scale, labelled as errors */
	rdr_axis_fit(&a, RDR_RATIO, 0.85, 1.3, 0);
	CU_ASSERT_DOUBLE_EQUAL(a.hi, 1.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a.lo * a.hi, 1, 1e-9);
	rdr_axis_label(&a, 1.1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "+10%");
	rdr_axis_label(&a, 0.9, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "-10%");
	rdr_axis_label(&a, 1, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0");
	rdr_axis_label(&a, 2, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2x");
	/* an outlier far out still fits the ratio axis */
	rdr_axis_fit(&a, RDR_RATIO, 0.11, 1.9, 0);
	CU_ASSERT(a.lo <= 0.11 && a.hi >= 1.9);
	rdr_axis_fit(&a, RDR_RATIO, 1, 300, 0);
	CU_ASSERT(a.lo <= 1.0 / 300 && a.hi >= 300);
	/* coinciding series: the second lies on the first, the third apart */
	rdr_chart_init(&c, cr, 100, 50, 600, 500);
	rdr_axis_fit(&c.ax, RDR_LOG2, 1, 4, 0);
	rdr_axis_fit(&c.ay, RDR_LOG10, 10, 100, 0);
	rdr_chart_coincide(&c, 3, xs, ys, np, 1.0, same, off);
	EXPECT_INT(same[0], -1);
	EXPECT_INT(same[1], 0);
	EXPECT_INT(same[2], -1);
	CU_ASSERT(fabs(off[0] - off[1]) >= 3 - 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(off[0] + off[1], 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(off[2], 0, 1e-9);
	/* a point beyond the y axis is counted (drawn at the border) */
	EXPECT_INT(rdr_chart_points(&c, 3, x, yout, 0, 3, 0, 1, 0), 1);
	EXPECT_INT(rdr_chart_points(&c, 3, x, y2, 0, 3, 0, 1, 0), 0);
	/* labels fighting for one spot: the placed ones never overlap */
	for (i = 0; i < 20; i++)
		placed += rdr_chart_label(&c, 400, 300, "speed-up x1.92", 11, 0, 0, 800) == 0;
	CU_ASSERT(placed >= 4 && placed <= 10);
	EXPECT_INT(c.nlab, placed);
	CU_ASSERT(boxes_apart(c.lab, c.nlab));
	/* a column of labels all wanting one height: spread apart, inside */
	c.nlab = 0;
	for (i = 0; i < 6; i++)
		col[i] = 540;
	rdr_chart_column(&c, 6, col, text, rgb, 710, 700, 11, 60, 540);
	EXPECT_INT(c.nlab, 6);
	CU_ASSERT(boxes_apart(c.lab, c.nlab));
	for (i = 0; i < c.nlab; i++)
		CU_ASSERT(c.lab[i].y >= 50 && c.lab[i].y + c.lab[i].h <= 550);
	cairo_destroy(cr);
	cairo_surface_destroy(surf);
}

/* The charts draw and are valid. */
static void test_charts(void)
{
	struct rdr_series ser[2];
	struct rdr_timeline t;
	struct step_span sp[3] = { { 0, 0, 1e-3, TAG_ATTN, 0 }, { 0, 1e-3, 1.5e-3, TAG_COMM_TP, 1 },
				   { 1, 0, 1.2e-3, TAG_EXPERTS, 0 } };
	struct plumb_err err;
	char p[400];
	long w, h;
	int i;
	memset(ser, 0, sizeof(ser));
	for (i = 0; i < 2; i++) {
		int k;
		snprintf(ser[i].label, sizeof(ser[i].label), "box %d, tp8", i);
		ser[i].color = i;
		ser[i].dash = i;
		for (k = 0; k < 7; k++) {
			ser[i].x[k] = 1 << k;
			ser[i].y[k] = k == 3 && i ? NAN : 10.0 * (k + 1) * (i + 1);
			ser[i].lo[k] = ser[i].y[k] * 0.8;
			ser[i].hi[k] = ser[i].y[k] * 1.2;
		}
		ser[i].n = 7;
	}
	snprintf(p, sizeof(p), "%s/tput.png", tmpdir);
	EXPECT_INT(rdr_throughput(p, "t", "concurrency", ser, 2, &err), 0);
	CU_ASSERT(png_ok(p, &w, &h));
	snprintf(p, sizeof(p), "%s/tput.svg", tmpdir);
	EXPECT_INT(rdr_throughput(p, "t", "concurrency", ser, 2, &err), 0);
	CU_ASSERT(svg_ok(p));
	memset(&t, 0, sizeof(t));
	t.ngpus = 2;
	t.seconds = 1.5e-3;
	t.spans = sp;
	t.nspans = 3;
	snprintf(p, sizeof(p), "%s/tl.pdf", tmpdir);
	EXPECT_INT(rdr_timeline(p, &t, &err), 0);
	CU_ASSERT(pdf_ok(p));
	/* the parts of a step: shares from ms, a bar with nothing in it, a pipeline */
	{
		struct rdr_parts_bar b[3];
		memset(b, 0, sizeof(b));
		snprintf(b[0].label, sizeof(b[0].label), "box 0, tp8");
		b[0].ms[PART_LAUNCH] = 2;
		b[0].ms[PART_WEIGHTS] = 10;
		b[0].ms[PART_ALLREDUCE] = 30;
		snprintf(b[1].label, sizeof(b[1].label), "box 1, tp8 (empty)");
		snprintf(b[2].label, sizeof(b[2].label), "box 1, tp4pp2");
		b[2].ms[PART_STAGE_SEND] = 1;
		b[2].ms[PART_IDLE] = 5;
		b[2].ms[PART_COMPUTE] = 4;
		snprintf(p, sizeof(p), "%s/parts.png", tmpdir);
		EXPECT_INT(rdr_parts(p, "parts", b, 3, &err), 0);
		CU_ASSERT(png_ok(p, &w, &h));
		snprintf(p, sizeof(p), "%s/parts.svg", tmpdir);
		EXPECT_INT(rdr_parts(p, "parts", b, 3, &err), 0);
		CU_ASSERT(svg_ok(p));
		snprintf(p, sizeof(p), "%s/parts-none.svg", tmpdir);
		EXPECT_INT(rdr_parts(p, "no bars", b, 0, &err), 0);
		CU_ASSERT(svg_ok(p));
	}
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
	CU_add_test(s, "trace: valid JSON, events match the step", test_trace);
	CU_add_test(s, "several hosts: frames, NVSwitch per host, the network", test_hosts);
	CU_add_test(s, "throughput, timeline and step-parts charts", test_charts);
	CU_add_test(s, "chart layer: scales, labels, coinciding series, outliers", test_chart_layer);
}
