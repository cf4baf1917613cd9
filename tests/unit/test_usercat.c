/*
 * test_usercat.c - catalogs read at run time: a scenario's `gpu_catalog:`
 * file and inline `gpu_models:`, a model catalog YAML as --model, and the
 * installed data directory lookup.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "llm.h"
#include "scn.h"

void suite_usercat(void);

static const char inline_gpu[] =
	"plumb_scenario: 1\n"
	"name: inline\n"
	"gpu_models:\n"
	"  - id: %s\n"
	"    name: test card\n"
	"    memory_gib: 48\n"
	"    memory_gbs: 960\n"
	"    tflops: {bf16: 100}\n"
	"    pcie: {gen: 4, width: 16}\n"
	"    bars:\n"
	"      - {region: 1, size: 64G, bits: 64, prefetchable: true}\n"
	"    p2p_pcie: native\n"
	"    nvlink_links: 0\n"
	"    source: made up for the tests\n"
	"host: {cpu_vendor: amd, cores_per_socket: 8, threads_per_core: 1, sockets: 1}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n"
	"  - {id: rp0, kind: root_port, parent: rc0, gen: 4, width: 16}\n"
	"  - {id: gpu0, kind: gpu, parent: rp0, model: %s, gen: 4}\n"
	"virtualization: {mode: bare_metal, host_iommu: pt}\n";

static void test_scenario_catalogs(void)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	const struct scn_catalog *b = scn_catalog_builtin(&e);
	char text[2048];
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	if (scn_load("tests/data/user-catalog/scenario.yaml", &s, &e) < 0)
		printf("\n  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_EQUAL(s->catalog, s->own_catalog);
	CU_ASSERT_EQUAL(s->catalog->n, b->n + 2);       /* the file's and the inline one */
	CU_ASSERT(scn_catalog_find(s->catalog, "my-rtx-pro-6000") >= 0);
	CU_ASSERT(scn_catalog_find(s->catalog, "my-rtx-5090") >= 0);
	CU_ASSERT_EQUAL(scn_catalog_find(b, "my-rtx-pro-6000"), -1);    /* built-in untouched */
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].kind == SCN_GPU)
			CU_ASSERT_STRING_EQUAL(s->catalog->gpus[s->nodes[i].gpu_model].id,
					       "my-rtx-pro-6000");
	scn_free(s);

	snprintf(text, sizeof(text), inline_gpu, "test-card", "test-card");
	CU_ASSERT_EQUAL_FATAL(scn_parse("inline.yaml", text, &s, &e), 0);
	CU_ASSERT_EQUAL(s->catalog->gpus[s->nodes[s->nnodes - 1].gpu_model].memory_gib, 48);
	scn_free(s);
	/* a bundled id again is refused where it stands */
	snprintf(text, sizeof(text), inline_gpu, "h200", "h200");
	CU_ASSERT_EQUAL(scn_parse("inline.yaml", text, &s, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "duplicate catalog id 'h200'"));
	CU_ASSERT_EQUAL(e.line, 4);
}

/* --gpu-catalog: the file's models under every scenario, until reset */
static void test_cli_catalog(void)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	char text[2048];
	snprintf(text, sizeof(text), inline_gpu, "other-card", "my-rtx-pro-6000");
	CU_ASSERT_EQUAL(scn_parse("cli.yaml", text, &s, &e), -PLUMB_EINPUT);
	CU_ASSERT_EQUAL_FATAL(scn_set_gpu_catalog("tests/data/user-catalog/gpus.yaml", &e), 0);
	CU_ASSERT_EQUAL(scn_parse("cli.yaml", text, &s, &e), 0);
	if (s)
		CU_ASSERT_EQUAL(s->catalog->n, scn_catalog_builtin(&e)->n + 2);  /* + inline */
	scn_free(s);
	s = NULL;
	CU_ASSERT_EQUAL(scn_set_gpu_catalog("tests/data/no-such-catalog.yaml", &e), -PLUMB_EIO);
	CU_ASSERT_EQUAL(scn_set_gpu_catalog(NULL, &e), 0);
	CU_ASSERT_EQUAL(scn_parse("cli.yaml", text, &s, &e), -PLUMB_EINPUT);
}

static void test_model_yaml(void)
{
	const struct llm_model *m, *h;
	struct plumb_err e;
	double a, b;
	CU_ASSERT_EQUAL_FATAL(llm_model_resolve("tests/data/user-catalog/models.yaml", &m, &e), 0);
	CU_ASSERT_STRING_EQUAL(m->id, "qwen3-30b-a3b");
	CU_ASSERT_EQUAL_FATAL(llm_model_resolve("tests/data/user-catalog/models.yaml:qwen3-30b-a3b",
						&m, &e), 0);
	CU_ASSERT_EQUAL(llm_model_resolve("tests/data/user-catalog/models.yaml:qwen3", &m, &e),
			-PLUMB_EINPUT);
	/* the same model from its Hugging Face config: the same parameters but
	 * the q/k norms the catalog format has no key for */
	CU_ASSERT_EQUAL_FATAL(llm_model_resolve("tests/data/user-catalog/models.yaml", &m, &e), 0);
	CU_ASSERT_EQUAL_FATAL(llm_model_resolve("tests/data/hf/Qwen--Qwen3-30B-A3B", &h, &e), 0);
	llm_params(m, &a, NULL);
	llm_params(h, &b, NULL);
	CU_ASSERT_DOUBLE_EQUAL(b - a, 48.0 * 2 * 128, 0.5);
}

/* the catalog format's hybrid keys give what the configs give */
static void test_hybrid_yaml(void)
{
	static const char *const pair[][2] = {
		{ "tests/data/user-catalog/models-hybrid.yaml:gpt-oss-20b",
		  "tests/data/hf/openai--gpt-oss-20b" },
		{ "tests/data/user-catalog/models-hybrid.yaml:qwen3-next-80b-a3b",
		  "tests/data/hf/Qwen--Qwen3-Next-80B-A3B-Thinking" },
	};
	struct plumb_err e;
	size_t i;
	for (i = 0; i < 2; i++) {
		const struct llm_model *y, *h;
		struct llm_prec py, ph;
		struct llm_shard sy, sh;
		double a, b, aa, ba;
		int l;
		if (llm_model_resolve(pair[i][0], &y, &e) < 0)
			printf("\n  %s\n", e.msg);
		CU_ASSERT_PTR_NOT_NULL_FATAL(y);
		CU_ASSERT_EQUAL_FATAL(llm_model_resolve(pair[i][1], &h, &e), 0);
		struct llm_model hc = *h;
		/* the same tensors: counted the one way (a config counts as its
		 * publisher does, a catalog entry every tensor) */
		hc.count = y->count;
		llm_params(y, &a, &aa);
		llm_params(&hc, &b, &ba);
		CU_ASSERT_DOUBLE_EQUAL(a, b, 0.5);
		CU_ASSERT_DOUBLE_EQUAL(aa, ba, 0.5);
		for (l = 0; l < h->layers; l++)
			CU_ASSERT_EQUAL(llm_layer_kind(y, l), llm_layer_kind(h, l));
		llm_prec_init(&py, y, LLM_BF16, LLM_BF16, &e);
		llm_prec_init(&ph, h, LLM_BF16, LLM_BF16, &e);
		llm_shard_init(&sy, y, 2, 1);
		llm_shard_init(&sh, h, 2, 1);
		CU_ASSERT_DOUBLE_EQUAL(llm_kv_bytes_per_seq_per_gpu(y, &py, &sy, 5000),
				       llm_kv_bytes_per_seq_per_gpu(h, &ph, &sh, 5000), 0.5);
	}
}

static void test_datadir(void)
{
	char buf[4096];
	/* in the source tree a bundled file is itself; a missing one stays as given */
	CU_ASSERT_STRING_EQUAL(plumb_data_path("scenarios/hgx-8x-h200.yaml", buf, sizeof(buf)),
			       "scenarios/hgx-8x-h200.yaml");
	CU_ASSERT_STRING_EQUAL(plumb_data_path("no/such/file.yaml", buf, sizeof(buf)),
			       "no/such/file.yaml");
	CU_ASSERT_STRING_EQUAL(plumb_data_path("/abs.yaml", buf, sizeof(buf)), "/abs.yaml");
}

/* A user's GPU catalog explains itself: arch checked against the known
 * list, tflops without bf16 refused at its own file:line:column, ids found
 * whatever their case. */
static void test_gpu_catalog_checks(void)
{
	static const char head[] = "catalog: gpus\ngpus:\n  - id: my-card\n";
	char text[512];
	struct scn_catalog *c = NULL;
	struct plumb_err e;
	const struct scn_catalog *b;
	snprintf(text, sizeof(text), "%s    arch: banana\n    memory_gib: 48\n"
		 "    memory_gbs: 864\n    tflops: {bf16: 362}\n", head);
	CU_ASSERT_EQUAL(scn_catalog_parse("mine.yaml", text, &c, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "unknown arch 'banana'"));
	CU_ASSERT_STRING_EQUAL(e.file, "mine.yaml");
	CU_ASSERT_EQUAL(e.line, 4);
	CU_ASSERT_EQUAL(e.col, 11);
	snprintf(text, sizeof(text), "%s    arch: sm_89\n    memory_gib: 48\n"
		 "    memory_gbs: 864\n    tflops: {fp8: 362}\n", head);
	CU_ASSERT_EQUAL(scn_catalog_parse("mine.yaml", text, &c, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "needs 'bf16'"));
	CU_ASSERT_EQUAL(e.line, 7);
	snprintf(text, sizeof(text), "%s    arch: gfx942\n    memory_gib: 48\n"
		 "    memory_gbs: 864\n", head);
	CU_ASSERT_EQUAL_FATAL(scn_catalog_parse("mine.yaml", text, &c, &e), 0);
	CU_ASSERT_EQUAL(scn_catalog_find(c, "MY-CARD"), 0);
	free(c);
	b = scn_catalog_builtin(&e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT(scn_catalog_find(b, "L40S") >= 0);
	CU_ASSERT_EQUAL(scn_catalog_find(b, "L40S"), scn_catalog_find(b, "l40s"));
}

void suite_usercat(void)
{
	CU_pSuite s = CU_add_suite("usercat", NULL, NULL);
	CU_add_test(s, "a scenario's GPU catalog file and inline gpu_models", test_scenario_catalogs);
	CU_add_test(s, "--gpu-catalog under every scenario", test_cli_catalog);
	CU_add_test(s, "a model catalog YAML as --model", test_model_yaml);
	CU_add_test(s, "hybrid models in the catalog format", test_hybrid_yaml);
	CU_add_test(s, "bundled data path", test_datadir);
	CU_add_test(s, "GPU catalog checks: arch, tflops, ids without case",
		    test_gpu_catalog_checks);
}
