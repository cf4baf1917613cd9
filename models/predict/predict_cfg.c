/*
 * predict_cfg.c - a prediction's configuration (predict.h): the model's
 * family, the serving stack the engine table gives for the box and model,
 * its words, and the checks a layout makes against the box.
 */
#include "predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bar.h"

enum scn_family pred_family(const struct llm_model *m)
{
	if (m->attn == LLM_ATTN_MLA)
		return m->index_topk > 0 ? SCN_FAM_DSA : SCN_FAM_MLA;
	return m->experts > 0 ? SCN_FAM_GQA_MOE : SCN_FAM_GQA;
}

/* Is every pair of the first g GPUs of s bonded by NVLink (or g <= 2, where
 * engines run their own all-reduce over PCIe P2P too)? */
static int group_nvlink(const struct scenario *s, int g)
{
	long pairs = 0;
	int i;
	if (g <= 2)
		return 1;
	if (s->nvswitch)
		return 1;
	for (i = 0; i < s->nnvlink; i++)
		pairs += s->nvlink[i].a < g && s->nvlink[i].b < g;
	return pairs >= (long)g * (g - 1) / 2;
}

/* The engine table's stack into c->stack_s.serving. */
static void fill_stack(struct pred_cfg *c)
{
	struct scn_serving *sv = &c->stack_s.serving;
	const struct scn_eng_table *t = scn_engines_builtin(NULL);
	const struct scenario *s = &c->stack_s;
	const struct scn_gpu_model *g = NULL;
	enum scn_engine e = sv->engine;
	unsigned ver = sv->version;
	int group = c->lay.tp > 0 ? c->lay.tp : s->ngpus;

	if (c->engine && scn_engine_spec(c->engine, 1, &e, &ver, NULL, 0) == 0 &&
	    e != sv->engine) {
		/* another engine than the scenario's: none of its keys are
		 * that engine's but what the scenario measured on the box */
		sv->engine = e;
	}
	if (c->engine)
		sv->version = ver;
	if (!t || e == SCN_ENGINE_OTHER || !c->m)
		return;
	if (s->ngpus > 0 && s->catalog)
		g = &s->catalog->gpus[s->nodes[s->gpu_node[0]].gpu_model];
	scn_serving_fill(sv, t, e, sv->version, pred_family(c->m), g ? g->arch : "",
			 g ? g->memory_gib : 0, group_nvlink(s, group));
}

/*
 * Appends to buf the kernel path of each weight format the GPU has no
 * tensor cores for ("; nvfp4 weights: weight-only, ..."): those run at the
 * bf16 rate (llm_gpu_tflops). Native formats and bf16 add nothing.
 */
static void weight_paths(const struct pred_cfg *c, char *buf, size_t n)
{
	const struct scenario *s = c->s;
	const struct scn_gpu_model *g;
	enum llm_dtype d[4], seen[4];
	int i, j, ns = 0;
	size_t k = strlen(buf);
	if (!c->m || s->ngpus <= 0 || !s->catalog)
		return;
	g = &s->catalog->gpus[s->nodes[s->gpu_node[0]].gpu_model];
	d[0] = c->prec.experts, d[1] = c->prec.shared, d[2] = c->prec.linear, d[3] = c->prec.dense;
	for (i = 0; i < 4; i++) {
		if (d[i] == LLM_BF16 || d[i] == LLM_INT4 || llm_gpu_tflops(g, d[i]) <= 0 ||
		    strstr(llm_kernel_path(g, d[i]), "tensor cores (W"))
			continue;
		for (j = 0; j < ns && seen[j] != d[i]; j++)
			;
		if (j < ns)
			continue;
		seen[ns++] = d[i];
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, "; %s weights on %s: %s",
					      llm_dtype_name(d[i]), g->id, llm_kernel_path(g, d[i]));
	}
}

void pred_stack_text(const struct pred_cfg *c, char *buf, size_t n)
{
	static const struct { unsigned bit; const char *key; } keys[] = {
		{ SCN_SV_ATTN, "attention_backend" }, { SCN_SV_DSA, "dsa" },
		{ SCN_SV_ALLREDUCE, "custom_allreduce" }, { SCN_SV_FUSION, "allreduce_fusion" },
		{ SCN_SV_MOE_BACKEND, "moe_backend" }, { SCN_SV_GRAPHS, "cuda_graphs" },
		{ SCN_SV_MOE_RUNNER, "moe_runner" }
	};
	const struct scn_serving *sv = &c->s->serving;
	const struct scenario *s = c->s;
	char ver[16] = "", sched[64], stated[160] = "";
	size_t i, k;
	int prefill = sv->prefill_graphs >= 0 ? sv->prefill_graphs : sv->engine != SCN_ENGINE_SGLANG;

	if (sv->from_table)
		scn_version_text(sv->version, ver, sizeof(ver));
	if (sv->mixed)
		snprintf(sched, sizeof(sched), "mixed steps of %ld tokens", sv->max_batched);
	else if (sv->chunk_tokens)
		snprintf(sched, sizeof(sched), "prefill first, chunks of %ld", sv->chunk_tokens);
	else
		snprintf(sched, sizeof(sched), "prefill first, prompts whole");
	for (i = 0, k = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (sv->stated & keys[i].bit)
			k += (size_t)snprintf(stated + k, k < sizeof(stated) ? sizeof(stated) - k : 0,
					      "%s%s", k ? ", " : "", keys[i].key);
	snprintf(buf, n, "%s%s%s%s: attention %s%s, all-reduce %s%s, MoE %s%s%s, %s%s, %s%s%s%s",
		 scn_engine_name(sv->engine), ver[0] ? " " : "", ver,
		 sv->from_table ? "" : " (the scenario's serving: section only)",
		 sv->attention_backend[0] ? sv->attention_backend : "unknown",
		 c->m && c->m->index_topk > 0 ? (sv->dsa_dense ? ", DSA dense" : ", DSA sparse") : "",
		 sv->allreduce == SCN_AR_NCCL ? "NCCL" : scn_allreduce_name(sv->allreduce),
		 sv->allreduce_fusion ? " with norm fusion" : "",
		 sv->moe_backend[0] ? sv->moe_backend : "unknown",
		 " ", sv->moe.runner == SCN_MOE_LOOP ? "loop" :
		 sv->moe.runner == SCN_MOE_DEEPEP ? "deepep" : "fused",
		 c->cuda_graphs ? "CUDA graphs" : "eager",
		 c->cuda_graphs ? (prefill ? " (prefill too)" : " (decode; prefill eager)") : "",
		 sched, stated[0] ? "; the scenario states " : "", stated,
		 s->serving.stated & SCN_SV_ENGINE ? "" : "");
	weight_paths(c, buf, n);
}

void pred_stack_of(const struct scenario *s, const char *engine, const struct llm_model *m,
		   int group, struct scn_serving *out)
{
	/* a pred_cfg is large (it holds a scenario struct): on the heap */
	struct pred_cfg *c = malloc(sizeof(*c));
	*out = s->serving;
	if (!c)
		return;
	pred_cfg_init(c);
	memcpy(&c->stack_s, s, sizeof(c->stack_s));
	c->s = &c->stack_s;
	c->m = m;
	c->engine = engine;
	c->lay.tp = group;
	fill_stack(c);
	*out = c->stack_s.serving;
	free(c);
}

/* Are s's GPUs NVIDIA's (a CUDA arch, sm_NN)? On ROCm SGLang routes with
 * aiter's biased_grouped_topk, one kernel (topk.py, _use_aiter; SGLang's
 * ROCm Dockerfiles set SGLANG_USE_AITER=1). */
static int cuda_gpu(const struct scenario *s)
{
	const struct scn_gpu_model *g;
	if (s->ngpus < 1 || !s->catalog)
		return 1;
	g = &s->catalog->gpus[s->nodes[s->gpu_node[0]].gpu_model];
	return !strncmp(g->arch, "sm_", 3);
}

void pred_cfg_serving(struct pred_cfg *c)
{
	if (c->s != &c->stack_s)
		memcpy(&c->stack_s, c->s, sizeof(c->stack_s));
	c->s = &c->stack_s;
	if (c->stack)
		fill_stack(c);
	c->cuda_graphs = c->s->serving.cuda_graphs;
	c->prec.dsa_dense = c->s->serving.dsa_dense;
	c->prec.moe_trtllm_gen = c->s->serving.moe_trtllm_gen;
	c->prec.attn_trtllm_gen = c->s->serving.attn_trtllm_gen;
	c->prec.ar_norm_fused = c->s->serving.allreduce_fusion;
	switch (c->s->serving.moe.runner) {
	case SCN_MOE_LOOP: c->prec.moe_runner = LLM_MOE_LOOP; break;
	case SCN_MOE_DEEPEP: c->prec.moe_runner = LLM_MOE_DEEPEP; break;
	default: c->prec.moe_runner = LLM_MOE_FUSED; break;
	}
	c->prec.moe_skew = c->s->serving.moe.skew;
	/* SGLang's select_experts picks the top-k apart from the MoE kernels
	 * (trtllm-gen's fused MoE routes inside, llm_step.c); vLLM has one
	 * fused grouped top-k kernel for up to 32 groups (vllm-project/vllm
	 * PR 23274, fused_grouped_topk), TensorRT-LLM its noaux_tc kernel */
	c->prec.router_unfused = c->m && c->s->serving.engine == SCN_ENGINE_SGLANG &&
				 !llm_router_fused(c->m) && cuda_gpu(c->s);
	/* Redundant experts (EPLB): the experts' ranks hold E + R physical
	 * experts, each a share of the load as the balancer places them; plumb
	 * routes over them uniformly (docs/model-disagg.md, "Redundant experts"). */
	if (c->s->serving.moe.redundant > 0 && c->m && c->m->experts > 0 && !c->phys_set) {
		c->phys_m = *c->m;
		c->phys_m.experts += c->s->serving.moe.redundant;
		c->m = &c->phys_m;
		c->phys_set = 1;
	}
}

int pred_cfg_setup(struct pred_cfg *c, const struct scenario *s, const char *model,
		   const char *weights, const char *kv, const char *layout,
		   struct plumb_err *err)
{
	int rc;
	c->s = s;
	c->scn = s;
	c->phys_set = 0;
	if ((rc = llm_model_resolve(model, &c->m, err)) < 0 ||
	    (rc = llm_prec_setup(&c->prec, c->m, weights ? weights : llm_default_weights(model),
				 kv, err)) < 0)
		return rc;
	if ((rc = step_layout_parse(layout, &c->lay, err)) < 0)
		return rc;
	pred_cfg_serving(c);
	return pred_cfg_check_box(c, layout, err);
}

int pred_cfg_check_box(const struct pred_cfg *c, const char *lay, struct plumb_err *err)
{
	const struct scenario *s = c->s;
	int rc, used = step_layout_used(&c->lay);
	if (used > s->ngpus)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "layout %s needs %d GPUs but %s has %d", lay, used,
				     s->name[0] ? s->name : s->path, s->ngpus);
	/* Named replicas (dpN) may leave GPUs over: the output says so. */
	if (c->lay.dp <= 1 && s->ngpus % c->lay.gpus != 0) {
		/* Replicas of the layout would leave GPUs idle: say which fit. */
		char fit[128];
		size_t n = 0;
		int d;
		fit[0] = '\0';
		for (d = 1; d <= s->ngpus && n < sizeof(fit); d++)
			if (s->ngpus % d == 0)
				n += (size_t)snprintf(fit + n, sizeof(fit) - n, "%s%d",
						      !n ? "" : d == s->ngpus ? " or " : ", ", d);
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "layout %s uses %d GPUs, which does not divide the %d GPUs "
				     "of %s; use a layout of %s GPUs", lay, c->lay.gpus, s->ngpus,
				     s->name[0] ? s->name : s->path, fit);
	}
	if (s->vm.mode == SCN_VM) {
		/* A GPU whose BARs the guest cannot map is not there for the driver. */
		unsigned long long need, room;
		struct bar_result *br = malloc(sizeof(*br));
		int ok;
		if (!br)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		rc = bar_fit(s, s->vm.pci_realloc, br, err);
		ok = br->ok_gpus;
		need = br->need64 >> 30;
		room = br->avail64 >> 30;
		free(br);
		if (rc < 0)
			return rc;
		if (ok < used)
			return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
					     "layout %s needs %d GPUs but only %d of %s's %d get "
					     "their BARs in the guest (the GPUs need %llu GiB of "
					     "64-bit MMIO, the window has room for %llu GiB): raise "
					     "mmio64_window; plumb topo shows the kernel's messages",
					     lay, used, ok, s->name[0] ? s->name : s->path,
					     s->ngpus, need, room);
	}
	return 0;
}
