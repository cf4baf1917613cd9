/*
 * predict_serve.c - what a prediction hands the serving loop: the shard of
 * each stage, tokens per step, the KV cache's room, the serving parameters,
 * the fit check and the one-line diagnosis of a step (predict.h).
 */
#include "predict.h"
#include "predict_ops.h"

#include <math.h>
#include <stdio.h>

/* The shard of stage st of the layout. */
void pred_stage_shard(const struct pred_cfg *c, int st, struct llm_shard *sh)
{
	const struct step_layout *l = &c->lay;
	const struct llm_model *m = c->m;
	int experts = m->experts > 0;
	switch (l->kind) {
	case LAY_EP:
		llm_shard_init(sh, m, 1, experts ? l->ep : 1);
		if (experts)
			sh->moe_tp = 1;
		break;
	case LAY_TPEP:
		llm_shard_init(sh, m, l->tp, experts ? l->ep : 1);
		if (experts)
			sh->moe_tp = 1;
		break;
	default:
		llm_shard_init(sh, m, l->tp, 1);
		break;
	}
	sh->first = m->layers * st / l->pp;
	sh->last = m->layers * (st + 1) / l->pp;
	sh->mtp = c->draft > 0 && st == l->pp - 1 && m->mtp_layers > 0;
	sh->dcp = l->dcp;
}

double pred_tokens_per_step(const struct pred_cfg *c)
{
	if (c->draft <= 0)
		return 1;
	if (c->naccept > 0)
		return llm_spec_tokens_per_step_pos(c->draft, c->accept_pos, c->naccept);
	return llm_spec_tokens_per_step(c->draft, c->accept);
}

long pred_kv_tokens(const struct pred_cfg *c, long seq_tokens)
{
	double best = INFINITY;
	int st;
	for (st = 0; st < c->lay.pp; st++) {
		struct llm_shard sh;
		const struct scn_gpu_model *g =
			&c->s->catalog->gpus[c->s->nodes[c->s->gpu_node[st * (c->lay.gpus / c->lay.pp)]].gpu_model];
		double room, per;
		pred_stage_shard(c, st, &sh);
		room = c->s->k.v[K_MEM_FRACTION] * g->memory_gib * 1073741824.0 -
		       llm_bytes_weights_per_gpu(c->m, &c->prec, &sh);
		/* A hybrid model's sliding-window and linear-attention layers
		 * hold a fixed amount per sequence: charge a typical request's
		 * whole cache over its tokens. */
		per = c->m->hybrid && seq_tokens > 0
			      ? llm_kv_bytes_per_seq_per_gpu(c->m, &c->prec, &sh, seq_tokens) /
					(double)seq_tokens
			      : llm_kv_bytes_per_token_per_gpu(c->m, &c->prec, &sh);
		if (per > 0 && room / per < best)
			best = room / per;
	}
	if (!isfinite(best) || best < 1)
		return 0;
	/* data-parallel attention: each rank holds its own sequences' cache */
	return (long)best * (c->lay.kind == LAY_EP ? c->lay.ep : 1);
}

double pred_kv_bytes_gpu(const struct pred_cfg *c, int g)
{
	struct llm_shard sh;
	int per_stage = c->lay.gpus / (c->lay.pp > 0 ? c->lay.pp : 1);
	double b;
	pred_stage_shard(c, per_stage > 0 ? g / per_stage : 0, &sh);
	b = llm_kv_bytes_per_token_per_gpu(c->m, &c->prec, &sh);
	/* data-parallel attention: a sequence's cache sits on one rank of ep */
	return c->lay.kind == LAY_EP && c->lay.ep > 1 ? b / c->lay.ep : b;
}

void pred_serve_params(const struct pred_cfg *c, int concurrency, long input, long output,
		       long context, struct serve_params *sp)
{
	serve_params_init(sp);
	sp->concurrency = concurrency;
	sp->input_len = input;
	sp->output_len = output;
	sp->context = context;
	sp->accept_per_step = pred_tokens_per_step(c);
	sp->decode_tokens = 1 + c->draft;
	sp->kv_tokens = pred_kv_tokens(c, input + output);
	sp->frontend_s = c->s->k.v[K_REQUEST_FRONTEND_US] * 1e-6;
	sp->tokenize_s = c->s->k.v[K_REQUEST_TOKENIZE_US] * 1e-6;
	sp->tokenize_token_s = c->s->k.v[K_REQUEST_TOKENIZE_TOKEN_US] * 1e-6;
	/* SGLang's overlap scheduler streams a batch's results after it has
	 * launched the next batch (scheduler.py event_loop_overlap; on by
	 * default, --disable-overlap-schedule). server_args.py turns it off
	 * for EAGLE speculative decoding (MTP; unless SGLANG_ENABLE_SPEC_V2)
	 * and pipeline parallelism (SGLang 0.5.6: "Overlap scheduler is
	 * disabled because of using eagle3 or standalone speculative
	 * decoding", "Pipeline parallelism is not compatible with overlap
	 * schedule"). */
	if (c->s->serving.engine == SCN_ENGINE_SGLANG && c->draft <= 0 && c->lay.pp <= 1) {
		sp->host_fn = pred_serve_host;
		sp->host_ctx = c;
	}
}

int pred_check_fit(const struct pred_cfg *c, int batch, long context, struct plumb_err *err)
{
	int st, rc;
	for (st = 0; st < c->lay.pp; st++) {
		struct llm_shard sh;
		const struct scn_gpu_model *g =
			&c->s->catalog->gpus[c->s->nodes[c->s->gpu_node[st * (c->lay.gpus / c->lay.pp)]].gpu_model];
		int b = c->lay.kind == LAY_EP ? (batch + c->lay.ep - 1) / c->lay.ep : batch;
		pred_stage_shard(c, st, &sh);
		if ((rc = llm_shard_check(c->m, &sh, err)) < 0)
			return rc;
		if ((rc = llm_check_fit(c->m, &c->prec, &sh, g, b, (int)context, err)) < 0)
			return rc;
	}
	return 0;
}

void pred_diagnosis(const struct pred_cfg *c, const struct pred_step_info *i, char *buf,
		    size_t n)
{
	const double *p = i->part;
	double step = 0, lat, mem, comp, comm, idle, best;
	const char *how = i->comm_net ? (i->comm_host_frac > 0 ? " over host memory and the network"
							       : " partly over the network")
				      : i->comm_host_frac > 0 ? " over host memory" : "";
	const char *what = c->lay.kind == LAY_EP ? "all-to-all" : "all-reduce";
	int k;
	for (k = 0; k < PART_N; k++)
		step += p[k];
	if (step <= 0) {
		snprintf(buf, n, "empty step");
		return;
	}
	lat = (p[PART_LAUNCH] + p[PART_KMIN]) / step;
	mem = (p[PART_WEIGHTS] + p[PART_KV]) / step;
	comp = p[PART_COMPUTE] / step;
	comm = (p[PART_ALLREDUCE] + p[PART_EXPERT_COMM] + p[PART_STAGE_SEND]) / step;
	idle = p[PART_IDLE] / step;
	best = fmax(fmax(lat, mem), fmax(comp, fmax(comm, idle)));
	if (best == idle && c->lay.pp > 1)
		snprintf(buf, n, "pipeline-bound: GPUs idle %.0f%% of the step waiting for the other "
			 "stage (kernel latency %.0f%%, memory %.0f%%, communication %.0f%%)",
			 100 * idle, 100 * lat, 100 * mem, 100 * comm);
	else if (best == comm)
		snprintf(buf, n, "communication-bound: %.0f%% of the step waits on %s%s "
			 "(kernel latency %.0f%%, memory %.0f%%)", 100 * comm, what, how,
			 100 * lat, 100 * mem);
	else if (best == lat)
		snprintf(buf, n, "kernel-latency-bound: %.0f%% of the step is kernel launches and "
			 "minimum kernel durations (memory %.0f%%, %s %.0f%%%s)", 100 * lat,
			 100 * mem, what, 100 * comm, how);
	else if (best == comp)
		snprintf(buf, n, "compute-bound: %.0f%% of the step is tensor-core math "
			 "(memory %.0f%%, %s %.0f%%)", 100 * comp, 100 * mem, what, 100 * comm);
	else
		snprintf(buf, n, "memory-bound: %.0f%% of the step reads weights (%.0f%%) and KV "
			 "cache (%.0f%%) (kernel latency %.0f%%, %s %.0f%%%s)", 100 * mem,
			 100 * p[PART_WEIGHTS] / step, 100 * p[PART_KV] / step, 100 * lat, what,
			 100 * comm, how);
}
