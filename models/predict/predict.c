/*
 * predict.c - op lists -> step programs -> simulated steps (predict.h;
 * the configuration and its serving stack are predict_cfg.c, what the
 * serving loop is handed predict_serve.c).
 */
#include "predict.h"
#include "predict_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pred_cfg_init(struct pred_cfg *c)
{
	memset(c, 0, sizeof(*c));
	topo_opts_init(&c->topo);
	c->cuda_graphs = 1;
	c->accept = 0.0;
	c->stack = 1;
}

struct builder {
	struct step_prog *p;
	const struct pred_cfg *c;
	double acc;
	int tag;
	double ar_bytes, a2a_bytes, logits_bytes;
	double dispatch_bytes;              /* the dispatch all-to-all's (the combine's: a2a_bytes) */
	double dcp_q_bytes, dcp_o_bytes;    /* decode context parallel exchanges */
	int dcp;                            /* 1: emit them (decode steps) */
	int moe, lmhead;
	int in_mlp;
	struct plumb_err *err;
};

static int emit(struct builder *b, enum step_op_kind k, double sec, double bytes, int tag)
{
	return step_prog_add(b->p, k, sec, bytes, tag, b->err);
}

/* Close the attention part of a layer: compute, then TP all-reduce. With
 * decode context parallel the queries are all-gathered before attention and
 * the partial outputs reduce-scattered after it. */
static int flush_attn(struct builder *b)
{
	int rc;
	if (b->dcp && (rc = emit(b, SOP_ALLGATHER, 0, b->dcp_q_bytes, TAG_COMM_TP)) < 0)
		return rc;
	if ((rc = emit(b, SOP_COMPUTE, b->acc, 0, TAG_ATTN)) < 0)
		return rc;
	if (b->dcp && (rc = emit(b, SOP_REDUCESCATTER, 0, b->dcp_o_bytes, TAG_COMM_TP)) < 0)
		return rc;
	b->acc = 0;
	if (b->c->lay.kind != LAY_EP && b->c->lay.tp > 1)
		return emit(b, SOP_ALLREDUCE, 0, b->ar_bytes, TAG_COMM_TP);
	return 0;
}

/* Close the MLP / experts part (or the lm_head) of a layer. */
static int flush_mlp(struct builder *b)
{
	int rc;
	enum step_kind k = b->c->lay.kind;
	if (!b->in_mlp && !b->lmhead)
		return 0;
	if ((rc = emit(b, SOP_COMPUTE, b->acc, 0,
		       b->lmhead ? TAG_LMHEAD : b->moe ? TAG_EXPERTS : TAG_MLP)) < 0)
		return rc;
	b->acc = 0;
	if (b->lmhead) {
		b->lmhead = 0;
		if (k != LAY_EP && b->c->lay.tp > 1)
			return emit(b, SOP_ALLGATHER, 0, b->logits_bytes, TAG_COMM_TP);
		return 0;
	}
	b->in_mlp = 0;
	if (k == LAY_EP) {
		int moe = b->moe;
		b->moe = 0;
		return moe ? emit(b, SOP_ALLTOALL, 0, b->a2a_bytes, TAG_COMM_EP) : 0;
	}
	b->moe = 0;
	if (b->c->lay.tp > 1)
		return emit(b, SOP_ALLREDUCE, 0, b->ar_bytes, k == LAY_TPEP ? TAG_COMM_EP : TAG_COMM_TP);
	return 0;
}

/* Decode through a pipeline: engines keep a batch per stage in flight, so
 * the step is the steady state's period, not one pass through an empty
 * pipeline: the third of four passes (two fill it, the fourth follows). */
int pred_rounds(const struct pred_cfg *c, enum serve_step kind)
{
	return kind != SERVE_PREFILL && c->lay.pp > 1 ? 4 : 1;
}

/*
 * Does this step replay CUDA graphs? Decode does when the engine uses them;
 * SGLang captures decode batches only and runs prefill (extend) eagerly, so
 * its prefill steps pay eager launches (vLLM captures both).
 */
static int step_graphs(const struct pred_cfg *c, enum serve_step kind)
{
	const struct scn_serving *sv = &c->s->serving;
	int prefill = sv->prefill_graphs >= 0 ? sv->prefill_graphs
					       : sv->engine != SCN_ENGINE_SGLANG;
	if (kind != SERVE_DECODE && !prefill)
		return 0;
	return c->cuda_graphs;
}

/* Tokens one microbatch of a mixed step carries: the decode sequences'
 * (each 1 + drafts) and the prefill chunks', split over the microbatches. */
static long mixed_tokens(const struct pred_cfg *c, const struct serve_shape *sh, int micro)
{
	long t = (long)sh->dbatch * (1 + c->draft) + (long)sh->batch * sh->tokens;
	return (t + micro - 1) / micro;
}

/* Two-batch overlap (scenario `serving: {two_batch_overlap: true}`,
 * SGLang's --enable-two-batch-overlap): an expert-parallel layout of one
 * stage and one replica cuts each step into two microbatches and runs one's
 * all-to-all under the other's compute (step.h, `overlap`). */
static int step_tbo(const struct pred_cfg *c)
{
	return c->s->serving.moe.tbo && c->lay.kind == LAY_EP && c->lay.pp == 1 &&
	       c->lay.dp <= 1 && c->micro <= 0;
}

/* SMs DeepEP's normal kernels take: deep_ep/buffer.py's Buffer.num_sms,
 * 20 (deepseek-ai/DeepEP, V1), which SGLang keeps unless --deepep-config
 * says otherwise. */
#define DEEPEP_NORMAL_SMS 20

/*
 * The compute's rate beside a collective under two-batch overlap: the
 * steps with prompt tokens run DeepEP's normal kernels, which hold
 * DEEPEP_NORMAL_SMS of the GPU's SMs while they run (LMSYS's 96-H100 post
 * names the "reduced streaming multiprocessors (SMs) with TBO" among the
 * causes of its prefill kernels' slowdown); decode's low-latency kernels
 * overlap by a hook that "does not occupy any SM resource" (DeepEP's
 * README). A GPU of unknown SM count, or another MoE runner: full rate.
 */
static double tbo_rate(const struct pred_cfg *c, const struct serve_shape *sh)
{
	const struct scn_gpu_model *g =
		&c->s->catalog->gpus[c->s->nodes[c->s->gpu_node[0]].gpu_model];
	if (sh->kind == SERVE_DECODE || c->prec.moe_runner != LLM_MOE_DEEPEP ||
	    g->sms <= DEEPEP_NORMAL_SMS)
		return 1;
	return (double)(g->sms - DEEPEP_NORMAL_SMS) / g->sms;
}

/* The microbatches a step is cut into: the layout's (as many as stages by
 * default; two under two-batch overlap), at most one per sequence. */
static int step_micro(const struct pred_cfg *c, const struct serve_shape *sh)
{
	int micro = c->micro > 0 ? c->micro : step_tbo(c) ? 2 : c->lay.pp;
	int seqs = sh->kind == SERVE_MIXED ? sh->batch + sh->dbatch : sh->batch;
	return micro > seqs ? seqs : micro;
}

/*
 * A decode shape's context counts the token the step decodes (a sequence's
 * prompt and generated tokens, struct serve_shape); llm_step's is what the
 * cache held before the step, the step's own token attending to itself on
 * top (llm_causal_pairs).
 */
static int decode_cached(long context)
{
	return context > 0 ? (int)(context - 1) : 0;
}

/*
 * The timed op list of one GPU of stage st for one microbatch of the step
 * (EP attention splits it over the ranks). o must be initialised; the
 * caller releases it.
 */
static int stage_ops(const struct pred_cfg *c, int st, const struct serve_shape *shp,
		     struct llm_ops *o, struct plumb_err *err)
{
	const struct scn_gpu_model *g =
		&c->s->catalog->gpus[c->s->nodes[c->s->gpu_node[st * (c->lay.gpus / c->lay.pp)]].gpu_model];
	int micro = step_micro(c, shp), ep = c->lay.kind == LAY_EP ? c->lay.ep : 1, rc;
	struct llm_shard sh;
	struct llm_step step;

	pred_stage_shard(c, st, &sh);
	if ((rc = llm_shard_check(c->m, &sh, err)) < 0)
		return rc;
	memset(&step, 0, sizeof(step));
	if (shp->kind == SERVE_MIXED) {
		struct llm_shard ps[3];
		struct llm_step st3[3];
		long t = mixed_tokens(c, shp, micro);
		int bd = (shp->dbatch + micro - 1) / micro;
		ps[0] = ps[1] = ps[2] = sh;
		/* every token once through the weights; logits where a token
		 * is sampled: each decode token, each prompt's last */
		step.batch = (int)((t + ep - 1) / ep);
		step.q_len = 1;
		step.head_tokens = ((long)bd * (1 + c->draft) + (shp->batch + micro - 1) / micro +
				    ep - 1) / ep;
		if (ep > 1) {
			/* Data-parallel attention: a prompt is a request of one
			 * rank and its chunk stays whole there, so the busiest
			 * rank carries its share of the decode tokens and
			 * ceil(prompts / ep) chunks; every layer's dispatch waits
			 * for it. The experts still see the ranks' tokens
			 * spread by the router (their mean). */
			long pb = (shp->batch + micro - 1) / micro, pr = (pb + ep - 1) / ep;
			long dr = ((long)bd + ep - 1) / ep * (1 + c->draft);
			long busy = dr + pr * ((shp->tokens + micro - 1) / micro);
			if (busy > step.batch) {
				step.moe_tokens = step.batch;
				step.batch = (int)busy;
				step.head_tokens = dr + pr;
			}
		}
		st3[0] = step;
		step.moe_tokens = 0;
		/* the prefill chunks' attention, as a prefill runs it (no DCP) */
		ps[1].dcp = 1;
		step.batch = (shp->batch + ep - 1) / ep;
		step.context = (int)shp->context;
		step.q_len = (int)((shp->tokens + micro - 1) / micro);
		st3[1] = step;
		/* the decode sequences' attention and drafts */
		step.batch = (bd + ep - 1) / ep;
		step.context = decode_cached(shp->dcontext);
		step.q_len = 0;
		step.draft = c->draft;
		step.head_tokens = 0;
		st3[2] = step;
		if ((rc = pred_mixed_ops(c->m, &c->prec, ps, st3, o, err)) < 0)
			return rc;
	} else {
		int bm = (shp->batch + micro - 1) / micro;
		/* Decode context parallel is a decode layout: a prefill runs
		 * its attention as plain TP and each rank keeps its slice of
		 * the cache. */
		if (shp->kind == SERVE_PREFILL)
			sh.dcp = 1;
		step.batch = (bm + ep - 1) / ep;
		step.context = shp->kind == SERVE_PREFILL ? (int)shp->context
							  : decode_cached(shp->context);
		step.q_len = shp->kind == SERVE_PREFILL ? (int)shp->tokens : 0;
		step.draft = shp->kind == SERVE_DECODE ? c->draft : 0;
		/* a prefill samples its next token at its last position only */
		if (shp->kind == SERVE_PREFILL)
			step.head_tokens = step.batch;
		/* Data-parallel attention: the busiest rank holds ceil(bm / ep)
		 * whole prompts, but the experts see the prompts there are,
		 * spread by the router (their mean a rank), not that many on
		 * every rank. */
		if (shp->kind == SERVE_PREFILL && ep > 1) {
			long mean = ((long)bm * step.q_len + ep - 1) / ep;
			if (mean < (long)step.batch * step.q_len)
				step.moe_tokens = mean;
		}
		if ((rc = llm_step_ops(c->m, &c->prec, &sh, &step, o, err)) < 0)
			return rc;
	}
	return llm_ops_time(o, g, &c->s->k, step_graphs(c, shp->kind), NULL, err);
}

/*
 * DeepEP's normal (internode) kernels, which SGLang runs for the steps
 * that carry prompt tokens (--deepep-mode auto: normal for prefill,
 * low-latency for decode; docs/model-disagg.md, "Two-batch overlap and DeepEP"),
 * when the experts span H > 1 hosts of g GPUs each. A token goes over RDMA
 * once to every remote host that holds one of its experts (to the GPU of
 * its own local index there), which forwards it over NVLink to the GPUs of
 * its experts; the combine returns the same way, summed within the host
 * first. DeepEP's internode test counts the RDMA bytes so:
 * num_rdma_token_sent * hidden (deepseek-ai/DeepEP tests/test_internode.py,
 * quoted in deepseek-ai/DeepEP issue 407). With the E experts E/H to a
 * host, a token touches a given remote host with probability
 * 1 - C(E - E/H, k) / C(E, k). The dispatch carries FP8 with a float32
 * scale per 128 values where the experts are FP8 (SGLang's DeepEP normal
 * dispatcher quantises with sglang_per_token_group_quant_fp8(x, 128) unless
 * SGLANG_DEEPEP_BF16_DISPATCH; DeepEP's README benchmarks "FP8
 * dispatching and BF16 combining"), the combine bf16.
 *
 * The step's all-to-all stays one collective over all ep GPUs; its bytes
 * per rank are set so that the share it sends off the host, (ep - g) / ep
 * of them, is DeepEP's RDMA bytes (the NIC is the kernels' bottleneck:
 * DeepEP's README gives internode bandwidth as RDMA bandwidth). The NVLink
 * forwarding inside each host is not added. Scales *dispatch and *combine
 * (plumb's one copy per token-expert pair, scaled for the busiest rank) by
 * the ratio of those bytes to the pairs'; no change on one host.
 */
static void deepep_normal(const struct pred_cfg *c, double *dispatch, double *combine)
{
	const struct llm_model *m = c->m;
	int ep = c->lay.ep, hosts = 0, seen[SCN_MAX_GPUS], i, j, g;
	double miss = 1, touched, per_pair;
	if (c->prec.moe_runner != LLM_MOE_DEEPEP || ep > SCN_MAX_GPUS || ep > c->s->ngpus)
		return;
	for (i = 0; i < ep; i++) {
		int h = c->s->nodes[c->s->gpu_node[i]].host;
		for (j = 0; j < hosts && seen[j] != h; j++)
			;
		if (j == hosts)
			seen[hosts++] = h;
	}
	if (hosts < 2 || ep % hosts || m->experts % hosts)
		return;
	g = ep / hosts;
	for (i = 0; i < m->top_k; i++)
		miss *= (double)(m->experts - m->experts / hosts - i) / (m->experts - i);
	touched = (hosts - 1) * (1 - miss);     /* remote hosts a token reaches */
	/* the collective's bytes per rank per token whose off-host share is
	 * `touched` copies, over k copies of the pairs' count */
	per_pair = touched * (double)ep / (ep - g) / m->top_k;
	*combine *= per_pair;
	*dispatch *= per_pair;
	if (c->prec.experts == LLM_FP8)
		*dispatch *= (1.0 + 4.0 / 128.0) / 2.0;
}

/* Turn stage st's op list into its program. */
static int build_stage(const struct pred_cfg *c, int st, const struct serve_shape *sh,
		       struct step_prog *p, struct plumb_err *err)
{
	const struct llm_model *m = c->m;
	struct llm_ops *ops = pred_ops_buf(0);
	struct builder b;
	int micro = step_micro(c, sh), ep = c->lay.kind == LAY_EP ? c->lay.ep : 1, i, rc;
	int cur_layer = -2, cur_pass = -1;
	double tok, tok_attn, dec;       /* tokens of a microbatch, of one EP rank; decode's */
	double tok_busy;                 /* the busiest EP rank's own tokens */
	double rows;                     /* logit rows: tokens sampled */

	if (sh->kind == SERVE_MIXED) {
		int bd = (sh->dbatch + micro - 1) / micro;
		long pb = (sh->batch + micro - 1) / micro;
		tok = (double)mixed_tokens(c, sh, micro);
		tok_attn = ceil(tok / ep);
		dec = (double)((bd + ep - 1) / ep) * (1 + c->draft);
		/* prompts stay whole on their rank (stage_ops) */
		tok_busy = dec + (double)((pb + ep - 1) / ep) * ((sh->tokens + micro - 1) / micro);
		rows = (double)bd * (1 + c->draft) + (sh->batch + micro - 1) / micro;
	} else {
		int bm = (sh->batch + micro - 1) / micro;
		double q = sh->kind == SERVE_PREFILL ? (double)sh->tokens : 1.0 + c->draft;
		tok = bm * q;
		tok_attn = (double)((bm + ep - 1) / ep) * q;
		tok_busy = tok_attn;
		/* a prefill's experts see the prompts there are (stage_ops) */
		if (sh->kind == SERVE_PREFILL && ep > 1)
			tok_attn = ceil(tok / ep);
		dec = sh->kind == SERVE_DECODE ? tok : 0;
		rows = sh->kind == SERVE_DECODE ? tok : bm;
	}
	if (tok_busy < tok_attn)
		tok_busy = tok_attn;
	if (!ops)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = stage_ops(c, st, sh, ops, err)) < 0)
		return rc;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.c = c;
	b.err = err;
	b.ar_bytes = tok * m->hidden * 2.0;
	b.a2a_bytes = tok_attn * m->top_k * m->hidden * 2.0;
	/* Each rank sends its tokens' k copies, but the busiest receives the
	 * most pairs, and the all-to-all ends when it has them: every rank's
	 * share is the busiest rank's (llm_moe_busiest; 1 at ep 1). With
	 * whole prompts on one rank (prefill and mixed steps of
	 * data-parallel attention) the busiest sender, the rank holding the
	 * most prompt tokens, can carry more than the busiest receiver. */
	if (c->lay.kind == LAY_EP && m->experts && m->top_k && tok_attn >= 1) {
		struct llm_moe_load ld;
		long t = lround(tok_attn * ep);
		double pairs;
		if ((rc = llm_moe_busiest(m->experts, m->top_k, t, ep, c->prec.moe_skew, &ld,
					  err)) < 0)
			goto out;
		pairs = ld.pairs > tok_busy * m->top_k ? ld.pairs : tok_busy * m->top_k;
		b.a2a_bytes *= pairs / (tok_attn * m->top_k);
	}
	b.dispatch_bytes = b.a2a_bytes;
	if (c->lay.kind == LAY_EP && m->experts && m->top_k && tok_attn >= 1 &&
	    sh->kind != SERVE_DECODE)
		deepep_normal(c, &b.dispatch_bytes, &b.a2a_bytes);
	b.logits_bytes = rows * m->vocab * 2.0;
	/* DCP: every rank's queries in the latent space (kv_lora + rope, bf16)
	 * gathered; partial outputs (kv_lora, bf16) and their log-sum-exp
	 * (fp32) of every head reduce-scattered back to the heads' ranks. The
	 * decode sequences' only: a prefill runs its attention as plain TP. */
	b.dcp = c->lay.dcp > 1 && sh->kind != SERVE_PREFILL;
	b.dcp_q_bytes = dec * m->heads * (m->kv_lora + m->qk_rope) * 2.0;
	b.dcp_o_bytes = dec * m->heads * (m->kv_lora * 2.0 + 4.0);
	for (i = 0; i < ops->n; i++) {
		const struct llm_op *op = &ops->op[i];
		if (op->layer != cur_layer || op->pass != cur_pass) {
			if ((rc = flush_mlp(&b)) < 0)
				goto out;
			cur_layer = op->layer;
			cur_pass = op->pass;
			b.lmhead = op->layer < 0;
		}
		if (!b.lmhead && op->kind == LLM_OP_NORM && op->what &&
		    !strcmp(op->what, "post-attention norm")) {
			if ((rc = flush_attn(&b)) < 0)
				goto out;
			b.in_mlp = 1;
		}
		if (op->kind == LLM_OP_EXPERTS || op->kind == LLM_OP_ROUTER) {
			if (!b.moe && c->lay.kind == LAY_EP && op->kind == LLM_OP_EXPERTS) {
				/* Dispatch the tokens to their experts' GPUs first. */
				if ((rc = emit(&b, SOP_COMPUTE, b.acc, 0, TAG_MLP)) < 0 ||
				    (rc = emit(&b, SOP_ALLTOALL, 0, b.dispatch_bytes, TAG_COMM_EP)) < 0)
					goto out;
				b.acc = 0;
			}
			if (op->kind == LLM_OP_EXPERTS)
				b.moe = 1;
		}
		b.acc += op->seconds;
	}
	if ((rc = flush_mlp(&b)) < 0)
		goto out;
	p->send_bytes = b.ar_bytes;
out:
	return rc;
}

/* A shape from the arguments of a decode or prefill step. */
static struct serve_shape shape(enum serve_step kind, int batch, long context, long tokens)
{
	struct serve_shape sh;
	memset(&sh, 0, sizeof(sh));
	sh.kind = kind;
	sh.batch = batch;
	sh.context = context;
	sh.tokens = tokens;
	return sh;
}

static int programs(const struct pred_cfg *c, const struct serve_shape *sh, struct step_prog *prog,
		    int *micro, struct plumb_err *err)
{
	int st, rc;
	if (c->lay.pp > 16)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "at most 16 pipeline stages");
	if (sh->batch < 1 || (sh->kind == SERVE_MIXED && sh->dbatch < 1))
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0, "a step needs a batch of at least 1");
	if (sh->kind != SERVE_DECODE && sh->tokens < 1)
		return plumb_err_set(err, PLUMB_EINPUT, NULL, 0, 0,
				     "a prefill needs at least 1 new token");
	*micro = step_micro(c, sh);
	memset(prog, 0, sizeof(*prog) * (size_t)c->lay.pp);
	for (st = 0; st < c->lay.pp; st++)
		if ((rc = build_stage(c, st, sh, &prog[st], err)) < 0) {
			int k;
			for (k = 0; k <= st; k++)
				step_prog_release(&prog[k]);
			return rc;
		}
	return 0;
}

int pred_programs(const struct pred_cfg *c, enum serve_step kind, int batch, long context,
		  long tokens, struct step_prog *prog, int *micro, struct plumb_err *err)
{
	struct serve_shape sh = shape(kind, batch, context, tokens);
	return programs(c, &sh, prog, micro, err);
}

const char *pred_part_name(enum pred_part p)
{
	static const char *const names[PART_N] = {
		"launch", "kernel_min", "weights", "kv_cache", "compute", "allreduce",
		"expert_comm", "stage_send", "idle"
	};
	return (unsigned)p < PART_N ? names[p] : "?";
}

/*
 * Split the simulated compute time of a step into launch, kernel minimum,
 * weights, KV and compute by its ops' additive parts (summed over the stages' op
 * lists, scaled to the simulated busy time so microbatching is counted).
 */
static int op_parts(const struct pred_cfg *c, const struct serve_shape *sh, double busy_s,
		    double *part, struct plumb_err *err)
{
	double sum[PART_N] = { 0 }, tot = 0;
	int st, rc, i;
	for (st = 0; st < c->lay.pp; st++) {
		struct llm_ops ops;
		llm_ops_init(&ops);
		if ((rc = stage_ops(c, st, sh, &ops, err)) < 0) {
			llm_ops_release(&ops);
			return rc;
		}
		for (i = 0; i < ops.n; i++) {
			const struct llm_op *op = &ops.op[i];
			double rest = op->seconds - op->launch_s - op->kmin_s;
			sum[PART_LAUNCH] += op->launch_s;
			sum[PART_KMIN] += op->kmin_s;
			if (op->compute_s > op->mem_s)
				sum[PART_COMPUTE] += rest;
			else
				sum[op->kclass == LLM_K_ATTN ? PART_KV : PART_WEIGHTS] += rest;
			tot += op->seconds;
		}
		llm_ops_release(&ops);
	}
	for (i = PART_LAUNCH; i <= PART_COMPUTE; i++)
		part[i] = tot > 0 ? sum[i] / tot * busy_s : 0;
	return 0;
}

static int step_impl(const struct pred_cfg *c, const struct serve_shape *sh, double *seconds,
		     struct step_span *spans, int cap, int *nspans, struct pred_step_info *info,
		     struct plumb_err *err)
{
	struct step_prog prog[16];
	struct step_result r;
	int st, rc = 0, micro, g;

	*seconds = 0;
	/* the inputs only: step_run clears the rest first (result_reset),
	 * and r holds a GPU's busy and comm times for each of SCN_MAX_GPUS */
	r.spans = spans;
	r.cap = cap;
	r.hook = NULL;
	r.hook_ctx = NULL;
	r.no_replay = 0;
	r.reruns = 0;
	r.rounds = pred_rounds(c, sh->kind);
	memset(prog, 0, sizeof(prog));
	if ((rc = programs(c, sh, prog, &micro, err)) < 0)
		return rc;
	r.overlap = step_tbo(c) && micro == 2;
	r.overlap_rate = r.overlap ? tbo_rate(c, sh) : 0;
	if ((rc = step_run(c->s, &c->topo, &c->lay, prog, micro, &r, err)) < 0)
		goto out;
	if (nspans)
		*nspans = r.nspans;
	/* The serving engine prepares step n+1 on the host while the GPUs run
	 * step n (SGLang's overlap scheduler): a step lasts at least the host's
	 * time; when that is longer, the GPUs wait. */
	if (r.seconds < c->s->k.v[K_STEP_OVERHEAD_US] * 1e-6)
		r.seconds = c->s->k.v[K_STEP_OVERHEAD_US] * 1e-6;
	*seconds = r.seconds;
	if (info) {
		memset(info, 0, sizeof(*info));
		info->run = r;
		for (g = 0; g < r.ngpus; g++) {
			info->compute_s += r.busy[g] / r.ngpus;
			info->comm_s += r.comm[g] / r.ngpus;
		}
		info->idle_s = r.seconds - info->compute_s - info->comm_s;
		if (info->idle_s < 0)
			info->idle_s = 0;
		info->busy_frac = r.seconds > 0 ? info->compute_s / r.seconds : 0;
		if ((rc = op_parts(c, sh, info->compute_s, info->part, err)) < 0)
			goto out;
		{
			/* Communication by kind (by_tag sums one GPU per stage). */
			double tp = r.by_tag[TAG_COMM_TP], ep = r.by_tag[TAG_COMM_EP],
			       pp = r.by_tag[TAG_COMM_PP], all = tp + ep + pp;
			if (all > 0) {
				info->part[PART_ALLREDUCE] = info->comm_s * tp / all;
				info->part[PART_EXPERT_COMM] = info->comm_s * ep / all;
				info->part[PART_STAGE_SEND] = info->comm_s * pp / all;
			}
			info->part[PART_IDLE] = info->idle_s;
		}
		{
			/* Do the layout's collectives bounce through host memory?
			 * (the view the step ran in, the scenario's shared one) */
			struct coll_scn *shared = NULL;
			const struct topo_view *v;
			int per = c->lay.gpus / c->lay.pp, a, b2, shm = 0, pairs = 0, net = 0;
			if (coll_scn_get(c->s, &c->topo, &shared, NULL) == 0) {
				v = coll_scn_view(shared);
				for (a = 0; a < per; a++)
					for (b2 = 0; b2 < per; b2++)
						if (a != b2 && topo_ep_host(v, a) != topo_ep_host(v, b2)) {
							net = 1;        /* between hosts: the network */
						} else if (a != b2) {
							pairs++;
							shm += v->xport[a][b2] != XP_P2P;
						}
				coll_scn_put(shared);
			}
			info->shm_hops = shm;
			info->comm_net = net;
			info->comm_host_frac = pairs && shm * 2 >= pairs && r.seconds > 0
						       ? info->comm_s / r.seconds : 0;
		}
	}
out:
	for (st = 0; st < c->lay.pp; st++)
		step_prog_release(&prog[st]);
	return rc;
}

int pred_step(const struct pred_cfg *c, enum serve_step kind, int batch, long context,
	      long tokens, double *seconds, struct pred_step_info *info,
	      struct plumb_err *err)
{
	struct serve_shape sh = shape(kind, batch, context, tokens);
	return step_impl(c, &sh, seconds, NULL, 0, NULL, info, err);
}

int pred_step_shape(const struct pred_cfg *c, const struct serve_shape *sh, double *seconds,
		    struct pred_step_info *info, struct plumb_err *err)
{
	return step_impl(c, sh, seconds, NULL, 0, NULL, info, err);
}

int pred_step_spans(const struct pred_cfg *c, enum serve_step kind, int batch, long context,
		    long tokens, struct step_span *spans, int cap, int *nspans,
		    struct pred_step_info *info, struct plumb_err *err)
{
	double sec;
	struct serve_shape sh = shape(kind, batch, context, tokens);
	return step_impl(c, &sh, &sec, spans, cap, nspans, info, err);
}

int pred_serve_step(void *ctx, const struct serve_shape *sh, double *seconds,
		    struct plumb_err *err)
{
	return pred_step_shape(ctx, sh, seconds, NULL, err);
}

/*
 * The host's time to issue a step: an eager step's kernel launches
 * (kernel_launch_eager_us each, as llm_ops_time issues them ahead of the
 * GPU), every microbatch's, on the busiest stage; a step replayed from
 * CUDA graphs costs the host next to nothing. At least step_overhead_us,
 * the host's own work a step.
 */
int pred_serve_host(const void *ctx, const struct serve_shape *sh, double *seconds,
		    struct plumb_err *err)
{
	const struct pred_cfg *c = ctx;
	double most = 0;
	int st, i, rc;
	*seconds = c->s->k.v[K_STEP_OVERHEAD_US] * 1e-6;
	if (step_graphs(c, sh->kind))
		return 0;
	for (st = 0; st < c->lay.pp; st++) {
		struct llm_ops ops;
		double n = 0;
		llm_ops_init(&ops);
		if ((rc = stage_ops(c, st, sh, &ops, err)) < 0) {
			llm_ops_release(&ops);
			return rc;
		}
		for (i = 0; i < ops.n; i++)
			n += llm_op_host_calls(&ops.op[i]);
		llm_ops_release(&ops);
		n *= step_micro(c, sh);
		if (n > most)
			most = n;
	}
	if (most * c->s->k.v[K_KERNEL_LAUNCH_EAGER_US] * 1e-6 > *seconds)
		*seconds = most * c->s->k.v[K_KERNEL_LAUNCH_EAGER_US] * 1e-6;
	return 0;
}
