/*
 * scn_catalog.c - the GPU catalog (scenarios/catalog/gpus.yaml, compiled in).
 *
 * An entry's `names:` and `pci_ids:` say how tools name the GPU, for the
 * importers (io/import.c): one name or id belongs to one entry of a
 * catalog, so a name never resolves to two models.
 */
#include "scn.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ytree.h"

extern const char scn_catalog_gpus_yaml[];

static const char *const gpu_keys[] = {
	"id", "name", "arch", "memory_gib", "memory_gbs", "pcie", "bars", "p2p_pcie",
	"nvlink_links", "nvlink_gbs_per_link", "xgmi_links", "xgmi_gbs_per_link", "p2p_lat_us",
	"tflops", "constants", "source", "names", "pci_ids", "tdp_w", "idle_w", "price_usd", "sms", NULL
};
static const char *const bar_keys[] = { "region", "size", "bits", "prefetchable", NULL };
static const char *const pcie_keys[] = { "gen", "width", NULL };
static const char *const tflops_keys[] = { "bf16", "fp8", "fp4", NULL };
static const char *const p2p_names[] = { "native", "none", NULL };
static const char *const kval_keys[] = { "value", "basis", "source", "range", NULL };
static const char *const basis_names[] = { "measured", "fitted", "assumed", NULL };

/* `range: [LO, HI]` of cited constant c: inside its hard bounds, above 0,
 * and holding the value x. */
static int parse_krange(const struct ytree *t, const struct ynode *n, int c, double x,
			struct scn_gpu_ksrc *ks, struct plumb_err *err)
{
	const struct plumb_const_def *d = &plumb_const_defs[c];
	int rc;

	if ((rc = yexpect(t, n, Y_SEQ, "range", err)) < 0)
		return rc;
	if (n->n != 2)
		return yerr(t, n, PLUMB_EINPUT, err, "'range' of '%s' is [LO, HI], two numbers",
			    d->name);
	if ((rc = yget_double(t, n->vals[0], "range", d->lo, d->hi, &ks->lo, err)) < 0 ||
	    (rc = yget_double(t, n->vals[1], "range", d->lo, d->hi, &ks->hi, err)) < 0)
		return rc;
	if (!(ks->lo > 0) || ks->lo > x || ks->hi < x)
		return yerr(t, n, PLUMB_EINPUT, err, "'range' [%g, %g] of '%s' must hold its value "
			    "%g and start above 0", ks->lo, ks->hi, d->name, x);
	return 0;
}

/*
 * A catalog entry's `constants:` into g: each a bare number (the entry's
 * value, no source of its own) or {value, basis, source, range} (docs/
 * scenarios.md, "The GPU catalog"). A measured or fitted value without a
 * range is drawn within CONSTS_MEASURED_SPREAD of it; an assumed one over
 * its range, else its plausible range, and may leave out its value (the
 * global default's, stated as assumed on this GPU).
 */
static int parse_gpu_consts(const struct ytree *t, const struct ynode *m,
			    struct scn_gpu_model *g, struct plumb_err *err)
{
	size_t i;
	int rc;

	if ((rc = yexpect(t, m, Y_MAP, "constants", err)) < 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		const struct ynode *v = m->vals[i], *w;
		const struct plumb_const_def *d;
		struct scn_gpu_ksrc *ks;
		double x;
		int c, e;

		if ((c = scn_const_index(t, m->keys[i], SCOPE_GPU, err)) < 0)
			return c;
		d = &plumb_const_defs[c];
		if (v->type != Y_MAP) {
			if ((rc = yget_double(t, v, d->name, d->lo, d->hi, &g->k.v[c], err)) < 0)
				return rc;
			g->k.set[c] = 1;
			continue;
		}
		if ((rc = ymap_check_keys(t, v, d->name, kval_keys, err)) < 0)
			return rc;
		if (g->nksrc >= SCN_MAX_GPU_KSRC)
			return yerr(t, m->keys[i], PLUMB_EINPUT, err, "at most %d constants with "
				    "sources in one catalog entry", SCN_MAX_GPU_KSRC);
		ks = &g->ksrc[g->nksrc];
		memset(ks, 0, sizeof(*ks));
		ks->k = c;
		ks->line = m->keys[i]->line;
		ks->col = m->keys[i]->col;
		if (!(w = ymap_get(v, "basis")))
			return yerr(t, v, PLUMB_EINPUT, err, "'%s' needs 'basis': measured, fitted "
				    "or assumed", d->name);
		if ((rc = yget_enum(t, w, "basis", basis_names, &e, err)) < 0)
			return rc;
		ks->basis = (enum plumb_basis)(BASIS_MEASURED + e);
		if (!(w = ymap_get(v, "source")))
			return yerr(t, v, PLUMB_EINPUT, err, "'%s' needs 'source': the measurement "
				    "it comes from (repository and issue or PR, a URL, a file), or why "
				    "it is assumed", d->name);
		if ((rc = yget_str(t, w, "source", ks->source, sizeof(ks->source), err)) < 0)
			return rc;
		if (!ks->source[0])
			return yerr(t, w, PLUMB_EINPUT, err, "empty 'source' of '%s'", d->name);
		if ((w = ymap_get(v, "value"))) {
			if ((rc = yget_double(t, w, d->name, d->lo, d->hi, &g->k.v[c], err)) < 0)
				return rc;
			g->k.set[c] = 1;
		} else if (ks->basis != BASIS_ASSUMED) {
			return yerr(t, v, PLUMB_EINPUT, err, "'%s' needs 'value' (only an assumed "
				    "constant may leave it to the global default)", d->name);
		}
		x = g->k.set[c] ? g->k.v[c] : d->def;
		if ((w = ymap_get(v, "range"))) {
			if ((rc = parse_krange(t, w, c, x, ks, err)) < 0)
				return rc;
		} else if (ks->basis != BASIS_ASSUMED && x > 0) {
			ks->lo = fmax(x / (1 + CONSTS_MEASURED_SPREAD), d->lo);
			ks->hi = fmin(x * (1 + CONSTS_MEASURED_SPREAD), d->hi);
		}
		g->nksrc++;
	}
	return 0;
}

const struct scn_gpu_ksrc *scn_gpu_ksrc_find(const struct scn_gpu_model *g, int k)
{
	int i;
	for (i = 0; g && i < g->nksrc; i++)
		if (g->ksrc[i].k == k)
			return &g->ksrc[i];
	return NULL;
}

static int parse_bar(const struct ytree *t, const struct ynode *n,
		     struct scn_bar *b, struct plumb_err *err)
{
	struct ynode *v;
	long l;
	int rc;

	if ((rc = yexpect(t, n, Y_MAP, "bars entry", err)) < 0 ||
	    (rc = ymap_check_keys(t, n, "bars entry", bar_keys, err)) < 0)
		return rc;
	memset(b, 0, sizeof(*b));
	b->bits = 64;
	b->prefetchable = 1;
	if (!(v = ymap_get(n, "region")))
		return yerr(t, n, PLUMB_EINPUT, err, "bars entry needs 'region'");
	if ((rc = yget_int(t, v, "region", 0, 5, &l, err)) < 0)
		return rc;
	b->region = (int)l;
	if (!(v = ymap_get(n, "size")))
		return yerr(t, n, PLUMB_EINPUT, err, "bars entry needs 'size'");
	if ((rc = yget_size(t, v, "size", &b->size, err)) < 0)
		return rc;
	if (b->size & (b->size - 1))
		return yerr(t, v, PLUMB_EINPUT, err, "BAR size must be a power of two");
	if ((v = ymap_get(n, "bits"))) {
		if ((rc = yget_int(t, v, "bits", 32, 64, &l, err)) < 0)
			return rc;
		if (l != 32 && l != 64)
			return yerr(t, v, PLUMB_EINPUT, err, "'bits' must be 32 or 64");
		b->bits = (int)l;
	}
	if ((v = ymap_get(n, "prefetchable")) &&
	    (rc = yget_bool(t, v, "prefetchable", &b->prefetchable, err)) < 0)
		return rc;
	return 0;
}

/* Copy name into dst (n bytes) lowercased, '-' and '_' as blanks, runs of
 * blanks as one, without leading or trailing blanks. */
static void name_key(char *dst, size_t n, const char *name)
{
	size_t k = 0;
	int blank = 0;

	for (; *name && k + 1 < n; name++) {
		unsigned char c = (unsigned char)*name;
		if (isspace(c) || c == '-' || c == '_') {
			blank = k > 0;
			continue;
		}
		if (blank && k + 2 < n)
			dst[k++] = ' ';
		blank = 0;
		dst[k++] = (char)tolower(c);
	}
	dst[k] = '\0';
}

static int hexdigits(const char *s, size_t n, uint32_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return 0;
		*v = *v * 16 + (uint32_t)(isdigit((unsigned char)s[i]) ? s[i] - '0'
						: tolower((unsigned char)s[i]) - 'a' + 10);
	}
	return 1;
}

/* `names:` and `pci_ids:` of entry n into g. */
static int parse_tool_names(const struct ytree *t, const struct ynode *n,
			    struct scn_gpu_model *g, struct plumb_err *err)
{
	struct ynode *v;
	size_t i;
	int rc;

	if ((v = ymap_get(n, "names"))) {
		if ((rc = yexpect(t, v, Y_SEQ, "names", err)) < 0)
			return rc;
		if (v->n > SCN_MAX_GPU_NAMES)
			return yerr(t, v, PLUMB_EINPUT, err, "at most %d names", SCN_MAX_GPU_NAMES);
		for (i = 0; i < v->n; i++) {
			char key[64];
			if ((rc = yget_str(t, v->vals[i], "names entry", g->names[i],
					   sizeof(g->names[i]), err)) < 0)
				return rc;
			name_key(key, sizeof(key), g->names[i]);
			if (!key[0])
				return yerr(t, v->vals[i], PLUMB_EINPUT, err, "empty GPU name");
		}
		g->nnames = (int)v->n;
	}
	if ((v = ymap_get(n, "pci_ids"))) {
		if ((rc = yexpect(t, v, Y_SEQ, "pci_ids", err)) < 0)
			return rc;
		if (v->n > SCN_MAX_PCI_IDS)
			return yerr(t, v, PLUMB_EINPUT, err, "at most %d pci_ids", SCN_MAX_PCI_IDS);
		for (i = 0; i < v->n; i++) {
			const struct ynode *e = v->vals[i];
			uint32_t ven, dev;
			if ((rc = yexpect(t, e, Y_SCALAR, "pci_ids entry", err)) < 0)
				return rc;
			if (strlen(e->str) != 9 || e->str[4] != ':' ||
			    !hexdigits(e->str, 4, &ven) || !hexdigits(e->str + 5, 4, &dev))
				return yerr(t, e, PLUMB_EINPUT, err, "pci_ids entry '%s' is not a "
					    "vendor:device id of 4 + 4 hex digits (\"10de:2bb5\")",
					    e->str);
			g->pci_ids[i] = ven << 16 | dev;
		}
		g->npci_ids = (int)v->n;
	}
	return 0;
}

/* An error when entry g shares a name or PCI id with an entry of c. */
static int check_tool_names(const struct scn_catalog *c, const struct scn_gpu_model *g,
			    const struct ytree *t, const struct ynode *n, struct plumb_err *err)
{
	int i, j, k;

	for (i = 0; i < g->nnames; i++) {
		char key[64];
		name_key(key, sizeof(key), g->names[i]);
		for (j = 0; j < i; j++) {
			char other[64];
			name_key(other, sizeof(other), g->names[j]);
			if (strcmp(key, other) == 0)
				return yerr(t, n, PLUMB_EINPUT, err, "catalog entry '%s' lists the "
					    "name '%s' twice", g->id, g->names[i]);
		}
		if ((k = scn_catalog_find_name(c, g->names[i])) >= 0)
			return yerr(t, n, PLUMB_EINPUT, err, "GPU name '%s' of '%s' is already "
				    "a name of '%s' (a name identifies one model)", g->names[i],
				    g->id, c->gpus[k].id);
	}
	for (i = 0; i < g->npci_ids; i++) {
		for (j = 0; j < i; j++)
			if (g->pci_ids[j] == g->pci_ids[i])
				return yerr(t, n, PLUMB_EINPUT, err, "catalog entry '%s' lists the "
					    "PCI id %04x:%04x twice", g->id, g->pci_ids[i] >> 16,
					    g->pci_ids[i] & 0xffff);
		if ((k = scn_catalog_find_pci(c, g->pci_ids[i])) >= 0)
			return yerr(t, n, PLUMB_EINPUT, err, "PCI id %04x:%04x of '%s' is already "
				    "an id of '%s' (an id identifies one model)",
				    g->pci_ids[i] >> 16, g->pci_ids[i] & 0xffff, g->id,
				    c->gpus[k].id);
	}
	return 0;
}

/*
 * Architectures an entry may name: NVIDIA compute capabilities (CUDA's
 * sm_XX, Volta to Blackwell) and AMD's gfx targets (ROCm: MI100 gfx908,
 * MI200 gfx90a, MI300 gfx942, MI350 gfx950). The serving tables
 * (scenarios/catalog/engines.yaml) key on them.
 */
static const char *const known_arch[] = {
	"sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100",
	"sm_101", "sm_103", "sm_110", "sm_120", "sm_121", "gfx908", "gfx90a", "gfx942",
	"gfx950", NULL
};

static int check_arch(const struct ytree *t, const struct ynode *v, const char *arch,
		      struct plumb_err *err)
{
	int i;
	for (i = 0; known_arch[i]; i++)
		if (!strcmp(arch, known_arch[i]))
			return 0;
	return yerr(t, v, PLUMB_EINPUT, err, "unknown arch '%s' (one of sm_70 ... sm_121 as "
		    "CUDA names compute capabilities, or gfx908, gfx90a, gfx942, gfx950; "
		    "docs/scenarios.md, \"GPU catalog keys\")", arch);
}

static int parse_gpu(const struct ytree *t, const struct ynode *n,
		     struct scn_gpu_model *g, struct plumb_err *err)
{
	struct ynode *v;
	long l;
	int rc, e;
	size_t i;

	if ((rc = yexpect(t, n, Y_MAP, "gpus entry", err)) < 0 ||
	    (rc = ymap_check_keys(t, n, "gpus entry", gpu_keys, err)) < 0)
		return rc;
	memset(g, 0, sizeof(*g));
	if (!(v = ymap_get(n, "id")))
		return yerr(t, n, PLUMB_EINPUT, err, "catalog entry needs 'id'");
	if ((rc = yget_str(t, v, "id", g->id, sizeof(g->id), err)) < 0)
		return rc;
	if ((v = ymap_get(n, "name")) &&
	    (rc = yget_str(t, v, "name", g->name, sizeof(g->name), err)) < 0)
		return rc;
	if ((v = ymap_get(n, "arch")) &&
	    (rc = yget_str(t, v, "arch", g->arch, sizeof(g->arch), err)) < 0)
		return rc;
	if (v && (rc = check_arch(t, v, g->arch, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "source")) &&
	    (rc = yget_str(t, v, "source", g->source, sizeof(g->source), err)) < 0)
		return rc;
	if (!(v = ymap_get(n, "memory_gib")))
		return yerr(t, n, PLUMB_EINPUT, err, "catalog entry needs 'memory_gib'");
	if ((rc = yget_double(t, v, "memory_gib", 0.001, 1e6, &g->memory_gib, err)) < 0)
		return rc;
	if (!(v = ymap_get(n, "memory_gbs")))
		return yerr(t, n, PLUMB_EINPUT, err, "catalog entry needs 'memory_gbs'");
	if ((rc = yget_double(t, v, "memory_gbs", 1, 1e6, &g->memory_gbs, err)) < 0)
		return rc;
	g->pcie_gen = 4;
	g->pcie_width = 16;
	if ((v = ymap_get(n, "pcie"))) {
		struct ynode *w;
		if ((rc = yexpect(t, v, Y_MAP, "pcie", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "pcie", pcie_keys, err)) < 0)
			return rc;
		if ((w = ymap_get(v, "gen"))) {
			if ((rc = yget_int(t, w, "gen", 1, 6, &l, err)) < 0)
				return rc;
			g->pcie_gen = (int)l;
		}
		if ((w = ymap_get(v, "width"))) {
			if ((rc = yget_int(t, w, "width", 1, 32, &l, err)) < 0)
				return rc;
			g->pcie_width = (int)l;
		}
	}
	if ((v = ymap_get(n, "bars"))) {
		if ((rc = yexpect(t, v, Y_SEQ, "bars", err)) < 0)
			return rc;
		if (v->n > SCN_MAX_BARS)
			return yerr(t, v, PLUMB_EINPUT, err, "at most %d BARs", SCN_MAX_BARS);
		for (i = 0; i < v->n; i++)
			if ((rc = parse_bar(t, v->vals[i], &g->bars[i], err)) < 0)
				return rc;
		g->nbars = (int)v->n;
	}
	g->p2p = SCN_P2P_NATIVE;
	if ((v = ymap_get(n, "p2p_pcie"))) {
		if ((rc = yget_enum(t, v, "p2p_pcie value", p2p_names, &e, err)) < 0)
			return rc;
		g->p2p = e ? SCN_P2P_UNSUPPORTED : SCN_P2P_NATIVE;
	}
	if ((v = ymap_get(n, "nvlink_links"))) {
		if ((rc = yget_int(t, v, "nvlink_links", 0, 64, &l, err)) < 0)
			return rc;
		g->nvlink_links = (int)l;
	}
	if ((v = ymap_get(n, "p2p_lat_us")) &&
	    (rc = yget_double(t, v, "p2p_lat_us", 0, 1000, &g->p2p_lat_us, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "nvlink_gbs_per_link")) &&
	    (rc = yget_double(t, v, "nvlink_gbs_per_link", 0, 1e4,
			      &g->nvlink_gbs_per_link, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "xgmi_links"))) {
		if ((rc = yget_int(t, v, "xgmi_links", 0, 64, &l, err)) < 0)
			return rc;
		g->xgmi_links = (int)l;
	}
	if ((v = ymap_get(n, "xgmi_gbs_per_link")) &&
	    (rc = yget_double(t, v, "xgmi_gbs_per_link", 0, 1e4,
			      &g->xgmi_gbs_per_link, err)) < 0)
		return rc;
	if (g->xgmi_links > 0 && g->nvlink_links > 0)
		return yerr(t, n, PLUMB_EINPUT, err,
			    "GPU '%s' gives both nvlink_links and xgmi_links: a GPU has one kind", g->id);
	/* power and price (models/cost) */
	if ((v = ymap_get(n, "tdp_w")) &&
	    (rc = yget_double(t, v, "tdp_w", 1, 1e5, &g->tdp_w, err)) < 0)
		return rc;
	if ((v = ymap_get(n, "idle_w")) &&
	    (rc = yget_double(t, v, "idle_w", 0, 1e5, &g->idle_w, err)) < 0)
		return rc;
	if (v && g->tdp_w > 0 && g->idle_w >= g->tdp_w)
		return yerr(t, v, PLUMB_EINPUT, err, "idle_w (%g) must be below tdp_w (%g)",
			    g->idle_w, g->tdp_w);
	if ((v = ymap_get(n, "sms"))) {
		long d;
		if ((rc = yget_int(t, v, "sms", 1, 1024, &d, err)) < 0)
			return rc;
		g->sms = (int)d;
	}
	if ((v = ymap_get(n, "price_usd")) &&
	    (rc = yget_double(t, v, "price_usd", 0, 1e8, &g->price_usd, err)) < 0)
		return rc;
	/* gpu-scope defaults for this model (the GPU and its kernel library) */
	if ((v = ymap_get(n, "constants")) && (rc = parse_gpu_consts(t, v, g, err)) < 0)
		return rc;
	if (!(g->cat_file = plumb_keep_path(t->file)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	/* tflops may be left out (a GPU for topology only, e.g. Turing: no
	 * bf16); given, it needs bf16, the rate every fallback ends at */
	if ((v = ymap_get(n, "tflops")) && v->type == Y_MAP && !ymap_get(v, "bf16"))
		return yerr(t, v, PLUMB_EINPUT, err, "'tflops' of '%s' needs 'bf16' (fp8 and "
			    "fp4 where the GPU has them)", g->id);
	if (v) {
		double *dst[] = { &g->tflops_bf16, &g->tflops_fp8, &g->tflops_fp4 };
		struct ynode *w;
		if ((rc = yexpect(t, v, Y_MAP, "tflops", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "tflops", tflops_keys, err)) < 0)
			return rc;
		for (i = 0; i < 3; i++)
			if ((w = ymap_get(v, tflops_keys[i])) &&
			    (rc = yget_double(t, w, tflops_keys[i], 0.001, 1e6, dst[i], err)) < 0)
				return rc;
	}
	return parse_tool_names(t, n, g, err);
}

int scn_catalog_add(struct scn_catalog *c, const struct ytree *t, const struct ynode *seq,
		    struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, seq, Y_SEQ, "gpus", err)) < 0)
		return rc;
	if (seq->n > (size_t)(SCN_MAX_CATALOG - c->n))
		return yerr(t, seq, PLUMB_EINPUT, err, "at most %d catalog entries",
			    SCN_MAX_CATALOG);
	for (i = 0; i < seq->n; i++) {
		struct scn_gpu_model *g = &c->gpus[c->n];
		if ((rc = parse_gpu(t, seq->vals[i], g, err)) < 0)
			return rc;
		if (scn_catalog_find(c, g->id) >= 0)
			return yerr(t, seq->vals[i], PLUMB_EINPUT, err,
				    "duplicate catalog id '%s'%s", g->id, c->n ? " (the catalog "
				    "already has it: give a new GPU model its own id)" : "");
		if ((rc = check_tool_names(c, g, t, seq->vals[i], err)) < 0)
			return rc;
		c->n++;
	}
	return 0;
}

int scn_catalog_parse(const char *file, const char *text, struct scn_catalog **out,
		      struct plumb_err *err)
{
	static const char *const top_keys[] = { "catalog", "gpus", NULL };
	struct ytree *t = NULL;
	struct scn_catalog *c;
	struct ynode *gpus;
	int rc;

	*out = NULL;
	if ((rc = ytree_parse(file, text, strlen(text), &t, err)) < 0)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c) {
		ytree_free(t);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	if (!t->root) {
		rc = plumb_err_set(err, PLUMB_EINPUT, file, 1, 1, "empty catalog");
		goto fail;
	}
	if ((rc = yexpect(t, t->root, Y_MAP, "catalog", err)) < 0 ||
	    (rc = ymap_check_keys(t, t->root, "catalog", top_keys, err)) < 0)
		goto fail;
	gpus = ymap_get(t->root, "gpus");
	if (!gpus) {
		rc = yerr(t, t->root, PLUMB_EINPUT, err, "catalog needs 'gpus'");
		goto fail;
	}
	if ((rc = scn_catalog_add(c, t, gpus, err)) < 0)
		goto fail;
	ytree_free(t);
	*out = c;
	return 0;
fail:
	ytree_free(t);
	free(c);
	return rc;
}

const struct scn_catalog *scn_catalog_builtin(struct plumb_err *err)
{
	/*
	 * Parsed once and kept for the life of the process: read-only after
	 * the first call, so it is shared state, not mutable global state.
	 */
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct scn_catalog *builtin;
	struct scn_catalog *c;
	pthread_mutex_lock(&mu);        /* the first call may come from threads */
	if (!builtin &&
	    scn_catalog_parse("scenarios/catalog/gpus.yaml", scn_catalog_gpus_yaml,
			      &builtin, err) < 0)
		builtin = NULL;
	c = builtin;
	pthread_mutex_unlock(&mu);
	return c;
}

int scn_catalog_find(const struct scn_catalog *c, const char *id)
{
	int i;
	for (i = 0; i < c->n; i++)
		if (strcasecmp(c->gpus[i].id, id) == 0)     /* L40S is l40s */
			return i;
	return -1;
}

int scn_catalog_find_pci(const struct scn_catalog *c, uint32_t id)
{
	int i, k;
	for (i = 0; i < c->n; i++)
		for (k = 0; k < c->gpus[i].npci_ids; k++)
			if (c->gpus[i].pci_ids[k] == id)
				return i;
	return -1;
}

int scn_catalog_find_name(const struct scn_catalog *c, const char *name)
{
	char key[128], other[64];
	int i, k;

	name_key(key, sizeof(key), name);
	if (!key[0])
		return -1;
	for (i = 0; i < c->n; i++)
		for (k = 0; k < c->gpus[i].nnames; k++) {
			name_key(other, sizeof(other), c->gpus[i].names[k]);
			if (strcmp(key, other) == 0)
				return i;
		}
	return -1;
}

uint64_t scn_gpu_bar_total(const struct scn_gpu_model *m)
{
	uint64_t s = 0;
	int i;
	for (i = 0; i < m->nbars; i++)
		s += m->bars[i].size;
	return s;
}
