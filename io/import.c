/*
 * import.c - what both importers share: the result struct, reading the
 * input, GPU name -> catalog id, and writing the scenario YAML.
 *
 * Output order (see import.h): depth first from the root complexes, the
 * children of a node sorted by the smallest endpoint `order` below them.
 * When that cannot keep the GPUs in `order` (a GPU numbering that jumps
 * between subtrees), the structure is written first and the endpoints after
 * it in `order`; parents still precede children either way.
 */
#include "import.h"
#include "input.h"
#include "import_int.h"
#include "scn.h"
#include "ytree.h"
#include "yout.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct imp_scn *imp_scn_new(void)
{
	struct imp_scn *s = calloc(1, sizeof(*s));

	if (s) {
		s->sockets = 1;
		s->numa_per_socket = 1;
	}
	return s;
}

void imp_scn_free(struct imp_scn *s)
{
	free(s);
}

int imp_add_node(struct imp_scn *s, enum imp_kind kind, int parent,
		 const char *src, struct plumb_err *err)
{
	struct imp_node *d;

	if (s->n >= IMP_MAX_NODES)
		return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
				     "too many PCIe nodes to import (limit %d)",
				     IMP_MAX_NODES), -1;
	if (kind == IMP_SW) {
		int j, depth = 1;
		for (j = parent; j >= 0; j = s->nodes[j].parent)
			depth += s->nodes[j].kind == IMP_SW;
		if (depth > SCN_MAX_SWITCH_DEPTH)
			return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
					     "%d PCIe switches stacked under one root port; at most %d may stack",
					     depth, SCN_MAX_SWITCH_DEPTH), -1;
	}
	d = &s->nodes[s->n];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->parent = parent;
	d->numa = -1;
	d->acs = -1;
	d->order = INT_MAX;
	return s->n++;
}

void imp_note(struct imp_scn *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nnotes >= IMP_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nnotes], sizeof(s->notes[0]), fmt, ap);
	va_end(ap);
	s->nnotes++;
}

void imp_set_names(struct imp_scn *s, const struct imp_opts *o, const char *importer)
{
	const char *src = o->src ? o->src : "-";
	const char *base = strrchr(src, '/');
	char stem[64];
	size_t i, n = 0;
	int is_stdin = strcmp(src, "-") == 0 || strcmp(src, "<stdin>") == 0;

	if (o->name) {
		snprintf(s->name, sizeof(s->name), "%s", o->name);
	} else {
		base = base ? base + 1 : src;
		if (is_stdin)
			base = "stdin";
		for (i = 0; base[i] && base[i] != '.' && n + 1 < sizeof(stem); i++) {
			unsigned char c = (unsigned char)base[i];
			stem[n++] = (char)(isalnum(c) ? tolower(c) : (c == '_' ? '_' : '-'));
		}
		stem[n] = '\0';
		snprintf(s->name, sizeof(s->name), "imported-%s", n ? stem : "input");
	}
	snprintf(s->description, sizeof(s->description),
		 "Imported from %s by plumb import %s",
		 is_stdin ? "standard input" : src, importer);
}

int imp_read_input(const char *path, char **buf, size_t *len, struct plumb_err *err)
{
	return input_read(path, buf, len, err);
}

int imp_check_text(const char *text, size_t len, const char *src, const char *what,
		   struct plumb_err *err)
{
	const char *z = memchr(text, '\0', len);
	size_t k;

	for (k = 0; k < len && isspace((unsigned char)text[k]); k++)
		;
	if (k == len)
		return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
				     "empty input; expected the output of %s", what);
	if (!z)
		return 0;
	/* no line/column: the caller would echo a line of binary to the terminal */
	return plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
			     "binary input (NUL byte at offset %zu); expected the output of %s",
			     (size_t)(z - text), what);
}

int imp_has(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

/* ---- GPU names -> catalog entries ---- */

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/* The 4 hex digits at p as a number, when they stand alone (not part of a
 * longer word); else -1. */
static long hex4_word(const char *s, const char *p)
{
	long v = 0;
	int i;

	if (p > s && isalnum((unsigned char)p[-1]))
		return -1;
	for (i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return isalnum((unsigned char)p[4]) ? -1 : v;
}

/* A PCI id in name: "[10de:2bb5]" or "Device 2bb5" (vendor 10de when the
 * name says NVIDIA, else 0 = any); 1 and *id set, or 0. */
static int pci_id_of(const char *name, uint32_t *id)
{
	const char *p;
	long v, d;

	for (p = name; (p = strchr(p, '[')) != NULL; p++)
		if ((v = hex4_word(name, p + 1)) >= 0 && p[5] == ':' &&
		    (d = hex4_word(name, p + 6)) >= 0 && p[10] == ']') {
			*id = (uint32_t)v << 16 | (uint32_t)d;
			return 1;
		}
	for (p = name; (p = strstr(p, "Device ")) != NULL; p++)
		if ((d = hex4_word(name, p + 7)) >= 0) {
			*id = (imp_has(name, "NVIDIA") ? 0x10deu << 16 : 0) | (uint32_t)d;
			return 1;
		}
	return 0;
}

/* Catalog entry with device id (any vendor when id has none), or -1. */
static int find_pci(const struct scn_catalog *c, uint32_t id)
{
	int i, k;

	if (id >> 16)
		return scn_catalog_find_pci(c, id);
	for (i = 0; i < c->n; i++)
		for (k = 0; k < c->gpus[i].npci_ids; k++)
			if ((c->gpus[i].pci_ids[k] & 0xffff) == id)
				return i;
	return -1;
}

/*
 * The marketing names in name, one per call: the alternatives (split at
 * " / ") of lspci's last [...] that is not an id, else the name without a
 * leading "NVIDIA Corporation " or "NVIDIA " and a trailing "(rev ..)".
 * *pos starts at 0; returns 0 when there is none left.
 */
static int next_name(const char *name, int *pos, char *dst, size_t n)
{
	const char *b = NULL, *e = NULL, *p, *q;
	int k = 0;

	for (p = name; (p = strchr(p, '[')) != NULL; p++) {
		if (!(q = strchr(p, ']')))
			break;
		if (!(q - p == 10 && p[5] == ':') && q - p > 1) {
			b = p + 1;
			e = q;
		}
	}
	if (!b) {
		if (*pos > 0)
			return 0;
		b = name;
		if (strncasecmp(b, "NVIDIA Corporation ", 19) == 0)
			b += 19;
		else if (strncasecmp(b, "NVIDIA ", 7) == 0)
			b += 7;
		e = strstr(b, " (rev");
		if (!e)
			e = b + strlen(b);
		(*pos)++;
		imp_copy_trim(dst, n, b, e);
		return dst[0] != '\0';
	}
	/* alternative *pos of [b, e) */
	for (p = b; k < *pos; k++) {
		q = strstr(p, " / ");
		if (!q || q >= e)
			return 0;
		p = q + 3;
	}
	q = strstr(p, " / ");
	(*pos)++;
	imp_copy_trim(dst, n, p, q && q < e ? q : e);
	return dst[0] != '\0';
}

int imp_gpu_lookup(const struct scn_catalog *c, const char *name)
{
	char alt[160];
	uint32_t id;
	int pos = 0, k;

	if (pci_id_of(name, &id) && (k = find_pci(c, id)) >= 0)
		return k;
	while (next_name(name, &pos, alt, sizeof(alt)))
		if ((k = scn_catalog_find_name(c, alt)) >= 0)
			return k;
	return -1;
}

void imp_gpu_unknown(const struct scn_catalog *c, const char *name, char *buf, size_t n)
{
	int best[3] = { -1, -1, -1 }, bestd[3] = { 0, 0, 0 }, bestk[3] = { 0, 0, 0 };
	int i, j, k, pos;
	char alt[160], what[200];
	uint32_t id;
	int by_id = 0;
	size_t len;

	if (pci_id_of(name, &id)) {
		/* an id but no marketing name ("Device 2329"): compare ids */
		pos = 0;
		by_id = !strchr(name, '[') || !next_name(name, &pos, alt, sizeof(alt));
		snprintf(what, sizeof(what), "no entry has PCI id %04x:%04x", id >> 16,
			 id & 0xffff);
	} else {
		snprintf(what, sizeof(what), "no entry has that name");
	}
	for (i = 0; i < c->n; i++) {
		const struct scn_gpu_model *g = &c->gpus[i];
		int d = 1 << 20, dk = 0;
		if (by_id) {
			/* numerically: a vendor numbers the devices of one chip together */
			for (k = 0; k < g->npci_ids; k++) {
				int dd = abs((int)(g->pci_ids[k] & 0xffff) - (int)(id & 0xffff));
				if (dd < d) {
					d = dd;
					dk = k;
				}
			}
		} else {
			for (pos = 0; next_name(name, &pos, alt, sizeof(alt));)
				for (k = 0; k < g->nnames; k++)
					if (str_distance(alt, g->names[k]) < d) {
						d = str_distance(alt, g->names[k]);
						dk = k;
					}
		}
		if (d == 1 << 20)
			continue;
		for (j = 0; j < 3; j++)
			if (best[j] < 0 || d < bestd[j]) {
				for (k = 2; k > j; k--) {
					best[k] = best[k - 1];
					bestd[k] = bestd[k - 1];
					bestk[k] = bestk[k - 1];
				}
				best[j] = i;
				bestd[j] = d;
				bestk[j] = dk;
				break;
			}
	}
	snprintf(buf, n, "GPU '%.100s' is not in the GPU catalog (%s", name, what);
	for (j = 0; j < 3 && best[j] >= 0; j++) {
		const struct scn_gpu_model *g = &c->gpus[best[j]];
		len = strlen(buf);
		if (by_id)
			snprintf(buf + len, n - len, "%s%s %04x:%04x", j ? ", " : "; closest: ",
				 g->id, g->pci_ids[bestk[j]] >> 16, g->pci_ids[bestk[j]] & 0xffff);
		else
			snprintf(buf + len, n - len, "%s%s '%s'", j ? ", " : "; closest: ", g->id,
				 g->names[bestk[j]]);
	}
	len = strlen(buf);
	snprintf(buf + len, n - len, "); give --gpu-model ID, or add it to a catalog file "
		 "(names:, pci_ids:) given with --gpu-catalog FILE");
}

/* ---- CPU vendor ---- */

static const char *const vendor_names[] = { "other", "amd", "intel", "arm" };

/* CPU brand names and what they say; kernel options are weaker evidence. */
static const struct {
	const char *key;
	enum imp_vendor v;
	int weak;
} cpu_marks[] = {
	{ "AuthenticAMD", IMP_CPU_AMD, 0 },
	{ "EPYC", IMP_CPU_AMD, 0 },
	{ "Threadripper", IMP_CPU_AMD, 0 },
	{ "Ryzen", IMP_CPU_AMD, 0 },
	{ "Opteron", IMP_CPU_AMD, 0 },
	{ "GenuineIntel", IMP_CPU_INTEL, 0 },
	{ "Xeon", IMP_CPU_INTEL, 0 },
	{ "Core(TM)", IMP_CPU_INTEL, 0 },
	{ "aarch64", IMP_CPU_ARM, 0 },
	{ "Neoverse", IMP_CPU_ARM, 0 },
	{ "Grace CPU", IMP_CPU_ARM, 0 },
	{ "GH200", IMP_CPU_ARM, 0 },
	{ "GB200", IMP_CPU_ARM, 0 },
	{ "amd_iommu", IMP_CPU_AMD, 1 },
	{ "intel_iommu", IMP_CPU_INTEL, 1 },
};

/* True when key occurs in line as a word of its own (ignoring case). */
static int has_word(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = line; *p; p++)
		if (strncasecmp(p, key, n) == 0 && (p == line || !isalnum((unsigned char)p[-1])) &&
		    !isalnum((unsigned char)p[n]))
			return 1;
	return 0;
}

int imp_cpu_vendor_from_text(struct imp_scn *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	char line[512], first[2][64] = { "", "" };
	int found[2][4] = { { 0 } }, where[2] = { 0, 0 }, no = 0, weak, v, nv;
	size_t i;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *q;
		size_t n;
		if (!e)
			e = end;
		no++;
		n = (size_t)(e - p) < sizeof(line) - 1 ? (size_t)(e - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		p = e < end ? e + 1 : end;
		for (q = line; *q == ' ' || *q == '\t'; q++)
			;
		if (!s->cpu_model[0] && (strncmp(q, "Model name:", 11) == 0 ||
					 strncmp(q, "model name", 10) == 0) && strchr(q, ':')) {
			const char *b = strchr(q, ':') + 1;
			imp_copy_trim(s->cpu_model, sizeof(s->cpu_model), b, b + strlen(b));
			for (i = 0; s->cpu_model[i]; i++)
				if ((unsigned char)s->cpu_model[i] < 0x20)
					s->cpu_model[i] = ' ';
		}
		for (i = 0; i < sizeof(cpu_marks) / sizeof(cpu_marks[0]); i++) {
			weak = cpu_marks[i].weak;
			if (!has_word(line, cpu_marks[i].key))
				continue;
			if (!found[weak][0]++) {
				snprintf(first[weak], sizeof(first[weak]), "%s", cpu_marks[i].key);
				where[weak] = no;
			}
			found[weak][cpu_marks[i].v] = 1;
		}
	}
	s->cpu_vendor = IMP_CPU_OTHER;
	for (weak = 0; weak < 2; weak++) {
		if (!found[weak][0])
			continue;
		for (nv = 0, v = 1; v < 4; v++)
			if (found[weak][v]) {
				nv++;
				s->cpu_vendor = (enum imp_vendor)v;
			}
		if (nv > 1) {
			s->cpu_vendor = IMP_CPU_OTHER;
			imp_note(s, "cpu_vendor: other: the input names CPUs of %s vendors (line %d: "
				 "%s); set host.cpu_vendor", nv == 2 ? "two" : "three", where[weak],
				 first[weak]);
			return -1;
		}
		imp_note(s, "cpu_vendor: %s from the input (line %d: %s)",
			 vendor_names[s->cpu_vendor], where[weak], first[weak]);
		return 1;
	}
	return 0;
}

/* ---- writer ---- */

static const char *const kind_names[] = {
	"root_complex", "root_port", "switch", "gpu", "nic"
};
static const char *const kind_prefix[] = { "rc", "rp", "sw", "gpu", "nic" };

struct wctx {
	const struct imp_scn *s;
	int *minkey;        /* smallest endpoint order in the subtree */
	int *seq, nseq;     /* output order */
};

static int is_endpoint(enum imp_kind k)
{
	return k == IMP_GPU || k == IMP_NIC;
}

/* Append node i and its subtree to w->seq, children by (minkey, index). */
static void dfs(struct wctx *w, int i)
{
	const struct imp_scn *s = w->s;
	int last_key = INT_MIN, last_idx = -1;

	w->seq[w->nseq++] = i;
	/* selection by (minkey, index) keeps this allocation-free: O(n^2) */
	for (;;) {
		int best = -1, j;
		for (j = 0; j < s->n; j++) {
			if (s->nodes[j].parent != i)
				continue;
			if (w->minkey[j] < last_key ||
			    (w->minkey[j] == last_key && j <= last_idx))
				continue;
			if (best < 0 || w->minkey[j] < w->minkey[best])
				best = j;
		}
		if (best < 0)
			break;
		last_key = w->minkey[best];
		last_idx = best;
		dfs(w, best);
	}
}

/* Fill w->seq with the output order described at the top of this file. */
static void output_order(struct wctx *w)
{
	const struct imp_scn *s = w->s;
	int i, prev = INT_MIN, sorted = 1, n = 0;

	for (i = 0; i < s->n; i++)
		w->minkey[i] = is_endpoint(s->nodes[i].kind) ? s->nodes[i].order : INT_MAX;
	for (i = s->n - 1; i >= 0; i--) {
		int p = s->nodes[i].parent;
		if (p >= 0 && w->minkey[i] < w->minkey[p])
			w->minkey[p] = w->minkey[i];
	}
	w->nseq = 0;
	{
		/* roots by (minkey, index) through a virtual parent -1 */
		int last_key = INT_MIN, last_idx = -1;
		for (;;) {
			int best = -1, j;
			for (j = 0; j < s->n; j++) {
				if (s->nodes[j].parent != -1)
					continue;
				if (w->minkey[j] < last_key ||
				    (w->minkey[j] == last_key && j <= last_idx))
					continue;
				if (best < 0 || w->minkey[j] < w->minkey[best])
					best = j;
			}
			if (best < 0)
				break;
			last_key = w->minkey[best];
			last_idx = best;
			dfs(w, best);
		}
	}
	for (i = 0; i < w->nseq; i++) {
		const struct imp_node *d = &s->nodes[w->seq[i]];
		if (d->kind == IMP_GPU) {
			if (d->order < prev)
				sorted = 0;
			prev = d->order;
		}
	}
	if (sorted)
		return;
	/* structure first, then the endpoints by (order, index): insertion sort */
	{
		int *tmp = w->seq + s->n, ne = 0, j;
		for (i = 0; i < w->nseq; i++)
			if (!is_endpoint(s->nodes[w->seq[i]].kind))
				tmp[n++] = w->seq[i];
		for (i = 0; i < w->nseq; i++) {
			int k = w->seq[i];
			if (!is_endpoint(s->nodes[k].kind))
				continue;
			for (j = n + ne; j > n && (s->nodes[tmp[j - 1]].order > s->nodes[k].order ||
						   (s->nodes[tmp[j - 1]].order == s->nodes[k].order &&
						    tmp[j - 1] > k)); j--)
				tmp[j] = tmp[j - 1];
			tmp[j] = k;
			ne++;
		}
		memcpy(w->seq, tmp, sizeof(int) * (size_t)(n + ne));
		w->nseq = n + ne;
	}
}

/* The document of s (nodes in output order seq, ids given), through y. */
static void emit_scenario(struct yout *y, const struct imp_scn *s, const int *seq, int nseq,
			  char (*ids)[24])
{
	int i;

	yout_map(y, YOUT_BLOCK);
	yout_scalar(y, "plumb_scenario", 0);
	yout_scalar(y, "1", 0);
	yout_scalar(y, "name", 0);
	yout_scalar(y, s->name, 1);
	yout_scalar(y, "description", 0);
	yout_scalar(y, s->description, 1);
	yout_scalar(y, "host", 0);
	yout_map(y, YOUT_BLOCK);
	yout_scalar(y, "cpu_vendor", 0);
	yout_scalar(y, vendor_names[s->cpu_vendor], 0);
	if (s->cpu_model[0]) {
		yout_scalar(y, "cpu_model", 0);
		yout_scalar(y, s->cpu_model, 1);
	}
	yout_scalar(y, "sockets", 0);
	yout_fmt(y, "%d", s->sockets);
	if (s->numa_per_socket > 1) {
		yout_scalar(y, "numa_per_socket", 0);
		yout_fmt(y, "%d", s->numa_per_socket);
	}
	if (s->nsocket_cpus > 0) {
		yout_scalar(y, "socket_cpus", 0);
		yout_seq(y, YOUT_FLOW);
		for (i = 0; i < s->nsocket_cpus; i++)
			yout_scalar(y, s->socket_cpus[i], 1);
		yout_seq_end(y);
	}
	yout_map_end(y);
	yout_scalar(y, "pcie", 0);
	yout_seq(y, YOUT_BLOCK);
	for (i = 0; i < nseq; i++) {
		const struct imp_node *d = &s->nodes[seq[i]];
		yout_map(y, YOUT_FLOW);
		yout_scalar(y, "id", 0);
		yout_scalar(y, ids[seq[i]], 0);
		yout_scalar(y, "kind", 0);
		yout_scalar(y, kind_names[d->kind], 0);
		if (d->kind == IMP_RC) {
			yout_scalar(y, "socket", 0);
			yout_fmt(y, "%d", d->socket);
			if (d->numa >= 0) {
				yout_scalar(y, "numa", 0);
				yout_fmt(y, "%d", d->numa);
			}
		} else {
			yout_scalar(y, "parent", 0);
			yout_scalar(y, ids[d->parent], 0);
		}
		if (d->model[0]) {
			yout_scalar(y, "model", 0);
			yout_scalar(y, d->model, d->kind != IMP_GPU);
		}
		if (d->gen > 0) {
			yout_scalar(y, "gen", 0);
			yout_fmt(y, "%d", d->gen);
		}
		if (d->width > 0) {
			yout_scalar(y, "width", 0);
			yout_fmt(y, "%d", d->width);
		}
		if (d->acs >= 0 && (d->kind == IMP_RP || d->kind == IMP_SW)) {
			yout_scalar(y, "acs", 0);
			yout_scalar(y, d->acs ? "true" : "false", 0);
		}
		if (d->bdf[0]) {
			yout_scalar(y, "bdf", 0);
			yout_scalar(y, d->bdf, 1);
		}
		yout_map_end(y);
	}
	yout_seq_end(y);
	if (s->nvswitch || s->npairs > 0) {
		yout_scalar(y, s->xgmi ? "xgmi" : "nvlink", 0);
		yout_map(y, YOUT_BLOCK);
		if (s->nvswitch && s->xgmi) {
			/* every pair its own link: the fully connected mesh */
			yout_scalar(y, "mesh", 0);
			yout_scalar(y, "true", 0);
			if (s->links_per_gpu > 1) {
				yout_scalar(y, "links_per_pair", 0);
				yout_fmt(y, "%d", s->links_per_gpu);
			}
		} else if (s->nvswitch) {
			yout_scalar(y, "nvswitch", 0);
			yout_scalar(y, "true", 0);
			yout_scalar(y, "links_per_gpu", 0);
			yout_fmt(y, "%d", s->links_per_gpu);
		}
		if (s->npairs > 0) {
			yout_scalar(y, "pairs", 0);
			yout_seq(y, YOUT_BLOCK);
			for (i = 0; i < s->npairs; i++) {
				yout_map(y, YOUT_FLOW);
				yout_scalar(y, "gpus", 0);
				yout_seq(y, YOUT_FLOW);
				yout_scalar(y, ids[s->pairs[i].a], 0);
				yout_scalar(y, ids[s->pairs[i].b], 0);
				yout_seq_end(y);
				yout_scalar(y, "links", 0);
				yout_fmt(y, "%d", s->pairs[i].links);
				yout_map_end(y);
			}
			yout_seq_end(y);
		}
		yout_map_end(y);
	}
	yout_map_end(y);
}

int imp_write_yaml(FILE *f, const struct imp_scn *s, const char *path,
		   struct plumb_err *err)
{
	struct wctx w;
	struct yout y;
	char (*ids)[24];
	int count[5] = { 0 }, i;

	w.s = s;
	w.minkey = calloc((size_t)s->n + 1, sizeof(int));
	w.seq = calloc(2 * (size_t)s->n + 1, sizeof(int));
	ids = calloc((size_t)s->n + 1, sizeof(*ids));
	if (!w.minkey || !w.seq || !ids) {
		free(w.minkey);
		free(w.seq);
		free(ids);
		return plumb_err_set(err, PLUMB_ERUNTIME, path, 0, 0, "out of memory");
	}
	output_order(&w);
	for (i = 0; i < w.nseq; i++) {
		const struct imp_node *d = &s->nodes[w.seq[i]];
		snprintf(ids[w.seq[i]], sizeof(ids[0]), "%s%d", kind_prefix[d->kind],
			 count[d->kind]++);
	}

	/* comments are not events: written before the document */
	fprintf(f, "# Scenario skeleton written by `plumb import`; check it against the\n"
		   "# machine before use.\n");
	for (i = 0; i < s->nnotes; i++)
		fprintf(f, "# %s\n", s->notes[i]);
	for (i = 0; i < w.nseq; i++) {
		const struct imp_node *d = &s->nodes[w.seq[i]];
		if (d->comment[0])
			fprintf(f, "# %s: %s\n", ids[w.seq[i]], d->comment);
	}
	yout_begin(&y, f);
	emit_scenario(&y, s, w.seq, w.nseq, ids);
	free(w.minkey);
	free(w.seq);
	free(ids);
	return yout_end(&y, path, err);
}
