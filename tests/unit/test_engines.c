/*
 * test_engines.c - the engine table (io/scn_engines.c): parsing, picking a
 * stack by engine, version, family and GPU, what a scenario states winning,
 * the errors of a bad engine name or version, and the stack a prediction
 * takes (models/predict).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "predict.h"
#include "scn.h"

#define MINI \
	"plumb_scenario: 1\n" \
	"pcie:\n" \
	"  - {id: rc0, kind: root_complex, socket: 0}\n" \
	"  - {id: rp0, kind: root_port, parent: rc0}\n" \
	"  - {id: gpu0, kind: gpu, parent: rp0, model: rtx-pro-6000}\n"

/* A stack of engine e (version text, NULL: default) with nothing stated. */
static int pick(enum scn_engine e, const char *ver, enum scn_family fam, const char *arch,
		double mem, int nvlink, struct scn_serving *sv)
{
	const struct scn_eng_table *t = scn_engines_builtin(NULL);
	memset(sv, 0, sizeof(*sv));
	return scn_serving_fill(sv, t, e, ver ? scn_version_pack(ver) : 0, fam, arch, mem, nvlink);
}

static void test_builtin_complete(void)
{
	static const char *const arch[] = { "sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
					    "sm_100", "sm_120", "" };
	const struct scn_eng_table *t;
	struct plumb_err e;
	int i, f, a, v;

	plumb_err_clear(&e);
	t = scn_engines_builtin(&e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_INT(t->n, 3);
	/* every engine, family, architecture and known version has a whole stack */
	for (i = 0; i < t->n; i++) {
		unsigned vers[3];
		vers[0] = t->e[i].oldest;
		vers[1] = t->e[i].def;
		vers[2] = t->e[i].newest;
		for (v = 0; v < 3; v++)
			for (f = 0; f < SCN_NFAMILY; f++)
				for (a = 0; a < (int)(sizeof(arch) / sizeof(arch[0])); a++) {
					struct scn_serving sv;
					memset(&sv, 0, sizeof(sv));
					EXPECT_INT(scn_serving_fill(&sv, t, t->e[i].id, vers[v],
								    (enum scn_family)f, arch[a], 80, 1), 0);
					CU_ASSERT(sv.table_moe_runner[0] != 0);
					CU_ASSERT(sv.attention_backend[0] != 0);
				}
	}
	/* every row cites its source */
	for (i = 0; i < t->n; i++)
		for (v = 0; v < t->e[i].nrows; v++)
			CU_ASSERT(strlen(t->e[i].rows[v].source) > 10);
}

static void test_picks(void)
{
	struct scn_serving sv;

	/* SGLang on SM120: GLM-5's DSA as dense MLA, NCCL on a PCIe box of 8 */
	EXPECT_INT(pick(SCN_ENGINE_SGLANG, NULL, SCN_FAM_DSA, "sm_120", 95.6, 0, &sv), 0);
	EXPECT_INT(sv.dsa_dense, 1);
	EXPECT_INT(sv.allreduce, SCN_AR_NCCL);
	EXPECT_INT(sv.allreduce_fusion, 0);
	EXPECT_INT(sv.cuda_graphs, 1);
	EXPECT_INT(sv.prefill_graphs, 0);
	EXPECT_INT(sv.mixed, 0);
	EXPECT_INT(sv.chunk_tokens, 8192);
	CU_ASSERT_STRING_EQUAL(sv.moe_backend, "cutlass");
	CU_ASSERT_STRING_EQUAL(sv.table_moe_runner, "fused");
	EXPECT_INT(sv.from_table, 1);
	/* vLLM on the same box: sparse MLA on SM120, one token budget per step */
	EXPECT_INT(pick(SCN_ENGINE_VLLM, NULL, SCN_FAM_DSA, "sm_120", 95.6, 0, &sv), 0);
	EXPECT_INT(sv.dsa_dense, 0);
	CU_ASSERT_STRING_EQUAL(sv.attention_backend, "FLASHINFER_MLA_SPARSE_SM120");
	EXPECT_INT(sv.mixed, 1);
	EXPECT_INT(sv.max_batched, 8192);
	EXPECT_INT(sv.prefill_graphs, 1);
	/* vLLM's V0 engine (before 0.8): prefills first, decode graphs only */
	EXPECT_INT(pick(SCN_ENGINE_VLLM, "0.7.3", SCN_FAM_GQA, "sm_90", 80, 1, &sv), 0);
	EXPECT_INT(sv.mixed, 0);
	EXPECT_INT(sv.max_batched, 0);
	EXPECT_INT(sv.prefill_graphs, 0);
	/* A100 keeps the small budget */
	EXPECT_INT(pick(SCN_ENGINE_VLLM, NULL, SCN_FAM_GQA, "sm_80", 80, 1, &sv), 0);
	EXPECT_INT(sv.max_batched, 2048);
	/* SGLang on H200 for DeepSeek: its custom all-reduce over NVLink and the
	 * norm fusion (0.5 on), fa3; without NVLink NCCL; 0.4 no fusion */
	EXPECT_INT(pick(SCN_ENGINE_SGLANG, NULL, SCN_FAM_MLA, "sm_90", 140, 1, &sv), 0);
	EXPECT_INT(sv.allreduce, SCN_AR_AUTO);
	EXPECT_INT(sv.allreduce_fusion, 1);
	CU_ASSERT_STRING_EQUAL(sv.attention_backend, "fa3");
	EXPECT_INT(sv.chunk_tokens, 8192);
	EXPECT_INT(pick(SCN_ENGINE_SGLANG, NULL, SCN_FAM_MLA, "sm_90", 140, 0, &sv), 0);
	EXPECT_INT(sv.allreduce, SCN_AR_NCCL);
	EXPECT_INT(pick(SCN_ENGINE_SGLANG, "0.4.9", SCN_FAM_MLA, "sm_90", 140, 1, &sv), 0);
	EXPECT_INT(sv.allreduce_fusion, 0);
	/* B200 (SM100): trtllm-gen attention, a 16k chunk (180 GB) */
	EXPECT_INT(pick(SCN_ENGINE_SGLANG, NULL, SCN_FAM_MLA, "sm_100", 179, 1, &sv), 0);
	CU_ASSERT_STRING_EQUAL(sv.attention_backend, "trtllm_mla");
	EXPECT_INT(sv.attn_trtllm_gen, 1);
	EXPECT_INT(sv.chunk_tokens, 16384);
	/* TensorRT-LLM: in-flight batching of 8192 tokens, fusion on Hopper */
	EXPECT_INT(pick(SCN_ENGINE_TRTLLM, NULL, SCN_FAM_GQA, "sm_90", 80, 1, &sv), 0);
	EXPECT_INT(sv.mixed, 1);
	EXPECT_INT(sv.max_batched, 8192);
	EXPECT_INT(sv.allreduce_fusion, 1);
	CU_ASSERT_STRING_EQUAL(sv.moe_backend, "CUTLASS");
	/* no table for "other" */
	CU_ASSERT(pick(SCN_ENGINE_OTHER, NULL, SCN_FAM_GQA, "sm_90", 80, 1, &sv) < 0);
}

/* What the scenario states wins over the table. */
static void test_stated_wins(void)
{
	struct scenario *s = fix_load(MINI "serving: {engine: vllm@0.11.0, custom_allreduce: off, "
				      "dsa: dense, cuda_graphs: false}\n");
	const struct scn_eng_table *t = scn_engines_builtin(NULL);
	char buf[16];
	if (!s)
		return;
	EXPECT_INT(s->serving.engine, SCN_ENGINE_VLLM);
	CU_ASSERT_STRING_EQUAL(scn_version_text(s->serving.version, buf, sizeof(buf)), "0.11.0");
	CU_ASSERT(s->serving.stated & SCN_SV_ALLREDUCE);
	EXPECT_INT(scn_serving_fill(&s->serving, t, SCN_ENGINE_VLLM, s->serving.version,
				    SCN_FAM_DSA, "sm_120", 95.6, 1), 0);
	EXPECT_INT(s->serving.allreduce, SCN_AR_NCCL);        /* stated off, table auto */
	EXPECT_INT(s->serving.dsa_dense, 1);                  /* stated dense, table sparse */
	EXPECT_INT(s->serving.cuda_graphs, 0);
	EXPECT_INT(s->serving.src_row[SCN_EC_DSA], -1);
	CU_ASSERT(s->serving.src_row[SCN_EC_ATTN] >= 0);
	scn_free(s);
}

static void spec_fails(const char *spec, const char *sub)
{
	enum scn_engine e;
	unsigned v;
	char msg[256] = "";
	EXPECT_INT(scn_engine_spec(spec, 0, &e, &v, msg, sizeof(msg)), -1);
	if (!strstr(msg, sub))
		printf("\n  '%s': \"%s\" lacks \"%s\"\n", spec, msg, sub);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, sub));
}

static void test_spec_errors(void)
{
	enum scn_engine e;
	unsigned v;
	char msg[256];
	EXPECT_INT(scn_engine_spec("vllm", 0, &e, &v, msg, sizeof(msg)), 0);
	EXPECT_INT(e, SCN_ENGINE_VLLM);
	EXPECT_INT(v, 0);
	EXPECT_INT(scn_engine_spec("sglang@0.5.7", 0, &e, &v, msg, sizeof(msg)), 0);
	EXPECT_INT(v, scn_version_pack("0.5.7"));
	spec_fails("vlm", "did you mean 'vllm'?");
	spec_fails("tensorrt", "unknown engine 'tensorrt'");
	spec_fails("other", "unknown engine 'other'");
	spec_fails("sglang@9.9", "unknown sglang version '9.9' (the engine table describes 0.4.0 to");
	spec_fails("sglang@0.5.x", "'0.5.x' is not a version of sglang");
	spec_fails("vllm@", "is not a version");
	EXPECT_INT(scn_version_pack("1.2.3.4"), 0);
	EXPECT_INT(scn_version_pack("1024"), 0);
	CU_ASSERT(scn_version_pack("0.10.0") > scn_version_pack("0.9.9"));
}

/* A scenario's bad engine key: EINPUT at its line and column. */
static void test_scenario_key_errors(void)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	plumb_err_clear(&e);
	EXPECT_INT(scn_parse("bad.yaml", MINI "serving:\n  engine: sglang@0.1.0\n", &s, &e),
		   -PLUMB_EINPUT);
	EXPECT_INT(e.line, 7);
	EXPECT_INT(e.col, 11);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "unknown sglang version '0.1.0'"));
	plumb_err_clear(&e);
	EXPECT_INT(scn_parse("bad.yaml", MINI "serving: {engine: vlm}\n", &s, &e), -PLUMB_EINPUT);
	EXPECT_INT(e.line, 6);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "did you mean 'vllm'"));
	/* other stays a valid engine of a scenario (no table: its section only) */
	plumb_err_clear(&e);
	EXPECT_INT(scn_parse("ok.yaml", MINI "serving: {engine: other}\n", &s, &e), 0);
	scn_free(s);
}

static void table_fails(const char *text, int line, const char *sub)
{
	struct scn_eng_table *t = NULL;
	struct plumb_err e;
	plumb_err_clear(&e);
	EXPECT_INT(scn_engines_parse("t.yaml", text, &t, &e), -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(t);
	EXPECT_INT(e.line, line);
	if (!strstr(e.msg, sub))
		printf("\n  \"%s\" lacks \"%s\"\n", e.msg, sub);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, sub));
}

#define FULL_ROW \
	"      - {attention_backend: a, dsa: sparse, custom_allreduce: auto, custom_allreduce_pcie: off,\n" \
	"         allreduce_fusion: false, moe_backend: m, moe_runner: fused, cuda_graphs: true,\n" \
	"         prefill_graphs: false, scheduler: mixed, chunked_prefill: [[0, 0]],\n" \
	"         max_batched_tokens: [[70, 2048], [0, 8192]], source: \"a test row\"}\n"

static void test_table_parse(void)
{
	struct scn_eng_table *t = NULL;
	struct plumb_err e;
	struct scn_serving sv;

	plumb_err_clear(&e);
	EXPECT_INT(scn_engines_parse("t.yaml", "catalog: engines\nengines:\n"
				     "  - name: vllm\n    known: [0.1, 0.2]\n    default: 0.2\n"
				     "    rows:\n" FULL_ROW, &t, &e), 0);
	if (t) {
		memset(&sv, 0, sizeof(sv));
		EXPECT_INT(scn_serving_fill(&sv, t, SCN_ENGINE_VLLM, 0, SCN_FAM_GQA, "sm_90", 40, 1), 0);
		EXPECT_INT(sv.max_batched, 2048);
		memset(&sv, 0, sizeof(sv));
		EXPECT_INT(scn_serving_fill(&sv, t, SCN_ENGINE_VLLM, 0, SCN_FAM_GQA, "sm_90", 80, 1), 0);
		EXPECT_INT(sv.max_batched, 8192);
		free(t);
	}
	table_fails("catalog: engines\nengines:\n  - name: vlm\n    known: [0.1, 0.2]\n",
		    3, "unknown engine 'vlm'");
	table_fails("catalog: engines\nengines:\n  - name: vllm\n    known: [0.1, 0.2]\n"
		    "    default: 0.3\n    rows:\n" FULL_ROW, 5, "outside 'known'");
	table_fails("catalog: engines\nengines:\n  - name: vllm\n    known: [0.1, 0.2]\n"
		    "    default: 0.2\n    rows:\n      - {dsa: dense, source: x}\n",
		    7, "states every setting");
	table_fails("catalog: engines\nengines:\n  - name: vllm\n    known: [0.1, 0.2]\n"
		    "    default: 0.2\n    rows:\n      - {dsa: dense}\n" FULL_ROW,
		    7, "needs its 'source'");
	table_fails("catalog: engines\nengines:\n  - name: vllm\n    known: [0.1, 0.2]\n"
		    "    default: 0.2\n    rows:\n      - {family: [moe], dsa: dense, source: x}\n"
		    FULL_ROW, 7, "unknown family 'moe'");
}

/* A prediction's stack: the family of the model, the box's GPU, --engine. */
static void test_predict_stack(void)
{
	struct scenario *s = fix_seed_box("64", "");
	struct pred_cfg c;
	struct plumb_err e;
	char buf[400];
	if (!s)
		return;
	plumb_err_clear(&e);
	pred_cfg_init(&c);
	EXPECT_INT(pred_cfg_setup(&c, s, "glm-5", "nvfp4", "bf16", "tp8", &e), 0);
	EXPECT_INT(pred_family(c.m), SCN_FAM_DSA);
	EXPECT_INT(c.prec.dsa_dense, 1);            /* SGLang, SM120 */
	EXPECT_INT(c.s->serving.allreduce, SCN_AR_NCCL);
	pred_stack_text(&c, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "sglang 0.5.9"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "DSA dense"));
	EXPECT_INT(s->serving.from_table, 0);       /* the scenario itself is untouched */
	pred_cfg_init(&c);
	c.engine = "vllm";
	EXPECT_INT(pred_cfg_setup(&c, s, "glm-5", "nvfp4", "bf16", "tp8", &e), 0);
	EXPECT_INT(c.prec.dsa_dense, 0);
	EXPECT_INT(c.s->serving.engine, SCN_ENGINE_VLLM);
	/* two GPUs: engines run their own all-reduce over PCIe */
	pred_cfg_init(&c);
	c.engine = "vllm";
	EXPECT_INT(pred_cfg_setup(&c, s, "llama-3.1-70b", "fp8", "bf16", "tp2", &e), 0);
	EXPECT_INT(c.s->serving.allreduce, SCN_AR_AUTO);
	/* stack 0: the scenario's section as it is */
	pred_cfg_init(&c);
	c.stack = 0;
	EXPECT_INT(pred_cfg_setup(&c, s, "glm-5", "nvfp4", "bf16", "tp8", &e), 0);
	EXPECT_INT(c.prec.dsa_dense, 0);
	EXPECT_INT(c.s->serving.from_table, 0);
	scn_free(s);
}

void suite_engines(void);
void suite_engines(void)
{
	CU_pSuite s = CU_add_suite("engines", NULL, NULL);
	CU_add_test(s, "built-in table: a whole stack everywhere", test_builtin_complete);
	CU_add_test(s, "picks by engine, version, family and GPU", test_picks);
	CU_add_test(s, "what the scenario states wins", test_stated_wins);
	CU_add_test(s, "--engine: names and versions", test_spec_errors);
	CU_add_test(s, "serving: engine errors with line and column", test_scenario_key_errors);
	CU_add_test(s, "table parsing and its errors", test_table_parse);
	CU_add_test(s, "a prediction's stack", test_predict_stack);
}
