/*
 * predict_stage.c - a stage's op list folded into its program
 * (predict_int.h): compute ops between the layout's collectives, each the
 * sum of the op times it spans; a mixed step's lists merged first. The same
 * fold, recorded once per list (pred_fold_record), is replayed over op times
 * from the kept lists (predict_plan.c) with the step's bytes.
 */
#include "predict_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct builder {
	struct step_prog *p;        /* NULL: record the fold instead */
	const struct pred_cfg *c;
	double acc;
	double by[PB_N];            /* each collective's bytes (PB_NONE: 0) */
	int dcp;                    /* 1: emit the DCP exchanges (decode steps) */
	int moe, lmhead;
	int in_mlp;
	int cur;                    /* the op being folded */
	struct pred_fold_op *rec;   /* recording: the fold so far */
	int nrec, caprec;
	struct plumb_err *err;
};

static int emit(struct builder *b, enum step_op_kind k, double sec, int which, int tag)
{
	if (!b->p) {
		if (b->nrec == b->caprec) {
			int cap = b->caprec ? 2 * b->caprec : 64;
			struct pred_fold_op *r = realloc(b->rec, (size_t)cap * sizeof(*r));
			if (!r)
				return plumb_err_set(b->err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			b->rec = r;
			b->caprec = cap;
		}
		b->rec[b->nrec].kind = (unsigned char)k;
		b->rec[b->nrec].which = (unsigned char)which;
		b->rec[b->nrec].tag = (unsigned char)tag;
		b->rec[b->nrec++].end = b->cur;
		return 0;
	}
	return step_prog_add(b->p, k, sec, b->by[which], tag, b->err);
}
/* Close the attention part of a layer: compute, then TP all-reduce. With
 * decode context parallel the queries are all-gathered before attention and
 * the partial outputs reduce-scattered after it. */
static int flush_attn(struct builder *b)
{
	int rc;
	if (b->dcp && (rc = emit(b, SOP_ALLGATHER, 0, PB_DCP_Q, TAG_COMM_TP)) < 0)
		return rc;
	if ((rc = emit(b, SOP_COMPUTE, b->acc, PB_NONE, TAG_ATTN)) < 0)
		return rc;
	if (b->dcp && (rc = emit(b, SOP_REDUCESCATTER, 0, PB_DCP_O, TAG_COMM_TP)) < 0)
		return rc;
	b->acc = 0;
	if (b->c->lay.kind != LAY_EP && b->c->lay.tp > 1)
		return emit(b, SOP_ALLREDUCE, 0, PB_AR, TAG_COMM_TP);
	return 0;
}

/* Close the MLP / experts part (or the lm_head) of a layer. */
static int flush_mlp(struct builder *b)
{
	int rc;
	enum step_kind k = b->c->lay.kind;
	if (!b->in_mlp && !b->lmhead)
		return 0;
	if ((rc = emit(b, SOP_COMPUTE, b->acc, PB_NONE,
		       b->lmhead ? TAG_LMHEAD : b->moe ? TAG_EXPERTS : TAG_MLP)) < 0)
		return rc;
	b->acc = 0;
	if (b->lmhead) {
		b->lmhead = 0;
		if (k != LAY_EP && b->c->lay.tp > 1)
			return emit(b, SOP_ALLGATHER, 0, PB_LOGITS, TAG_COMM_TP);
		return 0;
	}
	b->in_mlp = 0;
	if (k == LAY_EP) {
		int moe = b->moe;
		b->moe = 0;
		return moe ? emit(b, SOP_ALLTOALL, 0, PB_A2A, TAG_COMM_EP) : 0;
	}
	b->moe = 0;
	if (b->c->lay.tp > 1)
		return emit(b, SOP_ALLREDUCE, 0, PB_AR, k == LAY_TPEP ? TAG_COMM_EP : TAG_COMM_TP);
	return 0;
}

/* One attention-core op of a mixed step: its parts' work summed. */
void pred_merge_kv(struct llm_op *o, const struct llm_op *p, const struct llm_op *d)
{
	o->bytes = p->bytes + d->bytes;
	o->flops = p->flops + d->flops;
	/* the chunks' queries fill the attention tiles; MLA's prefill
	 * form decompresses their cache (docs/model.md) */
	o->rows = p->flops > 0 ? p->rows : d->rows;
	o->dtype = p->dtype;
	o->gemm_flops = p->gemm_flops + d->gemm_flops;
	o->gemm_dtype = p->gemm_dtype;
	o->gemm_rows = p->gemm_rows + d->gemm_rows;
	o->kernels = p->kernels > d->kernels ? p->kernels : d->kernels;
}

/*
 * A mixed step is one forward pass over every token it carries: the
 * weight-streaming ops (projections, experts, MLP, lm_head, norms) run once
 * over all of them, as u's op list of that many single-token sequences
 * computes them (experts touched by all the tokens), while attention reads
 * each part's own cache: u's attention cores become the sum of the prefill
 * chunks' (p: each chunk's triangle and its rectangle over its cache, MLA in
 * its prefill form) and the decode sequences' (d). d's draft passes follow.
 */
int pred_merge_mixed(struct llm_ops *u, const struct llm_ops *p, const struct llm_ops *d,
		     struct plumb_err *err)
{
	int i, n0 = 0;
	while (n0 < d->n && d->op[n0].pass == 0)
		n0++;
	if (u->n != p->n || u->n != n0)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
				     "mixed step: op lists of %d, %d and %d ops do not line up",
				     u->n, p->n, n0);
	for (i = 0; i < u->n; i++) {
		struct llm_op *o = &u->op[i];
		if (o->kind != p->op[i].kind || o->kind != d->op[i].kind ||
		    o->layer != p->op[i].layer || o->layer != d->op[i].layer)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0,
					     "mixed step: op %d differs between its parts", i);
		if (o->kind == LLM_OP_KV)
			pred_merge_kv(o, &p->op[i], &d->op[i]);
	}
	for (i = n0; i < d->n; i++) {
		if (u->n == u->cap) {
			int cap = u->cap ? 2 * u->cap : 64;
			struct llm_op *op = realloc(u->op, (size_t)cap * sizeof(*op));
			if (!op)
				return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			u->op = op;
			u->cap = cap;
		}
		u->op[u->n++] = d->op[i];
	}
	return 0;
}

/*
 * DeepEP's normal (internode) kernels, which SGLang runs for the steps
 * that carry prompt tokens (--deepep-mode auto: normal for prefill,
 * low-latency for decode; docs/model.md, "Two-batch overlap and DeepEP"),
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

/* Fold ops into b's program (or record the fold). */
static int fold(struct builder *b, const struct llm_ops *ops)
{
	const struct pred_cfg *c = b->c;
	int i, rc, cur_layer = -2, cur_pass = -1;
	for (i = 0; i < ops->n; i++) {
		const struct llm_op *op = &ops->op[i];
		b->cur = i;
		if (op->layer != cur_layer || op->pass != cur_pass) {
			if ((rc = flush_mlp(b)) < 0)
				return rc;
			cur_layer = op->layer;
			cur_pass = op->pass;
			b->lmhead = op->layer < 0;
		}
		if (!b->lmhead && op->kind == LLM_OP_NORM && op->what &&
		    !strcmp(op->what, "post-attention norm")) {
			if ((rc = flush_attn(b)) < 0)
				return rc;
			b->in_mlp = 1;
		}
		if (op->kind == LLM_OP_EXPERTS || op->kind == LLM_OP_ROUTER) {
			if (!b->moe && c->lay.kind == LAY_EP && op->kind == LLM_OP_EXPERTS) {
				/* Dispatch the tokens to their experts' GPUs first. */
				if ((rc = emit(b, SOP_COMPUTE, b->acc, PB_NONE, TAG_MLP)) < 0 ||
				    (rc = emit(b, SOP_ALLTOALL, 0, PB_DISPATCH, TAG_COMM_EP)) < 0)
					return rc;
				b->acc = 0;
			}
			if (op->kind == LLM_OP_EXPERTS)
				b->moe = 1;
		}
		b->acc += op->seconds;
	}
	b->cur = ops->n;
	return flush_mlp(b);
}

int pred_fold_record(const struct pred_cfg *c, int dcp, const struct llm_ops *ops,
		     struct pred_fold_op **out, int *n, struct plumb_err *err)
{
	struct builder b;
	int rc;
	memset(&b, 0, sizeof(b));
	b.c = c;
	b.dcp = dcp;
	b.err = err;
	*out = NULL;
	*n = 0;
	if ((rc = fold(&b, ops)) < 0) {
		free(b.rec);
		return rc;
	}
	*out = b.rec;
	*n = b.nrec;
	return 0;
}

/* A recorded fold over the op times t gives (the same sums, in the same
 * order, as fold over the list they time). */
static int replay(struct builder *b, struct pred_timed *t)
{
	int k, rc;
	for (k = 0; k < t->nfold; k++) {
		const struct pred_fold_op *f = &t->fold[k];
		if (f->kind == SOP_COMPUTE) {
			rc = step_prog_add(b->p, SOP_COMPUTE, pred_timed_sum(t, f->end), 0, f->tag,
					   b->err);
		} else {
			rc = step_prog_add(b->p, (enum step_op_kind)f->kind, 0, b->by[f->which], f->tag,
					   b->err);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Turn stage st's op list into its program. */
int pred_build_stage(const struct pred_cfg *c, int st, const struct serve_shape *sh,
		     struct step_prog *p, struct plumb_err *err)
{
	const struct llm_model *m = c->m;
	struct llm_ops ops;
	struct builder b;
	struct pred_timed t;
	int micro = pred_step_micro(c, sh), ep = c->lay.kind == LAY_EP ? c->lay.ep : 1, rc, fast;
	double tok, tok_attn, dec;       /* tokens of a microbatch, of one EP rank; decode's */
	double rows;                     /* logit rows: tokens sampled */

	if (sh->kind == SERVE_MIXED) {
		int bd = (sh->dbatch + micro - 1) / micro;
		tok = (double)pred_mixed_tokens(c, sh, micro);
		tok_attn = ceil(tok / ep);
		dec = (double)((bd + ep - 1) / ep) * (1 + c->draft);
		rows = (double)bd * (1 + c->draft) + (sh->batch + micro - 1) / micro;
	} else {
		int bm = (sh->batch + micro - 1) / micro;
		double q = sh->kind == SERVE_PREFILL ? (double)sh->tokens : 1.0 + c->draft;
		tok = bm * q;
		tok_attn = (double)((bm + ep - 1) / ep) * q;
		dec = sh->kind == SERVE_DECODE ? tok : 0;
		rows = sh->kind == SERVE_DECODE ? tok : bm;
	}
	llm_ops_init(&ops);
	memset(&t, 0, sizeof(t));
	/* the op times from the kept lists where they serve, else the list */
	if ((rc = fast = pred_plan_time(c, st, sh, &t, err)) < 0 ||
	    (!fast && (rc = pred_stage_ops(c, st, sh, &ops, err)) < 0))
		goto out;
	memset(&b, 0, sizeof(b));
	b.p = p;
	b.c = c;
	b.err = err;
	b.by[PB_AR] = tok * m->hidden * 2.0;
	b.by[PB_A2A] = tok_attn * m->top_k * m->hidden * 2.0;
	/* Each rank sends its tokens' k copies, but the busiest receives the
	 * most pairs, and the all-to-all ends when it has them: every rank's
	 * share is the busiest rank's (llm_moe_busiest; 1 at ep 1). */
	if (c->lay.kind == LAY_EP && m->experts && m->top_k && tok_attn >= 1) {
		struct llm_moe_load ld;
		long nt = lround(tok_attn * ep);
		if ((rc = llm_moe_busiest(m->experts, m->top_k, nt, ep, c->prec.moe_skew, &ld,
					  err)) < 0)
			goto out;
		b.by[PB_A2A] *= ld.pairs / (tok_attn * m->top_k);
	}
	b.by[PB_DISPATCH] = b.by[PB_A2A];
	if (c->lay.kind == LAY_EP && m->experts && m->top_k && tok_attn >= 1 &&
	    sh->kind != SERVE_DECODE)
		deepep_normal(c, &b.by[PB_DISPATCH], &b.by[PB_A2A]);
	b.by[PB_LOGITS] = rows * m->vocab * 2.0;
	/* DCP: every rank's queries in the latent space (kv_lora + rope, bf16)
	 * gathered; partial outputs (kv_lora, bf16) and their log-sum-exp
	 * (fp32) of every head reduce-scattered back to the heads' ranks. The
	 * decode sequences' only: a prefill runs its attention as plain TP. */
	b.dcp = c->lay.dcp > 1 && sh->kind != SERVE_PREFILL;
	b.by[PB_DCP_Q] = dec * m->heads * (m->kv_lora + m->qk_rope) * 2.0;
	b.by[PB_DCP_O] = dec * m->heads * (m->kv_lora * 2.0 + 4.0);
	if ((rc = fast ? replay(&b, &t) : fold(&b, &ops)) < 0)
		goto out;
	p->send_bytes = b.by[PB_AR];
out:
	llm_ops_release(&ops);
	pred_timed_release(&t);
	return rc;
}

