/*
 * scn_engines.c - the engine table (scenarios/catalog/engines.yaml) into
 * struct scn_eng_table, and what an engine runs for a model family and a
 * GPU (scn_serving_fill). The table is data with a source per row; nothing
 * here knows an engine's choices but the file.
 *
 * Invariant of a parsed table: every engine's last row applies to every
 * version, family and architecture and states every setting, so a pick
 * always finds each setting.
 */
#include "scn.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ytree.h"

extern const char scn_catalog_engines_yaml[];

static const char *const top_keys[] = { "catalog", "engines", NULL };
static const char *const engine_keys[] = { "name", "known", "default", "rows", NULL };
static const char *const row_keys[] = {
	"family", "arch", "since", "before", "attention_backend", "dsa", "custom_allreduce",
	"custom_allreduce_pcie", "allreduce_fusion", "moe_backend", "moe_runner", "cuda_graphs",
	"prefill_graphs", "scheduler", "chunked_prefill", "max_batched_tokens", "source", NULL
};
/* enum scn_eng_col order: the key each setting has in a row */
static const char *const col_keys[SCN_NEC] = {
	"attention_backend", "dsa", "custom_allreduce", "custom_allreduce_pcie",
	"allreduce_fusion", "moe_backend", "moe_runner", "cuda_graphs", "prefill_graphs",
	"scheduler", "chunked_prefill", "max_batched_tokens"
};
static const char *const table_engines[] = { "sglang", "vllm", "trtllm", NULL };
static const char *const family_names[] = { "dsa", "mla", "gqa-moe", "gqa", NULL };
static const char *const ar_names[] = { "off", "oneshot", "twoshot", "auto", NULL };
static const char *const dsa_names[] = { "sparse", "dense", NULL };
static const char *const sched_names[] = { "prefill-first", "mixed", NULL };
static const char *const runner_names[] = { "fused", "grouped", "loop", "deepep", NULL };

const char *scn_family_name(enum scn_family f)
{
	return (unsigned)f < SCN_NFAMILY ? family_names[f] : "?";
}

const char *scn_eng_col_name(enum scn_eng_col c)
{
	return (unsigned)c < SCN_NEC ? col_keys[c] : "?";
}

unsigned scn_version_pack(const char *s)
{
	unsigned part[3] = { 0, 0, 0 };
	int n = 0;
	const char *p = s;
	if (!s || !*s)
		return 0;
	while (n < 3) {
		char *end;
		long v;
		if (*p < '0' || *p > '9')
			return 0;
		v = strtol(p, &end, 10);
		if (v > 1023)
			return 0;
		part[n++] = (unsigned)v;
		p = end;
		if (*p == '\0')
			break;
		if (*p != '.')
			return 0;
		p++;
	}
	if (*p)
		return 0;
	/* 0.0.0 packs to 0, "none": versions start at 0.0.1 */
	return part[0] << 20 | part[1] << 10 | part[2];
}

const char *scn_version_text(unsigned v, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%u.%u", v >> 20, (v >> 10) & 1023u, v & 1023u);
	return buf;
}

static int get_version(const struct ytree *t, const struct ynode *v, const char *what,
		       unsigned *out, struct plumb_err *err)
{
	int rc;
	if ((rc = yexpect(t, v, Y_SCALAR, what, err)) < 0)
		return rc;
	if (!(*out = scn_version_pack(v->str)))
		return yerr(t, v, PLUMB_EINPUT, err,
			    "%s: '%s' is not a version (1 to 3 numbers below 1024, e.g. 0.5.9)",
			    what, v->str);
	return 0;
}

static int get_tiers(const struct ytree *t, const struct ynode *v, const char *what,
		     struct scn_eng_tiers *out, struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, v, Y_SEQ, what, err)) < 0)
		return rc;
	if (v->n < 1 || v->n > SCN_ENG_MAX_TIERS)
		return yerr(t, v, PLUMB_EINPUT, err, "%s: 1 to %d [below_gib, tokens] pairs",
			    what, SCN_ENG_MAX_TIERS);
	for (i = 0; i < v->n; i++) {
		const struct ynode *p = v->vals[i];
		long tok;
		if ((rc = yexpect(t, p, Y_SEQ, what, err)) < 0)
			return rc;
		if (p->n != 2)
			return yerr(t, p, PLUMB_EINPUT, err,
				    "%s: each tier is [below_gib, tokens] (0 GiB: any memory)", what);
		if ((rc = yget_double(t, p->vals[0], what, 0, 100000, &out->below_gib[i], err)) < 0 ||
		    (rc = yget_int(t, p->vals[1], what, 0, 10000000, &tok, err)) < 0)
			return rc;
		out->tokens[i] = tok;
	}
	if (out->below_gib[v->n - 1] != 0)
		return yerr(t, v->vals[v->n - 1], PLUMB_EINPUT, err,
			    "%s: the last tier is [0, tokens] (any memory)", what);
	out->n = (int)v->n;
	return 0;
}

static int get_names(const struct ytree *t, const struct ynode *v, const char *what,
		     char (*out)[16], int max, int *n, struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, v, Y_SEQ, what, err)) < 0)
		return rc;
	if (v->n < 1 || (int)v->n > max)
		return yerr(t, v, PLUMB_EINPUT, err, "%s: 1 to %d names", what, max);
	for (i = 0; i < v->n; i++)
		if ((rc = yget_str(t, v->vals[i], what, out[i], 16, err)) < 0)
			return rc;
	*n = (int)v->n;
	return 0;
}

static int parse_row(const struct ytree *t, const struct ynode *m, struct scn_eng_row *r,
		     struct plumb_err *err)
{
	struct ynode *v;
	int rc, e, c;
	char fam[SCN_NFAMILY][16];

	if ((rc = yexpect(t, m, Y_MAP, "engine row", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "engine row", row_keys, err)) < 0)
		return rc;
	memset(r, 0, sizeof(*r));
	r->line = m->line;
	r->col = m->col;
	r->families = (1u << SCN_NFAMILY) - 1;
	if ((v = ymap_get(m, "family"))) {
		int n, i;
		if ((rc = get_names(t, v, "family", fam, SCN_NFAMILY, &n, err)) < 0)
			return rc;
		r->families = 0;
		for (i = 0; i < n; i++) {
			for (e = 0; family_names[e] && strcmp(family_names[e], fam[i]); e++)
				;
			if (!family_names[e])
				return yerr(t, v->vals[i], PLUMB_EINPUT, err,
					    "unknown family '%s' (dsa, mla, gqa-moe or gqa)", fam[i]);
			r->families |= 1u << e;
		}
	}
	if ((v = ymap_get(m, "arch")) &&
	    (rc = get_names(t, v, "arch", r->arch, SCN_ENG_MAX_ARCH, &r->narch, err)) < 0)
		return rc;
	if (r->narch == 1 && !strcmp(r->arch[0], "any"))
		r->narch = 0;
	if ((v = ymap_get(m, "since")) && (rc = get_version(t, v, "since", &r->since, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "before")) && (rc = get_version(t, v, "before", &r->before, err)) < 0)
		return rc;
	for (c = 0; c < SCN_NEC; c++) {
		if (!(v = ymap_get(m, col_keys[c])))
			continue;
		r->states |= 1u << c;
		switch (c) {
		case SCN_EC_ATTN:
			rc = yget_str(t, v, col_keys[c], r->attention_backend,
				      sizeof(r->attention_backend), err);
			break;
		case SCN_EC_DSA:
			rc = yget_enum(t, v, "dsa", dsa_names, &r->dsa_dense, err);
			break;
		case SCN_EC_AR:
		case SCN_EC_AR_PCIE:
			if ((rc = yget_enum(t, v, col_keys[c], ar_names, &e, err)) == 0) {
				if (c == SCN_EC_AR)
					r->ar = (enum scn_allreduce)e;
				else
					r->ar_pcie = (enum scn_allreduce)e;
			}
			break;
		case SCN_EC_FUSION:
			rc = yget_bool(t, v, col_keys[c], &r->fusion, err);
			break;
		case SCN_EC_MOE_BACKEND:
			rc = yget_str(t, v, col_keys[c], r->moe_backend, sizeof(r->moe_backend), err);
			break;
		case SCN_EC_MOE_RUNNER:
			if ((rc = yget_enum(t, v, "moe_runner", runner_names, &e, err)) == 0)
				snprintf(r->moe_runner, sizeof(r->moe_runner), "%s", runner_names[e]);
			break;
		case SCN_EC_GRAPHS:
			rc = yget_bool(t, v, col_keys[c], &r->graphs, err);
			break;
		case SCN_EC_PREFILL_GRAPHS:
			rc = yget_bool(t, v, col_keys[c], &r->prefill_graphs, err);
			break;
		case SCN_EC_SCHED:
			rc = yget_enum(t, v, "scheduler", sched_names, &r->mixed, err);
			break;
		case SCN_EC_CHUNK:
			rc = get_tiers(t, v, col_keys[c], &r->chunk, err);
			break;
		default:
			rc = get_tiers(t, v, col_keys[c], &r->maxbatch, err);
			break;
		}
		if (rc < 0)
			return rc;
	}
	if (!(v = ymap_get(m, "source")))
		return yerr(t, m, PLUMB_EINPUT, err, "an engine row needs its 'source'");
	return yget_str(t, v, "source", r->source, sizeof(r->source), err);
}

static int parse_engine(const struct ytree *t, const struct ynode *m, struct scn_eng_table *tab,
			struct plumb_err *err)
{
	struct scn_eng *g = &tab->e[tab->n];
	struct ynode *v;
	const struct scn_eng_row *last;
	int rc, e, i;
	size_t k;

	if ((rc = yexpect(t, m, Y_MAP, "engine", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "engine", engine_keys, err)) < 0)
		return rc;
	if (!(v = ymap_get(m, "name")))
		return yerr(t, m, PLUMB_EINPUT, err, "an engine needs its 'name'");
	if ((rc = yget_enum(t, v, "engine", table_engines, &e, err)) < 0)
		return rc;
	for (i = 0; i < tab->n; i++)
		if ((int)tab->e[i].id == e)
			return yerr(t, v, PLUMB_EINPUT, err, "engine '%s' is given twice", v->str);
	memset(g, 0, sizeof(*g));
	g->id = (enum scn_engine)e;
	if (!(v = ymap_get(m, "known")) || v->type != Y_SEQ || v->n != 2)
		return yerr(t, v ? v : m, PLUMB_EINPUT, err,
			    "an engine needs 'known: [oldest, newest]' (the versions it describes)");
	if ((rc = get_version(t, v->vals[0], "known", &g->oldest, err)) < 0 ||
	    (rc = get_version(t, v->vals[1], "known", &g->newest, err)) < 0)
		return rc;
	if (g->oldest > g->newest)
		return yerr(t, v, PLUMB_EINPUT, err, "known: the oldest version comes first");
	if (!(v = ymap_get(m, "default")))
		return yerr(t, m, PLUMB_EINPUT, err, "an engine needs its 'default' version");
	if ((rc = get_version(t, v, "default", &g->def, err)) < 0)
		return rc;
	if (g->def < g->oldest || g->def > g->newest)
		return yerr(t, v, PLUMB_EINPUT, err, "the default version lies outside 'known'");
	if (!(v = ymap_get(m, "rows")) || v->type != Y_SEQ || v->n == 0)
		return yerr(t, v ? v : m, PLUMB_EINPUT, err, "an engine needs its 'rows' (a list)");
	if (v->n > SCN_ENG_MAX_ROWS)
		return yerr(t, v, PLUMB_EINPUT, err, "at most %d rows per engine", SCN_ENG_MAX_ROWS);
	for (k = 0; k < v->n; k++)
		if ((rc = parse_row(t, v->vals[k], &g->rows[g->nrows++], err)) < 0)
			return rc;
	last = &g->rows[g->nrows - 1];
	if (last->narch || last->since || last->before ||
	    last->families != (1u << SCN_NFAMILY) - 1)
		return plumb_err_set(err, PLUMB_EINPUT, t->file, last->line, last->col,
				     "an engine's last row applies to every version, family and arch");
	for (i = 0; i < SCN_NEC; i++)
		if (!(last->states & (1u << i)))
			return plumb_err_set(err, PLUMB_EINPUT, t->file, last->line, last->col,
					     "an engine's last row states every setting ('%s' is missing)",
					     col_keys[i]);
	tab->n++;
	return 0;
}

int scn_engines_parse(const char *file, const char *text, struct scn_eng_table **out,
		      struct plumb_err *err)
{
	struct ytree *t = NULL;
	struct scn_eng_table *tab = NULL;
	struct ynode *v;
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = ytree_parse(file, text, strlen(text), &t, err)) < 0)
		return rc;
	if (!(tab = calloc(1, sizeof(*tab)))) {
		rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	if (!t->root) {
		rc = plumb_err_set(err, PLUMB_EINPUT, file, 1, 1, "empty engine table");
		goto fail;
	}
	if ((rc = yexpect(t, t->root, Y_MAP, "engine table", err)) < 0 ||
	    (rc = ymap_check_keys(t, t->root, "engine table", top_keys, err)) < 0)
		goto fail;
	if (!(v = ymap_get(t->root, "engines")) || v->type != Y_SEQ) {
		rc = yerr(t, v ? v : t->root, PLUMB_EINPUT, err, "the table needs 'engines' (a list)");
		goto fail;
	}
	if (v->n > SCN_NENGINES) {
		rc = yerr(t, v, PLUMB_EINPUT, err, "at most %d engines", SCN_NENGINES);
		goto fail;
	}
	for (i = 0; i < v->n; i++)
		if ((rc = parse_engine(t, v->vals[i], tab, err)) < 0)
			goto fail;
	ytree_free(t);
	*out = tab;
	return 0;
fail:
	ytree_free(t);
	free(tab);
	return rc;
}

const struct scn_eng_table *scn_engines_builtin(struct plumb_err *err)
{
	/* Parsed once, read-only afterwards: shared state, not mutable state. */
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static struct scn_eng_table *builtin;
	const struct scn_eng_table *t;
	pthread_mutex_lock(&mu);
	if (!builtin && scn_engines_parse("scenarios/catalog/engines.yaml",
					  scn_catalog_engines_yaml, &builtin, err) < 0)
		builtin = NULL;
	t = builtin;
	pthread_mutex_unlock(&mu);
	return t;
}

const struct scn_eng *scn_engines_find(const struct scn_eng_table *t, enum scn_engine e)
{
	int i;
	for (i = 0; t && i < t->n; i++)
		if (t->e[i].id == e)
			return &t->e[i];
	return NULL;
}

int scn_engine_spec(const char *spec, int allow_other, enum scn_engine *e, unsigned *version,
		    char *msg, size_t n)
{
	static const char *const all[] = { "sglang", "vllm", "trtllm", "other", NULL };
	const struct scn_eng_table *t = scn_engines_builtin(NULL);
	const struct scn_eng *g;
	const char *at = strchr(spec, '@');
	char name[32], a[16], b[16];
	size_t len = at ? (size_t)(at - spec) : strlen(spec);
	int i, best = -1, bd = 1000;

	*version = 0;
	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), spec);
	for (i = 0; all[i]; i++) {
		int d = str_distance(name, all[i]);
		if (!strcmp(name, all[i]) && (i < 3 || allow_other))
			break;
		if (d < bd && (i < 3 || allow_other)) {
			bd = d;
			best = i;
		}
	}
	if (!all[i] || (i == 3 && !allow_other)) {
		if (best >= 0 && bd <= 2)
			snprintf(msg, n, "unknown engine '%s' (did you mean '%s'?)", name, all[best]);
		else
			snprintf(msg, n, "unknown engine '%s' (sglang, vllm or trtllm%s)", name,
				 allow_other ? ", or other" : "");
		return -1;
	}
	*e = (enum scn_engine)i;
	if (!at)
		return 0;
	if (i == 3) {
		snprintf(msg, n, "engine 'other' has no versions (the table describes sglang, vllm and trtllm)");
		return -1;
	}
	if (!(*version = scn_version_pack(at + 1))) {
		snprintf(msg, n, "'%s' is not a version of %s (1 to 3 numbers, e.g. %s@0.5.9)",
			 at + 1, name, name);
		return -1;
	}
	if (!(g = scn_engines_find(t, *e)))
		return 0;
	if (*version < g->oldest || *version > g->newest) {
		snprintf(msg, n, "unknown %s version '%s' (the engine table describes %s to %s)",
			 name, at + 1, scn_version_text(g->oldest, a, sizeof(a)),
			 scn_version_text(g->newest, b, sizeof(b)));
		return -1;
	}
	return 0;
}

static int row_applies(const struct scn_eng_row *r, unsigned ver, enum scn_family fam,
		       const char *arch)
{
	int i;
	if (ver < r->since || (r->before && ver >= r->before))
		return 0;
	if (!(r->families & (1u << fam)))
		return 0;
	if (!r->narch)
		return 1;
	for (i = 0; i < r->narch; i++)
		if (!strcmp(r->arch[i], arch))
			return 1;
	return 0;
}

static long tier_tokens(const struct scn_eng_tiers *t, double mem_gib)
{
	int i;
	for (i = 0; i < t->n; i++)
		if (t->below_gib[i] == 0 || mem_gib < t->below_gib[i])
			return t->tokens[i];
	return 0;
}

int scn_serving_fill(struct scn_serving *sv, const struct scn_eng_table *t,
		     enum scn_engine eng, unsigned version, enum scn_family fam,
		     const char *arch, double mem_gib, int nvlink)
{
	const struct scn_eng *g = scn_engines_find(t, eng);
	const struct scn_eng_row *at[SCN_NEC];
	int c, i;

	if (!g)
		return -1;
	if (!version)
		version = g->def;
	for (c = 0; c < SCN_NEC; c++) {
		at[c] = NULL;
		for (i = 0; i < g->nrows && !at[c]; i++)
			if ((g->rows[i].states & (1u << c)) && row_applies(&g->rows[i], version, fam, arch))
				at[c] = &g->rows[i];
		if (!at[c])
			return -1;
		sv->src_row[c] = (int)(at[c] - g->rows);
	}
	sv->engine = eng;
	sv->version = version;
	sv->from_table = 1;
	/* what the scenario states wins: it records what was measured */
	if (!(sv->stated & SCN_SV_ATTN))
		snprintf(sv->attention_backend, sizeof(sv->attention_backend), "%s",
			 at[SCN_EC_ATTN]->attention_backend);
	else
		sv->src_row[SCN_EC_ATTN] = -1;
	if (!(sv->stated & SCN_SV_DSA))
		sv->dsa_dense = at[SCN_EC_DSA]->dsa_dense;
	else
		sv->src_row[SCN_EC_DSA] = -1;
	if (!(sv->stated & SCN_SV_ALLREDUCE)) {
		sv->allreduce = nvlink ? at[SCN_EC_AR]->ar : at[SCN_EC_AR_PCIE]->ar_pcie;
		sv->src_row[nvlink ? SCN_EC_AR_PCIE : SCN_EC_AR] = -1;
	} else {
		sv->src_row[SCN_EC_AR] = sv->src_row[SCN_EC_AR_PCIE] = -1;
	}
	if (!(sv->stated & SCN_SV_FUSION))
		sv->allreduce_fusion = at[SCN_EC_FUSION]->fusion;
	else
		sv->src_row[SCN_EC_FUSION] = -1;
	if (!(sv->stated & SCN_SV_MOE_BACKEND))
		snprintf(sv->moe_backend, sizeof(sv->moe_backend), "%s",
			 at[SCN_EC_MOE_BACKEND]->moe_backend);
	else
		sv->src_row[SCN_EC_MOE_BACKEND] = -1;
	snprintf(sv->table_moe_runner, sizeof(sv->table_moe_runner), "%s",
		 at[SCN_EC_MOE_RUNNER]->moe_runner);
	/* the table's runner drives the step unless the scenario names one:
	 * fused or grouped kernels are plumb's fused runner */
	if (!(sv->stated & SCN_SV_MOE_RUNNER)) {
		const char *r = sv->table_moe_runner;
		sv->moe.runner = !strcmp(r, "loop") ? SCN_MOE_LOOP :
				 !strcmp(r, "deepep") ? SCN_MOE_DEEPEP : SCN_MOE_FUSED;
	} else {
		sv->src_row[SCN_EC_MOE_RUNNER] = -1;
	}
	if (!(sv->stated & SCN_SV_GRAPHS))
		sv->cuda_graphs = at[SCN_EC_GRAPHS]->graphs;
	else
		sv->src_row[SCN_EC_GRAPHS] = -1;
	sv->prefill_graphs = at[SCN_EC_PREFILL_GRAPHS]->prefill_graphs;
	sv->mixed = at[SCN_EC_SCHED]->mixed;
	sv->chunk_tokens = tier_tokens(&at[SCN_EC_CHUNK]->chunk, mem_gib);
	sv->max_batched = sv->mixed ? tier_tokens(&at[SCN_EC_MAXBATCH]->maxbatch, mem_gib) : 0;
	scn_serving_derive(sv);
	return 0;
}
