/*
 * test_sweep.c - grids, scenario variants, the step cache and the runner
 * (models/sweep). Runs from the repository root (make check) and reads the
 * bundled scenarios; sweeps run on the 2-GPU workstation with a small model
 * so the suite stays well under a second.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scn.h"
#include "sweep.h"

void suite_sweep(void);

#define WS "scenarios/workstation-2x-rtx5090.yaml"
#define VM "scenarios/proxmox-vm-8x-rtxpro6000.yaml"

static struct swp_grid *parse(const char *text, struct plumb_err *err)
{
	struct swp_grid *g = NULL;
	plumb_err_clear(err);
	if (swp_grid_parse("t.yaml", text, &g, err) < 0) {
		CU_ASSERT_PTR_NULL(g);
		return NULL;
	}
	return g;
}

static const char *val(const struct swp_grid *g, const struct swp_point *p, const char *name)
{
	int i;
	for (i = 0; i < g->nnames; i++)
		if (!strcmp(g->names[i].name, name))
			return p->val[i] ? p->val[i]->str : NULL;
	return NULL;
}

static void test_expand(void)
{
	struct plumb_err err;
	struct swp_point p;
	struct swp_grid *g = parse("plumb_grid: 1\n"
				   "set: {scenario: " WS ", model: mixtral-8x7b}\n"
				   "axes:\n"
				   "  concurrency: [1, 2, 4]\n"
				   "  price_usd: [10, 20]\n"
				   "  input: [128, 256, 512, 1024]\n", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->npoints, 24);
	CU_ASSERT_EQUAL(g->naxes, 3);
	/* the last axis varies fastest */
	swp_grid_point(g, 0, &p);
	CU_ASSERT_STRING_EQUAL(val(g, &p, "concurrency"), "1");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "price_usd"), "10");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "input"), "128");
	swp_grid_point(g, 1, &p);
	CU_ASSERT_STRING_EQUAL(val(g, &p, "input"), "256");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "price_usd"), "10");
	swp_grid_point(g, 4, &p);
	CU_ASSERT_STRING_EQUAL(val(g, &p, "price_usd"), "20");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "input"), "128");
	swp_grid_point(g, 23, &p);
	CU_ASSERT_STRING_EQUAL(val(g, &p, "concurrency"), "4");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "price_usd"), "20");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "input"), "1024");
	CU_ASSERT_STRING_EQUAL(val(g, &p, "model"), "mixtral-8x7b");
	CU_ASSERT_EQUAL(p.index, 23);
	/* no axis touches the scenario: one variant */
	CU_ASSERT_EQUAL(p.variant, 0);
	CU_ASSERT_EQUAL(g->nprice, 1);
	swp_grid_free(g);
}

static void test_linked_items(void)
{
	struct plumb_err err;
	struct swp_point p;
	struct swp_grid *g = parse("plumb_grid: 1\n"
				   "axes:\n"
				   "  scenario:\n"
				   "    - {value: " WS ", price_usd: 5000}\n"
				   "    - {value: " VM ", price_usd: 100000}\n"
				   "  concurrency: [1, 8]\n", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(g->npoints, 4);
	CU_ASSERT_EQUAL(g->nbases, 2);
	swp_grid_point(g, 3, &p);
	CU_ASSERT_STRING_EQUAL(val(g, &p, "price_usd"), "100000");
	CU_ASSERT_EQUAL(p.base, 1);
	CU_ASSERT_EQUAL(p.variant, 1);
	swp_grid_point(g, 1, &p);
	CU_ASSERT_STRING_EQUAL(val(g, &p, "price_usd"), "5000");
	CU_ASSERT_EQUAL(p.variant, 0);
	swp_grid_free(g);
}

static void test_apply(void)
{
	struct plumb_err err;
	struct swp_point p;
	struct scenario *s = NULL;
	char *text = NULL;
	struct swp_grid *g = parse("plumb_grid: 1\n"
				   "set: {scenario: " VM "}\n"
				   "axes:\n"
				   "  host.inter_socket.bandwidth_gbs: [48, 256]\n"
				   "  pcie[gpu3].gen: [4]\n"
				   "  nccl.p2p_level: [SYS]\n"
				   "  constants.nccl_shm_gbs: [20]\n"
				   "  virtualization.pcie_passthrough: [false]\n", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(swp_grid_check(g, &err), 0);
	swp_grid_point(g, 1, &p);
	CU_ASSERT_EQUAL(p.variant, 1);
	CU_ASSERT_EQUAL_FATAL(swp_variant_load(g, &p, &s, &err), 0);
	CU_ASSERT_DOUBLE_EQUAL(s->host.inter_socket_gbs, 256, 1e-9);
	CU_ASSERT_EQUAL(s->nodes[s->gpu_node[3]].gen, 4);
	CU_ASSERT_EQUAL(s->nodes[s->gpu_node[2]].gen, 5);
	CU_ASSERT_EQUAL(s->nccl_level, 6);  /* SYS; the VM file has no nccl block */
	CU_ASSERT_DOUBLE_EQUAL(s->k.v[consts_find("nccl_shm_gbs")], 20, 1e-9);
	CU_ASSERT_EQUAL(s->vm.mode, SCN_VM);
	CU_ASSERT_EQUAL(s->vm.pcie_passthrough, 0);
	CU_ASSERT_EQUAL(s->ngpus, 8);
	CU_ASSERT_STRING_EQUAL(s->name, "proxmox-vm-8x-rtxpro6000");
	scn_free(s);
	/* the written text carries the override */
	CU_ASSERT_EQUAL(swp_variant_text(g, &p, &text, &err), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "bandwidth_gbs: 256"));
	free(text);
	swp_grid_free(g);
}

static void test_errors(void)
{
	struct plumb_err err;
	struct swp_grid *g;
	char *big = malloc(4096);
	size_t n = 0;
	int i, ax;

	/* a bad value is reported at its place in the grid */
	g = parse("plumb_grid: 1\n"
		  "set: {scenario: " VM "}\n"
		  "axes:\n"
		  "  virtualization.mode: [vm, bare_metl]\n", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT(swp_grid_check(g, &err) < 0);
	CU_ASSERT_STRING_EQUAL(err.file, "t.yaml");
	CU_ASSERT_EQUAL(err.line, 4);
	CU_ASSERT_EQUAL(err.col, 29);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "did you mean 'bare_metal'"));
	swp_grid_free(g);
	/* a typo close to a setting is not taken for a free input */
	CU_ASSERT_PTR_NULL(parse("plumb_grid: 1\nset: {scenario: " WS ", concurency: 4}\n", &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "did you mean 'concurrency'"));
	CU_ASSERT_PTR_NULL(parse("plumb_grid: 1\nset: {scenario: " WS ", hots.sockets: 2}\n", &err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "did you mean 'host'"));
	CU_ASSERT_PTR_NULL(parse("plumb_grid: 1\nset: {scenario: " WS ", layout: tp3pp}\n", &err));
	CU_ASSERT_EQUAL(err.line, 2);
	/* the point limit: 100 x 100 x 100 x 11 = 11,000,000 */
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	n += (size_t)snprintf(big + n, 4096 - n, "plumb_grid: 1\nset: {scenario: " WS "}\naxes:\n");
	for (ax = 0; ax < 4; ax++) {
		static const char *const names[] = { "concurrency", "input", "output", "context" };
		n += (size_t)snprintf(big + n, 4096 - n, "  %s: [", names[ax]);
		for (i = 0; i < (ax == 3 ? 11 : 100); i++)
			n += (size_t)snprintf(big + n, 4096 - n, "%s%d", i ? ", " : "", i + 1);
		n += (size_t)snprintf(big + n, 4096 - n, "]\n");
	}
	CU_ASSERT_PTR_NULL(parse(big, &err));
	CU_ASSERT_EQUAL(err.code, PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "the grid has 11,000,000 points"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "at most 10,000,000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "concurrency 100 x input 100 x output 100 x context 11"));
	free(big);
}

static int count_fn(void *ctx, const struct swp_step_key *k, struct swp_step_val *v,
		    struct plumb_err *err)
{
	(void)err;
	++*(int *)ctx;
	v->seconds = k->batch * 1e-3;
	return 0;
}

static void test_cache(void)
{
	struct swp_cache *c = swp_cache_new();
	struct swp_step_key k;
	struct swp_step_val v;
	struct swp_cache_stats st;
	struct plumb_err err;
	int i, ncalls = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	memset(&k, 0, sizeof(k));
	k.batch = 8;
	snprintf(k.layout, sizeof(k.layout), "tp8");
	CU_ASSERT_EQUAL(swp_cache_get(c, &k, count_fn, &ncalls, &v, &err), 0);
	CU_ASSERT_EQUAL(swp_cache_get(c, &k, count_fn, &ncalls, &v, &err), 0);
	CU_ASSERT_EQUAL(ncalls, 1);
	CU_ASSERT_DOUBLE_EQUAL(v.seconds, 8e-3, 1e-15);
	k.batch = 9;
	CU_ASSERT_EQUAL(swp_cache_get(c, &k, count_fn, &ncalls, &v, &err), 0);
	CU_ASSERT_EQUAL(ncalls, 2);
	/* many keys: the table grows and keeps every value */
	for (i = 0; i < 5000; i++) {
		k.batch = i;
		CU_ASSERT_EQUAL(swp_cache_get(c, &k, count_fn, &ncalls, &v, &err), 0);
	}
	for (i = 0; i < 5000; i += 7) {
		k.batch = i;
		swp_cache_get(c, &k, count_fn, &ncalls, &v, &err);
		CU_ASSERT_DOUBLE_EQUAL(v.seconds, i * 1e-3, 1e-15);
	}
	CU_ASSERT_EQUAL(ncalls, 2 + 4998);      /* 8 and 9 were cached already */
	swp_cache_stats(c, &st);
	CU_ASSERT_EQUAL(st.misses, (uint64_t)ncalls);
	CU_ASSERT_EQUAL(st.lookups, st.hits + st.misses);
	swp_cache_free(c);
	swp_cache_free(NULL);
}

static const char small_grid[] =
	"plumb_grid: 1\n"
	"set: {model: mixtral-8x7b, input: 128, output: 64}\n"
	"axes:\n"
	"  scenario:\n"
	"    - {value: " WS ", price_usd: 6000}\n"
	"  host.cores_per_socket: [16, 24]\n"
	"  layout: [tp1, tp2]\n"
	"  concurrency: [1, 4, 16]\n";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = calloc(1, (size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

static int run(const struct swp_grid *g, const char *out, int jobs, enum swp_format fmt,
	       struct swp_run_stats *st)
{
	struct swp_run_opts o;
	struct plumb_err err;
	int rc;
	memset(&o, 0, sizeof(o));
	o.outpath = out;
	o.jobs = jobs;
	o.resume = 1;
	plumb_err_clear(&err);
	rc = swp_run(g, fmt, &o, st, &err);
	if (rc < 0 && err.code != PLUMB_EINPUT)
		printf("\n  swp_run: %s\n", err.msg);
	return rc;
}

static void test_run_and_resume(void)
{
	struct plumb_err err;
	struct swp_run_stats st;
	char a[64], b[64], *ta, *tb, *nl;
	struct swp_grid *g = parse(small_grid, &err);
	FILE *f;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	snprintf(a, sizeof(a), "/tmp/plumb-test-sweep-%d-a.csv", (int)getpid());
	snprintf(b, sizeof(b), "/tmp/plumb-test-sweep-%d-b.csv", (int)getpid());
	remove(a);
	remove(b);
	/* -j 1 and -j 2: the same bytes */
	CU_ASSERT_EQUAL_FATAL(run(g, a, 1, SWP_CSV, &st), 0);
	CU_ASSERT_EQUAL(st.points, 12);
	CU_ASSERT_EQUAL(st.computed, 12);
	/* the two variants differ in a key that does not change a step, but
	 * their content differs: steps are shared only within each */
	CU_ASSERT(st.cache.hits > 0);
	CU_ASSERT_EQUAL_FATAL(run(g, b, 2, SWP_CSV, &st), 0);
	ta = slurp(a);
	tb = slurp(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ta);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tb);
	CU_ASSERT_STRING_EQUAL(ta, tb);
	CU_ASSERT_PTR_NOT_NULL(strstr(ta, ",tok_s_per_kusd,ttft_p50_ms,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ta, ",queued_max,retracted,gpu_w,box_w,j_per_tok,usd_per_mtok\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ta, "\n" WS ",mixtral-8x7b,nvfp4,bf16,128,64,0,6000,16,tp1,1,1,"));
	/* resume: keep the header and 5 rows, the rest is computed */
	nl = tb;
	for (i = 0; i < 6; i++)
		nl = strchr(nl, '\n') + 1;
	f = fopen(b, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(tb, 1, (size_t)(nl - tb), f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(run(g, b, 2, SWP_CSV, &st), 0);
	CU_ASSERT_EQUAL(st.reused, 5);
	CU_ASSERT_EQUAL(st.computed, 7);
	free(tb);
	tb = slurp(b);
	CU_ASSERT_STRING_EQUAL(ta, tb);
	/* everything there: nothing computed */
	CU_ASSERT_EQUAL_FATAL(run(g, b, 2, SWP_CSV, &st), 0);
	CU_ASSERT_EQUAL(st.reused, 12);
	CU_ASSERT_EQUAL(st.computed, 0);
	CU_ASSERT_EQUAL(st.kept, 0);
	free(ta);
	free(tb);
	/* JSON resumes too */
	remove(a);
	CU_ASSERT_EQUAL_FATAL(run(g, a, 2, SWP_JSON, &st), 0);
	CU_ASSERT_EQUAL_FATAL(run(g, a, 1, SWP_JSON, &st), 0);
	CU_ASSERT_EQUAL(st.reused, 12);
	/* an output with other columns is refused, naming the file */
	CU_ASSERT(run(g, b, 1, SWP_JSON, &st) == -PLUMB_EINPUT);
	remove(a);
	remove(b);
	swp_grid_free(g);
}

/* Steps are keyed by the scenario's content: the same file twice, or a key
 * set to the value it has, simulates nothing more. */
static void test_shared_content(void)
{
	static const char *const grids[] = {
		"plumb_grid: 1\nset: {model: mixtral-8x7b, output: 64}\n"
		"axes: {scenario: [" WS "], concurrency: [1, 4]}\n",
		"plumb_grid: 1\nset: {model: mixtral-8x7b, output: 64}\n"
		"axes: {scenario: [" WS ", " WS "], host.sockets: [1], concurrency: [1, 4]}\n",
	};
	uint64_t sims[2] = { 0, 0 };
	char out[64];
	int i;
	snprintf(out, sizeof(out), "/tmp/plumb-test-sweep-%d-c.csv", (int)getpid());
	for (i = 0; i < 2; i++) {
		struct plumb_err err;
		struct swp_run_stats st;
		struct swp_grid *g = parse(grids[i], &err);
		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		remove(out);
		CU_ASSERT_EQUAL(run(g, out, 2, SWP_CSV, &st), 0);
		CU_ASSERT_EQUAL(st.points, (uint64_t)(i ? 4 : 2));
		sims[i] = st.cache.misses;
		swp_grid_free(g);
	}
	CU_ASSERT(sims[0] > 0);
	CU_ASSERT_EQUAL(sims[1], sims[0]);
	remove(out);
}

static void test_unfit_rows(void)
{
	struct plumb_err err;
	struct swp_grid *g = parse("plumb_grid: 1\n"
				   "set: {scenario: " WS ", model: glm-5, layout: tp8, concurrency: 1}\n",
				   &err);
	struct swp_eval *e;
	char *row = NULL;
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	e = swp_eval_new(g, SWP_CSV);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(swp_eval_point(e, 0, &row, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(row);
	CU_ASSERT_PTR_NOT_NULL(strstr(row, ",,,,,,,,,0,\"layout tp8 needs 8 GPUs but workstation-2x-rtx5090 has 2\""));
	free(row);
	row = NULL;
	swp_eval_free(e);
	swp_grid_free(g);
	/* the rule plumb predict applies: the layout divides the box */
	g = parse("plumb_grid: 1\n"
		  "set: {scenario: scenarios/baremetal-8x-rtxpro6000.yaml, model: mixtral-8x7b, layout: tp3, concurrency: 1}\n", &err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	e = swp_eval_new(g, SWP_CSV);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(swp_eval_point(e, 0, &row, &err), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(row);
	CU_ASSERT_PTR_NOT_NULL(strstr(row, ",0,\"layout tp3 uses 3 GPUs, which does not divide the 8 GPUs of baremetal-8x-rtxpro6000"));
	free(row);
	swp_eval_free(e);
	swp_grid_free(g);
}

/* A sweep row ends with exactly the columns `plumb predict --format csv`
 * prints for the same point (the golden predict runs of both 8-GPU seed
 * boxes and the 2-GPU workstation). */
static void test_same_as_predict(void)
{
	static const char *const cases[][2] = {
		{ VM, "glm-5" },
		{ "scenarios/baremetal-8x-rtxpro6000.yaml", "glm-5" },
		{ WS, "llama-3.1-70b" },
	};
	size_t c;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char text[512], golden[256], *want, *line, *save = NULL;
		struct plumb_err err;
		struct swp_grid *g;
		struct swp_eval *e;
		uint64_t i;
		const char *base = strrchr(cases[c][0], '/') + 1;
		snprintf(text, sizeof(text),
			 "plumb_grid: 1\nset: {scenario: %s, model: %s, output: 128}\naxes: {concurrency: [1, 8]}\n",
			 cases[c][0], cases[c][1]);
		snprintf(golden, sizeof(golden), "tests/golden/%.*s.predict.out",
			 (int)(strlen(base) - 5), base);
		g = parse(text, &err);
		want = slurp(golden);
		CU_ASSERT_PTR_NOT_NULL_FATAL(g);
		CU_ASSERT_PTR_NOT_NULL_FATAL(want);
		e = swp_eval_new(g, SWP_CSV);
		line = strtok_r(want, "\n", &save);      /* the header */
		for (i = 0; i < 2; i++) {
			char *row = NULL, *tail;
			line = strtok_r(NULL, "\n", &save);
			CU_ASSERT_PTR_NOT_NULL_FATAL(line);
			CU_ASSERT_EQUAL_FATAL(swp_eval_point(e, i, &row, &err), 0);
			/* predict's columns, before the distributions, the KV
			 * cache's four and power and money's four that end a
			 * sweep row */
			{
				int k;
				for (k = 0; k < 12 + 4 + 4; k++)   /* SWP_NDIST + KV + cost */
					*strrchr(row, ',') = '\0';
			}
			tail = strstr(row, line);
			if (!tail || strlen(tail) != strlen(line))
				printf("\n  %s\n  row  %s\n  want ...%s\n", golden, row, line);
			CU_ASSERT(tail && strlen(tail) == strlen(line));
			free(row);
		}
		free(want);
		swp_eval_free(e);
		swp_grid_free(g);
	}
}

void suite_sweep(void)
{
	CU_pSuite s = CU_add_suite("sweep", NULL, NULL);
	CU_add_test(s, "grid expansion: counts and order", test_expand);
	CU_add_test(s, "axis items with attached values", test_linked_items);
	CU_add_test(s, "axis values applied to the scenario", test_apply);
	CU_add_test(s, "errors: positions, did-you-mean, point limit", test_errors);
	CU_add_test(s, "step cache: one simulation per distinct step", test_cache);
	CU_add_test(s, "runs: -j 1 = -j 2, resume, JSON", test_run_and_resume);
	CU_add_test(s, "steps shared by scenario content", test_shared_content);
	CU_add_test(s, "rows for layouts that cannot run", test_unfit_rows);
	CU_add_test(s, "a row carries plumb predict's columns digit for digit", test_same_as_predict);
}
