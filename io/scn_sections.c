/*
 * scn_sections.c - the sections of a scenario beside its machine:
 * `virtualization`, `constants`, `nccl` and `serving`, into struct scenario.
 */
#include "scn_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ytree.h"

static const char *const serving_keys[] = {
	"engine", "cuda_graphs", "custom_allreduce", "allreduce_fusion", "moe_backend",
	"attention_backend", "dsa", "mtp", "note", "moe_runner", "moe_skew",
	"two_batch_overlap", "redundant_experts", NULL
};
static const char *const engine_names[] = { "sglang", "vllm", "trtllm", "other", NULL };
static const char *const allreduce_names[] = { "off", "oneshot", "twoshot", "auto", NULL };
static const char *const dsa_names[] = { "sparse", "dense", NULL };
static const char *const mtp_keys[] = { "draft", "accept", NULL };
static const char *const nccl_keys[] = { "p2p_level", "p2p_disable", "shm_disable", "net_gdr_level", NULL };
/* NCCL's path names in its order (src/graph/topo.h), as NCCL_P2P_LEVEL takes them. */
static const char *const nccl_levels[] = { "LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS", NULL };
static const char *const vm_keys[] = {
	"mode", "hypervisor", "chipset", "pcie_passthrough", "firmware",
	"guest_phys_bits", "mmio64_window", "mmio32_window", "guest_ram",
	"host_iommu", "guest_kernel_args", "p2p_exposure", "guest_numa", "vcpus",
	"hugepages", "viommu", NULL
};
static const char *const mode_names[] = { "bare_metal", "vm", NULL };
static const char *const chipset_names[] = { "q35", "i440fx", NULL };
static const char *const firmware_names[] = { "seabios", "ovmf", NULL };
static const char *const iommu_names[] = { "off", "translate", "pt", NULL };
static const char *const exposure_names[] = { "none", "clique", NULL };
static const char *const guest_numa_names[] = { "none", "host", NULL };

int scn_parse_vm(const struct ytree *t, const struct ynode *m, struct scenario *s,
		 struct plumb_err *err)
{
	struct scn_vm *V = &s->vm;
	struct ynode *v;
	int rc, e;
	size_t i;

	if ((rc = yexpect(t, m, Y_MAP, "virtualization", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "virtualization", vm_keys, err)) < 0)
		return rc;
	if (!(v = ymap_get(m, "mode")))
		return yerr(t, m, PLUMB_EINPUT, err, "virtualization needs 'mode' (bare_metal or vm)");
	if ((rc = yget_enum(t, v, "mode", mode_names, &e, err)) < 0)
		return rc;
	V->mode = (enum scn_mode)e;
	if (V->mode == SCN_BARE_METAL) {
		for (i = 0; i < m->n; i++) {
			const char *k = m->keys[i]->str;
			if (strcmp(k, "mode") && strcmp(k, "host_iommu"))
				return yerr(t, m->keys[i], PLUMB_EINPUT, err,
					    "'%s' only applies with 'mode: vm'", k);
		}
	}
	if ((rc = scn_opt_str(t, m, "hypervisor", V->hypervisor, sizeof(V->hypervisor), err)) < 0)
		return rc;
	e = V->chipset;
	if ((rc = scn_opt_enum(t, m, "chipset", "chipset", chipset_names, &e, err)) < 0)
		return rc;
	V->chipset = (enum scn_chipset)e;
	if ((v = ymap_get(m, "pcie_passthrough")) &&
	    (rc = yget_bool(t, v, "pcie_passthrough", &V->pcie_passthrough, err)) < 0)
		return rc;
	if (V->chipset == SCN_I440FX && V->pcie_passthrough)
		return yerr(t, ymap_get(m, "pcie_passthrough"), PLUMB_EINPUT, err,
			    "pcie_passthrough needs chipset q35 (i440fx has a flat PCI bus)");
	e = V->firmware;
	if ((rc = scn_opt_enum(t, m, "firmware", "firmware", firmware_names, &e, err)) < 0)
		return rc;
	V->firmware = (enum scn_firmware)e;
	if ((rc = scn_opt_int(t, m, "guest_phys_bits", 36, 57, &V->guest_phys_bits, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "mmio64_window")) &&
	    (rc = yget_size(t, v, "mmio64_window", &V->mmio64_window, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "mmio32_window")) &&
	    (rc = yget_size(t, v, "mmio32_window", &V->mmio32_window, err)) < 0)
		return rc;
	if (V->mmio32_window > (4ull << 30))
		return yerr(t, ymap_get(m, "mmio32_window"), PLUMB_EINPUT, err,
			    "'mmio32_window' must be at most 4G (the 32-bit window lies below 4 GiB), got '%s'",
			    ymap_get(m, "mmio32_window")->str);
	if ((v = ymap_get(m, "guest_ram")) &&
	    (rc = yget_size(t, v, "guest_ram", &V->guest_ram, err)) < 0)
		return rc;
	e = V->host_iommu;
	if ((rc = scn_opt_enum(t, m, "host_iommu", "host_iommu mode", iommu_names, &e, err)) < 0)
		return rc;
	V->host_iommu = (enum scn_iommu)e;
	if ((v = ymap_get(m, "guest_kernel_args"))) {
		if ((rc = yexpect(t, v, Y_SEQ, "guest_kernel_args", err)) < 0)
			return rc;
		for (i = 0; i < v->n; i++) {
			char arg[128];
			if ((rc = yget_str(t, v->vals[i], "guest kernel argument", arg,
					   sizeof(arg), err)) < 0)
				return rc;
			if (strlen(V->kernel_args) + strlen(arg) + 2 > sizeof(V->kernel_args))
				return yerr(t, v->vals[i], PLUMB_EINPUT, err,
					    "guest_kernel_args too long");
			if (V->kernel_args[0])
				strcat(V->kernel_args, " ");
			strcat(V->kernel_args, arg);
			if (strcmp(arg, "pci=realloc") == 0 || strncmp(arg, "pci=realloc,", 12) == 0)
				V->pci_realloc = 1;
		}
	}
	e = V->p2p_exposure;
	if ((rc = scn_opt_enum(t, m, "p2p_exposure", "p2p_exposure", exposure_names, &e, err)) < 0)
		return rc;
	V->p2p_exposure = (enum scn_p2p_exposure)e;
	e = V->guest_numa;
	if ((rc = scn_opt_enum(t, m, "guest_numa", "guest_numa", guest_numa_names, &e, err)) < 0)
		return rc;
	V->guest_numa = e;
	if ((rc = scn_opt_int(t, m, "vcpus", 1, SCN_MAX_CPU + 1, &V->vcpus, err)) < 0)
		return rc;
	{
		/* The guest's host path (models/coll/vmhost.c): its RAM's
		 * page size, which the host IOMMU maps it in, and a vIOMMU. */
		static const char *const page_names[] = { "none", "2m", "1g", NULL };
		if ((rc = scn_opt_enum(t, m, "hugepages", "hugepages", page_names, &V->hugepages,
				       err)) < 0)
			return rc;
		if ((v = ymap_get(m, "viommu")) &&
		    (rc = yget_bool(t, v, "viommu", &V->viommu, err)) < 0)
			return rc;
	}
	if (V->mode == SCN_VM && V->guest_numa && !(V->chipset == SCN_Q35 && V->pcie_passthrough))
		return yerr(t, ymap_get(m, "guest_numa"), PLUMB_EINPUT, err,
			    "guest_numa: host needs chipset q35 with pcie_passthrough (pxb-pcie expander buses)");
	return 0;
}

int scn_const_index(const struct ytree *t, const struct ynode *key, int scope,
		    struct plumb_err *err)
{
	const char *name = key->str;
	const struct plumb_const_def *d;
	int c = consts_find(name);

	if (c < 0) {
		const char *best = NULL;
		int bd = 1000, j;
		for (j = 0; j < K_NCONSTS; j++) {
			int dist = str_distance(name, plumb_const_defs[j].name);
			if (dist < bd) {
				bd = dist;
				best = plumb_const_defs[j].name;
			}
		}
		if (best && bd <= 1 + (int)strlen(best) / 3)
			return yerr(t, key, PLUMB_EINPUT, err,
				    "unknown constant '%s' (did you mean '%s'?)", name, best);
		return yerr(t, key, PLUMB_EINPUT, err,
			    "unknown constant '%s' (see docs/model-constants.md for the list)", name);
	}
	d = &plumb_const_defs[c];
	if (scope == SCOPE_GPU && !consts_per_gpu(c))
		return yerr(t, key, PLUMB_EINPUT, err,
			    "'%s' has %s scope; a GPU entry holds gpu-scope constants and the MoE "
			    "kernels' (moe_mem_eff, kmin_moe_us) only", name,
			    consts_scope_name(d->scope));
	if (scope >= 0 && scope != SCOPE_GPU && (int)d->scope != scope)
		return yerr(t, key, PLUMB_EINPUT, err, "'%s' has %s scope; only %s-scope "
			    "constants belong here", name, consts_scope_name(d->scope),
			    consts_scope_name((enum plumb_scope)scope));
	return c;
}

int scn_parse_consts(const struct ytree *t, const struct ynode *m, int scope,
		     struct plumb_consts *k, struct plumb_err *err)
{
	size_t i;
	int rc;
	if ((rc = yexpect(t, m, Y_MAP, "constants", err)) < 0)
		return rc;
	for (i = 0; i < m->n; i++) {
		const struct plumb_const_def *d;
		int c = scn_const_index(t, m->keys[i], scope, err);
		if (c < 0)
			return c;
		d = &plumb_const_defs[c];
		if ((rc = yget_double(t, m->vals[i], d->name, d->lo, d->hi, &k->v[c], err)) < 0)
			return rc;
		k->set[c] = 1;
	}
	return 0;
}

int scn_parse_nccl(const struct ytree *t, const struct ynode *m, struct scenario *s,
		   struct plumb_err *err)
{
	struct ynode *v;
	int rc, e, off = 0;
	if ((rc = yexpect(t, m, Y_MAP, "nccl", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "nccl", nccl_keys, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "p2p_level"))) {
		if ((rc = yget_enum(t, v, "NCCL_P2P_LEVEL", nccl_levels, &e, err)) < 0)
			return rc;
		s->nccl_level = e;
	}
	if ((v = ymap_get(m, "p2p_disable"))) {
		if ((rc = yget_bool(t, v, "p2p_disable", &off, err)) < 0)
			return rc;
		if (off)
			s->nccl_level = 0;   /* NCCL_P2P_DISABLE=1 means LOC */
	}
	if ((v = ymap_get(m, "shm_disable")) &&
	    (rc = yget_bool(t, v, "shm_disable", &s->nccl_shm_disable, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "net_gdr_level"))) {
		if ((rc = yget_enum(t, v, "NCCL_NET_GDR_LEVEL", nccl_levels, &e, err)) < 0)
			return rc;
		s->nccl_gdr_level = e;
	}
	return 0;
}

const char *scn_engine_name(enum scn_engine e)
{
	return (unsigned)e < 4 ? engine_names[e] : "?";
}

const char *scn_allreduce_name(enum scn_allreduce a)
{
	return allreduce_names[a];
}

void scn_serving_derive(struct scn_serving *sv)
{
	/* FlashInfer's trtllm-gen fused MoE, whatever the engine calls it
	 * (SGLang's --moe-runner-backend names; docs/model-kernels.md) */
	sv->moe_trtllm_gen = !strcmp(sv->moe_backend, "flashinfer_mxfp4") ||
			     !strcmp(sv->moe_backend, "flashinfer_trtllm");
	sv->attn_trtllm_gen = !strcmp(sv->attention_backend, "trtllm_mha") ||
			      !strcmp(sv->attention_backend, "trtllm_mla");
}

/* serving: moe_runner (fused, loop, deepep), moe_skew (a Zipf exponent
 * of the experts' popularity, 0..4; docs/model-decode.md, "Sharding") and
 * two_batch_overlap (docs/model-disagg.md, "Two-batch overlap"). */
static int parse_serving_moe(const struct ytree *t, const struct ynode *m,
			     struct scn_moe *moe, struct plumb_err *err)
{
	static const char *const runner_names[] = { "fused", "loop", "deepep", NULL };
	struct ynode *v;
	int rc, e;
	if ((v = ymap_get(m, "moe_runner"))) {
		if ((rc = yget_enum(t, v, "moe_runner", runner_names, &e, err)) < 0)
			return rc;
		moe->runner = (enum scn_moe_runner)e;
		moe->stated = 1;
	}
	if ((v = ymap_get(m, "moe_skew")) &&
	    (rc = yget_double(t, v, "moe_skew", 0, 4, &moe->skew, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "two_batch_overlap")) &&
	    (rc = yget_bool(t, v, "two_batch_overlap", &moe->tbo, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "redundant_experts"))) {
		long n;
		if ((rc = yget_int(t, v, "redundant_experts", 0, 4096, &n, err)) < 0)
			return rc;
		moe->redundant = (int)n;
	}
	return 0;
}

int scn_parse_cost(const struct ytree *t, const struct ynode *m, struct scenario *s,
		   struct plumb_err *err)
{
	static const char *const keys[] = {
		"price_usd", "life_years", "usd_per_kwh", "pue", "hosting_usd_kw_month",
		"host_w", NULL
	};
	static const double lo[] = { 1, 0.1, 0, 1, 0, 0 };
	static const double hi[] = { 1e9, 50, 10, 5, 1e5, 1e5 };
	double *dst[] = {
		&s->cost.price_usd, &s->cost.life_years, &s->cost.usd_per_kwh, &s->cost.pue,
		&s->cost.hosting_usd_kw_month, &s->cost.host_w
	};
	struct ynode *v;
	int i, rc;
	if ((rc = yexpect(t, m, Y_MAP, "cost", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "cost", keys, err)) < 0)
		return rc;
	for (i = 0; keys[i]; i++)
		if ((v = ymap_get(m, keys[i])) &&
		    (rc = yget_double(t, v, keys[i], lo[i], hi[i], dst[i], err)) < 0)
			return rc;
	/* a stated zero (free power, no rent, no host) is kept apart from unset */
	if (ymap_get(m, "usd_per_kwh") && s->cost.usd_per_kwh == 0)
		s->cost.usd_per_kwh = -1;
	if (ymap_get(m, "hosting_usd_kw_month") && s->cost.hosting_usd_kw_month == 0)
		s->cost.hosting_usd_kw_month = -1;
	if (ymap_get(m, "host_w") && s->cost.host_w == 0)
		s->cost.host_w = -1;
	return 0;
}

int scn_parse_serving(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err)
{
	struct scn_serving *sv = &s->serving;
	struct ynode *v;
	int rc, e;
	if ((rc = yexpect(t, m, Y_MAP, "serving", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "serving", serving_keys, err)) < 0)
		return rc;
	sv->given = 1;
	if ((v = ymap_get(m, "engine"))) {
		/* NAME or NAME@VERSION, against the engine table */
		char spec[48], msg[256];
		enum scn_engine en;
		if ((rc = yget_str(t, v, "engine", spec, sizeof(spec), err)) < 0)
			return rc;
		if (scn_engine_spec(spec, 1, &en, &sv->version, msg, sizeof(msg)) < 0)
			return yerr(t, v, PLUMB_EINPUT, err, "%s", msg);
		sv->engine = en;
		sv->stated |= SCN_SV_ENGINE;
	}
	if ((v = ymap_get(m, "cuda_graphs")) &&
	    (rc = yget_bool(t, v, "cuda_graphs", &sv->cuda_graphs, err)) < 0)
		return rc;
	sv->stated |= v ? SCN_SV_GRAPHS : 0;
	if ((v = ymap_get(m, "custom_allreduce"))) {
		if ((rc = yget_enum(t, v, "custom_allreduce", allreduce_names, &e, err)) < 0)
			return rc;
		sv->allreduce = (enum scn_allreduce)e;
		sv->stated |= SCN_SV_ALLREDUCE;
	}
	if ((v = ymap_get(m, "allreduce_fusion")) &&
	    (rc = yget_bool(t, v, "allreduce_fusion", &sv->allreduce_fusion, err)) < 0)
		return rc;
	sv->stated |= v ? SCN_SV_FUSION : 0;
	if ((v = ymap_get(m, "moe_backend")) &&
	    (rc = yget_str(t, v, "moe_backend", sv->moe_backend, sizeof(sv->moe_backend), err)) < 0)
		return rc;
	sv->stated |= v ? SCN_SV_MOE_BACKEND : 0;

	if ((v = ymap_get(m, "attention_backend")) &&
	    (rc = yget_str(t, v, "attention_backend", sv->attention_backend,
			   sizeof(sv->attention_backend), err)) < 0)
		return rc;
	sv->stated |= v ? SCN_SV_ATTN : 0;
	scn_serving_derive(sv);
	if ((rc = parse_serving_moe(t, m, &sv->moe, err)) < 0)
		return rc;
	sv->stated |= sv->moe.stated ? SCN_SV_MOE_RUNNER : 0;
	if ((v = ymap_get(m, "dsa"))) {
		if ((rc = yget_enum(t, v, "dsa", dsa_names, &e, err)) < 0)
			return rc;
		sv->dsa_dense = e;
		sv->stated |= SCN_SV_DSA;
	}
	if ((v = ymap_get(m, "note")) &&
	    (rc = yget_str(t, v, "note", sv->note, sizeof(sv->note), err)) < 0)
		return rc;
	if ((v = ymap_get(m, "mtp"))) {
		struct ynode *w;
		long d = 0;
		if ((rc = yexpect(t, v, Y_MAP, "mtp", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "mtp", mtp_keys, err)) < 0)
			return rc;
		if ((w = ymap_get(v, "draft")) &&
		    (rc = yget_int(t, w, "mtp draft", 0, 16, &d, err)) < 0)
			return rc;
		sv->mtp_draft = (int)d;
		if ((w = ymap_get(v, "accept")) && w->type == Y_SEQ) {
			size_t i;
			/* per draft position: the k-th accepted given the ones before */
			if (w->n < 1 || (long)w->n > (d > 0 ? d : 16))
				return yerr(t, w, PLUMB_EINPUT, err,
					    "mtp accept: one rate per draft position, 1 to %ld of them",
					    d > 0 ? d : 16L);
			for (i = 0; i < w->n; i++)
				if ((rc = yget_double(t, w->vals[i], "mtp accept", 0, 1,
						      &sv->mtp_accept_pos[i], err)) < 0)
					return rc;
			sv->mtp_naccept = (int)w->n;
			sv->mtp_accept = sv->mtp_accept_pos[0];
		} else if (w && (rc = yget_double(t, w, "mtp accept", 0, 1, &sv->mtp_accept, err)) < 0) {
			return rc;
		}
		if (sv->mtp_draft > 0 && !ymap_get(v, "accept"))
			return yerr(t, v, PLUMB_EINPUT, err,
				    "mtp with %d draft tokens needs its acceptance (accept: 0..1)",
				    sv->mtp_draft);
	}
	return 0;
}
