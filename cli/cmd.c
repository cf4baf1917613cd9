/*
 * cmd.c - the subcommand table and the helpers every command uses.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "calib.h"
#include "cmd.h"
#include "coll.h"
#include "err.h"

const struct plumb_cmd plumb_commands[] = {
	{ "predict", cmd_predict, "tokens/s for a model, layouts and concurrency on one box",
	  cmd_predict_usage },
	{ "compare", cmd_compare, "the same prediction on several boxes side by side, with speed-ups",
	  cmd_compare_usage },
	{ "plan", cmd_plan, "the cheapest boxes, layouts and loads that meet a latency target (SLO)",
	  cmd_plan_usage },
	{ "sweep", cmd_sweep, "predict over a grid: scenarios x keys x layouts x load, CSV or JSON (MPI too)",
	  cmd_sweep_usage },
	{ "topo", cmd_topo, "topology views: topo -m, P2P status, IOMMU groups, NCCL transports, BARs",
	  cmd_topo_usage },
	{ "import", cmd_import, "write a scenario skeleton from `nvidia-smi topo -m` or `lspci` output",
	  cmd_import_usage },
	{ "xfer", cmd_xfer, "p2pBandwidthLatencyTest-style matrices: P2P vs host-bounce copies",
	  cmd_xfer_usage },
	{ "coll", cmd_coll, "nccl-tests style tables: NCCL collectives simulated on the fabric",
	  cmd_coll_usage },
	{ "bench", cmd_bench, "engine speed: events/s, flow re-solves/s, memory",
	  cmd_bench_usage },
	{ "validate", cmd_validate, "predicted vs measured for a list of real runs (docs/validation.md)",
	  cmd_validate_usage },
	{ "calibrate", cmd_calibrate, "fit the model's constants to your measurements (--calib FILE)",
	  cmd_calibrate_usage },
	{ "render", cmd_render, "pictures: topology, topo matrix, step timeline, throughput, fit (PNG/SVG/PDF)",
	  cmd_render_usage },
	{ "report", cmd_report, "one self-contained HTML page: the answer, charts, tables, diagnosis, assumptions",
	  cmd_report_usage },
	{ "trace", cmd_trace, "one simulated decode step as a Chrome trace (Perfetto, chrome://tracing)",
	  cmd_trace_usage },
	{ "constants", cmd_constants, "the model's named constants, their values and sources",
	  cmd_constants_usage },
	{ NULL, NULL, NULL, NULL }
};

const struct plumb_cmd *plumb_cmd_find(const char *name)
{
	const struct plumb_cmd *c;
	for (c = plumb_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static const struct calib_file *the_calib;

const struct calib_file *cmd_calib(void)
{
	return the_calib;
}

void cmd_set_calib(const struct calib_file *c)
{
	the_calib = c;
}

/*
 * The Monte Carlo loop of both intervals: draws times, perturb the constants
 * k (and give a multiplicative model error), evaluate fn, and take the 5th
 * and 95th percentile of the values; k is restored. Fixed seed.
 */
typedef double (*perturb_fn)(const void *pctx, gsl_rng *rng, struct plumb_consts *k);

static int mc_values(struct plumb_consts *k, int draws, perturb_fn perturb, const void *pctx,
		     int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
		     double *vals, struct plumb_err *err)
{
	struct plumb_consts keep = *k;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double e;
	int d, rc = 0;

	if (!rng)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	gsl_rng_set(rng, CMD_CALIB_SEED);
	for (d = 0; d < draws; d++) {
		*k = keep;
		vals[d] = NAN;
		e = perturb(pctx, rng, k);
		if ((rc = fn(arg, &vals[d], err)) < 0)
			break;
		vals[d] = rc > 0 ? vals[d] * e : NAN;
	}
	*k = keep;
	gsl_rng_free(rng);
	return rc < 0 ? rc : 0;
}

void cmd_draws_interval(const double *vals, int draws, double *lo, double *hi)
{
	double *v = malloc((size_t)(draws > 0 ? draws : 1) * sizeof(*v));
	int d, n = 0;
	*lo = *hi = NAN;
	if (!v)
		return;
	for (d = 0; d < draws; d++)
		if (!isnan(vals[d]))
			v[n++] = vals[d];
	if (n > 0) {
		gsl_sort(v, 1, (size_t)n);
		*lo = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.05);
		*hi = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.95);
	}
	free(v);
}

static int mc_interval(struct plumb_consts *k, int draws, perturb_fn perturb, const void *pctx,
		       int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
		       double *lo, double *hi, struct plumb_err *err)
{
	double *v = malloc((size_t)draws * sizeof(*v));
	int rc;
	if (!v)
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = mc_values(k, draws, perturb, pctx, fn, arg, v, err)) >= 0)
		cmd_draws_interval(v, draws, lo, hi);
	free(v);
	return rc;
}

/* A VM's host path that nobody measured (coll_vm_measured: no vm-scope
 * constant of its own in the scenario or the calibration): vm_path_scale
 * two-piece log-uniform over its plausible range, the prior of the
 * measured VMs (docs/model-vm.md "A VM's host path"), from a stream of its
 * own (vr; NULL: none), so the other draws are those of bare metal. */
static void perturb_vm(const gsl_rng *vr, struct plumb_consts *k)
{
	const struct plumb_const_def *v = &plumb_const_defs[K_VM_PATH_SCALE];
	double t, def = k->v[K_VM_PATH_SCALE];
	if (!vr || coll_vm_measured(k) || !(def > 0))
		return;
	t = 2 * gsl_rng_uniform(vr) - 1;
	k->v[K_VM_PATH_SCALE] = def * (t < 0 ? pow(v->plo / def, -t) : pow(v->phi / def, t));
}

/* The VM prior's stream (NULL when out of memory: no VM draws). */
static gsl_rng *vm_rng_new(void)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (r)
		gsl_rng_set(r, CMD_CALIB_SEED + 1);
	return r;
}

/* What perturb_calib draws from: the calibration and the VM prior's stream. */
struct calib_draw {
	const struct calib_file *cf;
	const gsl_rng *vr;
	double sd;                  /* the model error of what is predicted */
};

/* A draw from the calibration's covariance, and the model error the fit
 * left as one multiplicative draw. The spread sd is itself estimated from
 * the fit's dof residual degrees of freedom, so the error is Student's t
 * with dof degrees of freedom scaled by sd (a prediction interval's
 * t quantile), normal when the file does not record dof. A VM the
 * calibration does not cover draws its host path (perturb_vm). */
static double perturb_calib(const void *pctx, gsl_rng *rng, struct plumb_consts *k)
{
	const struct calib_draw *d = pctx;
	calib_sample(d->cf, rng, k);
	perturb_vm(d->vr, k);
	if (!(d->sd > 0))
		return 1;
	return exp(d->sd * (d->cf->dof > 0 ? gsl_ran_tdist(rng, d->cf->dof) : gsl_ran_ugaussian(rng)));
}

int cmd_calib_interval_for(const char *block, struct plumb_consts *k, int draws,
			   int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
			   double *lo, double *hi, struct plumb_err *err)
{
	const struct calib_file *cf = the_calib;
	struct calib_draw d;
	gsl_rng *vr;
	int rc;
	*lo = *hi = NAN;
	if (!cf || !(cf->has_chol || cf->sd > 0) || draws < 1)
		return 0;
	d.cf = cf;
	d.sd = calib_model_error(cf, block);
	d.vr = vr = vm_rng_new();
	rc = mc_interval(k, draws, perturb_calib, &d, fn, arg, lo, hi, err);
	gsl_rng_free(vr);
	return rc;
}

int cmd_calib_interval(struct plumb_consts *k, int draws,
		       int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
		       double *lo, double *hi, struct plumb_err *err)
{
	return cmd_calib_interval_for("decode", k, draws, fn, arg, lo, hi, err);
}

/* The step model's constants the defaults' interval draws. */
static const int step_k[] = {
	K_MEM_EFF, K_ATTN_MEM_EFF, K_MOE_MEM_EFF, K_FLOPS_EFF, K_FP4_FLOPS_EFF, K_KMIN_GEMM_US,
	K_KMIN_MOE_US, K_KMIN_ATTN_US, K_KMIN_ELEM_US, K_KERNEL_LAUNCH_US
};
#define NSTEP_K ((int)(sizeof(step_k) / sizeof(step_k[0])))

int cmd_step_const(int i)
{
	int j;
	for (j = 0; j < NSTEP_K; j++)
		if (step_k[j] == i)
			return 1;
	return 0;
}

/* Each step constant the scenario leaves open: two-piece log-uniform over
 * its draw range, half the draws between its value and each end (the value
 * is the median). The range is the plausible one for a global default or a
 * value assumed on this GPU, the measurement's spread for a value the GPU
 * catalog measured on it (consts_draw_range). An unmeasured VM's host path
 * as perturb_vm, from the stream pctx (a gsl_rng *). And the model error
 * make validate measures out of sample, log-normal with log-sd tok_err_sd
 * (TTFT's: val_ttft_err_factor). */
static double perturb_defaults(const void *pctx, gsl_rng *rng, struct plumb_consts *k)
{
	int i;
	for (i = 0; i < NSTEP_K; i++) {
		double t = 2 * gsl_rng_uniform(rng) - 1, def = k->v[step_k[i]], lo, hi;
		consts_draw_range(k, step_k[i], &lo, &hi);
		if (!k->set[step_k[i]] && lo > 0 && def > 0)
			k->v[step_k[i]] = def * (t < 0 ? pow(lo / def, -t) : pow(hi / def, t));
	}
	perturb_vm(pctx, k);
	return exp(k->v[K_TOK_ERR_SD] * gsl_ran_ugaussian(rng));
}

int cmd_defaults_interval(struct plumb_consts *k, int draws,
			  int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
			  double *lo, double *hi, struct plumb_err *err)
{
	int i, rc, open_k = !coll_vm_measured(k);
	gsl_rng *vr;
	*lo = *hi = NAN;
	for (i = 0; i < NSTEP_K; i++)
		open_k += !k->set[step_k[i]];
	if ((!open_k && !(k->v[K_TOK_ERR_SD] > 0)) || draws < 1)
		return 0;
	vr = vm_rng_new();
	rc = mc_interval(k, draws, perturb_defaults, vr, fn, arg, lo, hi, err);
	gsl_rng_free(vr);
	return rc;
}

int cmd_interval_consts(const struct plumb_consts *k, int draws, int defaults,
			struct plumb_consts *out, double *mult, struct plumb_err *err)
{
	const struct calib_file *cf = the_calib;
	perturb_fn perturb = perturb_defaults;
	const void *pctx = NULL;
	struct calib_draw cd = { cf, NULL, 0 };
	gsl_rng *rng, *vr = NULL;
	int i, d, open_k = !coll_vm_measured(k);
	if (draws < 1)
		return 0;
	if (cf) {
		if (!(cf->has_chol || cf->sd > 0))
			return 0;
		perturb = perturb_calib;
		cd.vr = vr = vm_rng_new();
		cd.sd = calib_model_error(cf, "decode");
		pctx = &cd;
	} else {
		if (!defaults)
			return 0;
		for (i = 0; i < NSTEP_K; i++)
			open_k += !k->set[step_k[i]];
		if (!open_k && !(k->v[K_TOK_ERR_SD] > 0))
			return 0;
		pctx = vr = vm_rng_new();
	}
	/* mc_values' loop without the evaluation */
	if (!(rng = gsl_rng_alloc(gsl_rng_mt19937))) {
		gsl_rng_free(vr);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	gsl_rng_set(rng, CMD_CALIB_SEED);
	for (d = 0; d < draws; d++) {
		out[d] = *k;
		mult[d] = perturb(pctx, rng, &out[d]);
	}
	gsl_rng_free(rng);
	gsl_rng_free(vr);
	return 1;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[2048], shown[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* an option value is the user's text: cut and made safe as any message */
	plumb_err_safe(shown, sizeof(shown), msg, PLUMB_ERR_SHOWN);
	fprintf(stderr, "plumb: error: %s\nTry 'plumb %s%s--help'.\n", shown, cmd ? cmd : "",
		cmd ? " " : "");
	return PLUMB_EUSAGE;
}

int cmd_wants_help(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}

void cmd_getopt_start(void)
{
	optind = 0;     /* GNU getopt: start over, scanning argv afresh */
	opterr = 0;     /* plumb prints its own messages */
}

int cmd_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	char opts[64];
	int c;

	/* "-..." keeps arguments in order (returned as option 1): ':' after it */
	if (shortopts[0] == '-')
		snprintf(opts, sizeof(opts), "-:%s", shortopts + 1);
	else
		snprintf(opts, sizeof(opts), ":%s", shortopts);
	c = getopt_long(argc, argv, opts, longopts, NULL);
	if (c == '?') {
		const char *a = argv[optind - 1];
		if (optopt > 0 && optopt < 0x80 && a[0] == '-' && a[1] != '-')
			return -cmd_usage_error(cmd, "unknown option '-%c'", optopt);
		if (optopt && strchr(a, '='))   /* a known long option given a value */
			return -cmd_usage_error(cmd, "option %.*s takes no value",
						(int)strcspn(a, "="), a);
		return -cmd_usage_error(cmd, "unknown option '%s'", a);
	}
	if (c == ':') {
		const char *a = argv[optind - 1];
		size_t n = strcspn(a, "=");
		return -cmd_usage_error(cmd, "option %.*s needs a value", (int)n, a);
	}
	return c;
}

const char *cmd_optname(char **argv, char *buf, size_t n)
{
	const char *a;

	/* the value came apart ("-b 8") or with its option ("-b8", "--x=8") */
	a = optarg && optind >= 2 && optarg == argv[optind - 1] ? argv[optind - 2]
								 : argv[optind - 1];
	if (a[0] == '-' && a[1] != '-')
		snprintf(buf, n, "%.2s", a);
	else
		snprintf(buf, n, "%.*s", (int)strcspn(a, "="), a);
	return buf;
}
