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

#include <ctype.h>
#include <errno.h>
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

/* Names and PCI device ids of the catalog models (scenarios/catalog/gpus.yaml). */
static const struct {
	const char *id;
	const char *keys[6];
} gpu_names[] = {
	{ "rtx-pro-6000", { "RTX PRO 6000", "RTX Pro 6000", "2bb5", "2bb1", NULL } },
	{ "rtx-5090", { "RTX 5090", "2b85", NULL } },
	{ "rtx-4090", { "RTX 4090", "2684", NULL } },
	{ "l40s", { "L40S", "26b9", NULL } },
	{ "a100-sxm", { "A100-SXM", "A100 SXM", "20b0", "20b2", NULL } },
	{ "h100-sxm", { "H100", "2330", NULL } },
	{ "h200", { "H200", "2335", NULL } },
	{ "b200", { "B200", "2901", NULL } },
};

/* True when the 4 hex digits at p stand alone (not part of a longer word). */
static int hex_word(const char *s, const char *p, size_t n)
{
	return (p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]);
}

const char *imp_gpu_model_from_name(const char *name)
{
	size_t i, k;

	for (i = 0; i < sizeof(gpu_names) / sizeof(gpu_names[0]); i++)
		for (k = 0; gpu_names[i].keys[k]; k++) {
			const char *key = gpu_names[i].keys[k], *p;
			size_t n = strlen(key);
			if (isdigit((unsigned char)key[0]) || islower((unsigned char)key[0])) {
				/* a PCI device id: "Device 2bb5", "[10de:2bb5]" */
				for (p = name; (p = strstr(p, key)) != NULL; p++)
					if (hex_word(name, p, n))
						return gpu_names[i].id;
			} else if (imp_has(name, key)) {
				return gpu_names[i].id;
			}
		}
	return NULL;
}

/* ---- writer ---- */

static const char *const kind_names[] = {
	"root_complex", "root_port", "switch", "gpu", "nic"
};
static const char *const kind_prefix[] = { "rc", "rp", "sw", "gpu", "nic" };
static const char *const vendor_names[] = { "other", "amd", "intel", "arm" };

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

/* Write a YAML double-quoted scalar. */
static void put_q(FILE *f, const char *str)
{
	fputc('"', f);
	for (; *str; str++) {
		unsigned char c = (unsigned char)*str;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int imp_write_yaml(FILE *f, const struct imp_scn *s, const char *path,
		   struct plumb_err *err)
{
	struct wctx w;
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

	fprintf(f, "# Scenario skeleton written by `plumb import`; check it against the\n"
		   "# machine before use.\n");
	for (i = 0; i < s->nnotes; i++)
		fprintf(f, "# %s\n", s->notes[i]);
	fprintf(f, "plumb_scenario: 1\nname: ");
	put_q(f, s->name);
	fprintf(f, "\ndescription: ");
	put_q(f, s->description);
	fprintf(f, "\nhost:\n  cpu_vendor: %s\n", vendor_names[s->cpu_vendor]);
	if (s->cpu_model[0]) {
		fprintf(f, "  cpu_model: ");
		put_q(f, s->cpu_model);
		fputc('\n', f);
	}
	fprintf(f, "  sockets: %d\n", s->sockets);
	if (s->numa_per_socket > 1)
		fprintf(f, "  numa_per_socket: %d\n", s->numa_per_socket);
	if (s->nsocket_cpus > 0) {
		fprintf(f, "  socket_cpus: [");
		for (i = 0; i < s->nsocket_cpus; i++) {
			if (i)
				fprintf(f, ", ");
			put_q(f, s->socket_cpus[i]);
		}
		fprintf(f, "]\n");
	}
	fprintf(f, "pcie:\n");
	for (i = 0; i < w.nseq; i++) {
		const struct imp_node *d = &s->nodes[w.seq[i]];
		fprintf(f, "  - {id: %s, kind: %s", ids[w.seq[i]], kind_names[d->kind]);
		if (d->kind == IMP_RC) {
			fprintf(f, ", socket: %d", d->socket);
			if (d->numa >= 0)
				fprintf(f, ", numa: %d", d->numa);
		} else {
			fprintf(f, ", parent: %s", ids[d->parent]);
		}
		if (d->model[0]) {
			fprintf(f, ", model: ");
			if (d->kind == IMP_GPU)
				fprintf(f, "%s", d->model);
			else
				put_q(f, d->model);
		}
		if (d->gen > 0)
			fprintf(f, ", gen: %d", d->gen);
		if (d->width > 0)
			fprintf(f, ", width: %d", d->width);
		if (d->acs >= 0 && (d->kind == IMP_RP || d->kind == IMP_SW))
			fprintf(f, ", acs: %s", d->acs ? "true" : "false");
		if (d->bdf[0]) {
			fprintf(f, ", bdf: ");
			put_q(f, d->bdf);
		}
		fputc('}', f);
		if (d->comment[0])
			fprintf(f, "  # %s", d->comment);
		fputc('\n', f);
	}
	if (s->nvswitch || s->npairs > 0) {
		fprintf(f, "nvlink:\n");
		if (s->nvswitch)
			fprintf(f, "  nvswitch: true\n  links_per_gpu: %d\n", s->links_per_gpu);
		if (s->npairs > 0) {
			fprintf(f, "  pairs:\n");
			for (i = 0; i < s->npairs; i++)
				fprintf(f, "    - {gpus: [%s, %s], links: %d}\n",
					ids[s->pairs[i].a], ids[s->pairs[i].b], s->pairs[i].links);
		}
	}
	free(w.minkey);
	free(w.seq);
	free(ids);
	if (fflush(f) != 0 || ferror(f))
		return plumb_err_set(err, PLUMB_EIO, path, 0, 0, "cannot write: %s",
				     strerror(errno));
	return 0;
}
