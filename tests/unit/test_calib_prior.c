/*
 * test_calib_prior.c - the posterior fit's guarantees: priors put the
 * plausible range at their 5% and 95% quantiles, a constant the data cannot
 * inform stays inside its range and off its bounds, the combination the
 * data do determine is named, every 90% range holds its point estimate,
 * draws never use a non-finite or absurd spread, an implausible value is
 * caught, and each data block keeps its own model error.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "calib.h"
#include "calib_int.h"
#include "cmd.h"
#include "valid.h"

void suite_calib_prior(void);

#define BM "scenarios/baremetal-8x-rtxpro6000.yaml"
#define DECODE "validation/data/baremetal-glm5-cutlass-decode.csv"
#define Z95 1.6448536269514722

static void test_quantiles(void)
{
	struct calib_prior p;
	/* kmin_gemm_us: cited 4 us, plausible 2-15: the range's ends are the
	 * 5% and 95% quantiles, the default the median */
	calib_prior_of(K_KMIN_GEMM_US, plumb_const_defs[K_KMIN_GEMM_US].def, &p);
	CU_ASSERT(fabs(p.med - 4) < 1e-12);
	CU_ASSERT(fabs(calib_prior_at(&p, -Z95) - 2) < 1e-9);
	CU_ASSERT(fabs(calib_prior_at(&p, Z95) - 15) < 1e-9);
	CU_ASSERT(fabs(calib_prior_z(&p, 15) - Z95) < 1e-9);
	/* vm_shm_step_us: 0, plausible 0-60: the range starts at 60 / 100 and
	 * the median is its geometric middle */
	calib_prior_of(K_VM_SHM_STEP_US, 0, &p);
	CU_ASSERT(fabs(p.med - 6) < 1e-9);
	CU_ASSERT(fabs(calib_prior_at(&p, -Z95) - 0.6) < 1e-9);
	CU_ASSERT(fabs(calib_prior_at(&p, Z95) - 60) < 1e-9);
}

/* The decode table's context-0 rows: at short context the GEMM and
 * attention kernels' floors add up and the data fix only their sum. */
static int write_ctx0(const char *path)
{
	FILE *in = fopen(DECODE, "r"), *out = fopen(path, "w");
	char line[512];
	int n = 0, rc = in && out ? 0 : -1;
	while (in && out && fgets(line, sizeof(line), in)) {
		int batch;
		long ctx;
		if (line[0] == '#')
			continue;
		if (!strncmp(line, "layout", 6) ||
		    (sscanf(line, "tp8,%d,%ld,", &batch, &ctx) == 2 && ctx == 0)) {
			fputs(line, out);
			n++;
		}
	}
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc < 0 ? rc : n;
}

static void test_unresolved_floors(void)
{
	char dir[] = "/tmp/plumb-calibp-XXXXXX", path[128], *buf = NULL;
	const char *files[1];
	int fr[3] = { K_KMIN_GEMM_US, K_KMIN_ATTN_US, K_MOE_MEM_EFF };
	struct calib_opts none = { CALIB_PRIOR_NONE };
	struct val_set *v = NULL;
	struct calib_result r;
	struct plumb_err e;
	size_t len = 0;
	FILE *f;
	int j, nun;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ctx0.csv", dir);
	CU_ASSERT_EQUAL_FATAL(write_ctx0(path), 8);
	files[0] = path;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(val_from_files(BM, files, 1, NULL, "glm-5", "nvfp4", "bf16", &v, &e), 0);
	CU_ASSERT_EQUAL_FATAL(calib_fit(v, fr, 3, &r, &e), 0);
	CU_ASSERT(r.converged);
	CU_ASSERT_EQUAL(r.nfree, 3);
	for (j = 0; j < r.nfree; j++) {
		/* inside its plausible range, off its bounds, inside its own range */
		CU_ASSERT(consts_plausible(r.idx[j], r.value[j]));
		CU_ASSERT(r.ci_lo[j] <= r.value[j] && r.value[j] <= r.ci_hi[j]);
		CU_ASSERT(isfinite(r.se[j]) && r.se[j] > 0);
	}
	{
		char why[512];
		CU_ASSERT_EQUAL(calib_poor(&r, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(calib_implausible(&r, why, sizeof(why)), 0);
	}
	/* the pair is named, with the combination the data determine */
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	nun = calib_ident(f, &r, NULL, 0);
	fclose(f);
	CU_ASSERT(nun >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "cannot tell kmin_gemm_us and kmin_attn_us apart"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "is determined"));
	free(buf);
	calib_result_release(&r);
	/* without priors the attention floor is not held: it runs away from
	 * its cited value (or the fit says it is poor) */
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(calib_fit_with(v, fr, 3, &none, &r, &e), 0);
	CU_ASSERT_FALSE(r.priors);
	for (j = 0; j < r.nfree; j++)
		CU_ASSERT(r.ci_lo[j] <= r.value[j] && r.value[j] <= r.ci_hi[j]);
	calib_result_release(&r);
	val_free(v);
	remove(path);
	rmdir(dir);
}

static void test_implausible(void)
{
	struct calib_result r;
	char why[512];
	memset(&r, 0, sizeof(r));
	r.nfree = 1;
	r.idx[0] = K_NCCL_LL_FRAC;
	r.grp[0] = -1;
	r.value[0] = 0.025;
	CU_ASSERT_EQUAL(calib_implausible(&r, why, sizeof(why)), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "nccl_ll_frac"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "0.2-0.6"));
	r.value[0] = 0.5;
	CU_ASSERT_EQUAL(calib_implausible(&r, why, sizeof(why)), 0);
}

/* fn for cmd_calib_interval: the value of kmin_gemm_us in the draw */
static int kmin_of(void *arg, double *value, struct plumb_err *err)
{
	(void)err;
	*value = ((struct plumb_consts *)arg)->v[K_KMIN_GEMM_US];
	return 1;
}

static void test_draws(void)
{
	char dir[] = "/tmp/plumb-calibp-XXXXXX", path[128];
	struct calib_file *c = calloc(1, sizeof(*c));
	struct plumb_consts k;
	struct plumb_err e;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double lo, hi;
	FILE *f;
	int i, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rng);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/wide.yaml", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* a standard error of 30000 us on a 5 us floor (what least squares
	 * gives a constant the data cannot see) */
	fputs("plumb_calibration: 1\npoints: 10\ndof: 8\nresidual_sd: 0.05\n"
	      "model_error:\n  decode: 0.03\n  all_reduce: 0.2\n"
	      "constants:\n  kmin_gemm_us: 5\n  nccl_bw_eff: 0.8\n"
	      "covariance:\n  names: [kmin_gemm_us, nccl_bw_eff]\n"
	      "  matrix:\n  - [9e8, 0]\n  - [0, 0.0004]\n", f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(calib_load(path, c, &e), 0);
	CU_ASSERT(c->has_chol);
	/* each block its own model error; a step without its own the decode one */
	CU_ASSERT_EQUAL(calib_model_error(c, "decode"), 0.03);
	CU_ASSERT_EQUAL(calib_model_error(c, "all_reduce"), 0.2);
	CU_ASSERT_EQUAL(calib_model_error(c, "sendrecv"), 0.05);
	consts_defaults(&k);
	calib_apply(c, &k);
	gsl_rng_set(rng, 7);
	for (i = 0; i < 2000; i++) {
		struct plumb_consts s = k;
		double d;
		calib_sample(c, rng, &s);
		d = log(s.v[K_KMIN_GEMM_US] / 5);
		bad += !isfinite(d) || fabs(d) > 6 * CALIB_MAX_SDLOG || !(s.v[K_NCCL_BW_EFF] > 0);
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* the interval of a drawn constant holds its point estimate */
	cmd_set_calib(c);
	CU_ASSERT_EQUAL(cmd_calib_interval(&k, 200, kmin_of, &k, &lo, &hi, &e), 0);
	CU_ASSERT(lo <= 5 && 5 <= hi);
	CU_ASSERT(isfinite(lo) && isfinite(hi) && lo > 0);
	cmd_set_calib(NULL);
	gsl_rng_free(rng);
	free(c);
	remove(path);
	rmdir(dir);
}

void suite_calib_prior(void)
{
	CU_pSuite s = CU_add_suite("calib_prior", NULL, NULL);
	CU_add_test(s, "the plausible range is the prior's 90%", test_quantiles);
	CU_add_test(s, "floors the data cannot tell apart: inside their ranges, the sum named",
		    test_unresolved_floors);
	CU_add_test(s, "an implausible value is caught", test_implausible);
	CU_add_test(s, "draws capped and finite, ranges hold the estimate, errors per block",
		    test_draws);
}
