/*
 * test_calib_file.c - the constants fit, continued: a joint fit of two boxes
 * (shared constants once, box constants per scenario), what the calibration
 * file records and the warnings --calib gives, an old file with comments,
 * the defaults' draw ranges and intervals with the fit's residual spread.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "cmd.h"
#include "predict.h"
#include "test_calib_int.h"
#include "valid.h"

void suite_calib_file(void);

/* ---- joint fit, the file's record, warnings, intervals --------------------- */

/* A copy of the VM scenario under another name, in the test directory. */
static int scn_copy(const char *to, const char *name)
{
	FILE *in = fopen(VM_SCENARIO, "r"), *out = fopen(to, "w");
	char line[4096];
	int rc = in && out ? 0 : -1;
	while (in && out && fgets(line, sizeof(line), in))
		if (!strncmp(line, "name:", 5))
			fprintf(out, "name: %s\n", name);
		else
			fputs(line, out);
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}

/*
 * Two boxes measured with the same collectives: the shared nccl_base_ll_us
 * (nccl scope) is one parameter, the box-scope nccl_shm_gbs one per box;
 * each box's rate is found (0.7 and 1.3 times the scenario's), the file
 * keeps them apart and --calib gives each box its own.
 */
static void test_joint(void)
{
	char sa[160], sb[160], da[160], db[160], cal[160], out[4096];
	const char *fa[1], *fb[1];
	struct val_set *v = NULL;
	struct calib_result r;
	struct calib_file *c = malloc(sizeof(*c));
	struct scenario *s = NULL;
	struct plumb_err e;
	int fr[2] = { K_NCCL_BASE_US, K_NCCL_SHM_GBS }, i, j, ng = 0;
	double gbs = 0, truth[2] = { 0.7, 1.3 };
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(fitted(), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	snprintf(sa, sizeof(sa), "%s/box-a.yaml", F.dir);
	snprintf(sb, sizeof(sb), "%s/box-b.yaml", F.dir);
	snprintf(da, sizeof(da), "%s/a.csv", F.dir);
	snprintf(db, sizeof(db), "%s/b.csv", F.dir);
	snprintf(cal, sizeof(cal), "%s/joint.yaml", F.dir);
	CU_ASSERT_EQUAL_FATAL(scn_copy(sa, "box-a"), 0);
	CU_ASSERT_EQUAL_FATAL(scn_copy(sb, "box-b"), 0);
	CU_ASSERT_EQUAL_FATAL(write_coll(da, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(write_coll(db, NULL), 0);
	fa[0] = da;
	fb[0] = db;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(val_from_files(sa, fa, 1, NULL, MODEL, "nvfp4", "bf16", &v, &e), 0);
	CU_ASSERT_EQUAL_FATAL(val_add_files(v, sb, fb, 1, NULL, MODEL, "nvfp4", "bf16", &e), 0);
	CU_ASSERT_EQUAL_FATAL(v->ncases, 2);
	/* the truth: each box its own SHM rate */
	gbs = v->cases[0].scn->k.v[K_NCCL_SHM_GBS];
	for (i = 0; i < 2; i++)
		v->cases[i].scn->k.v[K_NCCL_SHM_GBS] = gbs * truth[i];
	CU_ASSERT_EQUAL_FATAL(val_predict(v, -1, &e), 0);
	for (i = 0; i < v->npoints; i++)
		v->points[i].measured = v->points[i].predicted;
	for (i = 0; i < 2; i++)
		v->cases[i].scn->k.v[K_NCCL_SHM_GBS] = gbs;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(calib_fit(v, fr, 2, &r, &e), 0);
	CU_ASSERT_EQUAL(r.nscn, 2);
	CU_ASSERT_EQUAL(r.nfree, 3);
	for (j = 0; j < r.nfree; j++) {
		if (r.idx[j] == K_NCCL_BASE_US) {
			CU_ASSERT_EQUAL(r.grp[j], -1);
			continue;
		}
		CU_ASSERT_EQUAL(r.idx[j], K_NCCL_SHM_GBS);
		CU_ASSERT(r.grp[j] == 0 || r.grp[j] == 1);
		if (r.grp[j] < 0)
			continue;
		ng++;
		CU_ASSERT(fabs(r.value[j] / (gbs * truth[r.grp[j]]) - 1) < 0.02);
		if (!(fabs(r.value[j] / (gbs * truth[r.grp[j]]) - 1) < 0.02))
			printf("\n  nccl_shm_gbs@%s: %g, want %g (%s)\n", r.scn[r.grp[j]].name, r.value[j],
			       gbs * truth[r.grp[j]], r.status);
	}
	CU_ASSERT_EQUAL(ng, 2);
	CU_ASSERT_STRING_EQUAL(r.scn[0].name, "box-a");
	CU_ASSERT_STRING_EQUAL(r.scn[1].name, "box-b");
	CU_ASSERT(r.scn[0].vm);
	/* the file: per-box rates under scenarios:, read back */
	f = fopen(cal, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(calib_write(f, v, &r, fa, 1, cal, &e), 0);
	fclose(f);
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(calib_load(cal, c, &e), 0);
	CU_ASSERT_EQUAL(c->nscn, 2);
	CU_ASSERT_EQUAL(c->n, 3);
	CU_ASSERT_EQUAL(c->ncov, 3);
	CU_ASSERT(c->has_chol);
	CU_ASSERT_EQUAL(c->dof, r.npoints - 3);
	for (j = 0; j < c->n; j++) {       /* shared and per-scenario, in fit order */
		CU_ASSERT_EQUAL(c->idx[j], r.idx[j]);
		CU_ASSERT_EQUAL(c->grp[j], r.grp[j]);
		CU_ASSERT_EQUAL(c->value[j], as_written(r.value[j]));
		CU_ASSERT_EQUAL(c->se[j], as_written(r.se[j]));
	}
	CU_ASSERT(fabs(c->sd / r.sd - 1) < 1e-5 || (r.sd < 1e-12 && c->sd < 1e-9));
	for (i = 0; i < 2; i++) {
		const char *path = i ? sb : sa;
		memset(out, 0, sizeof(out));
		f = fmemopen(out, sizeof(out) - 1, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		plumb_err_clear(&e);
		CU_ASSERT_EQUAL_FATAL(scn_load(path, &s, &e), 0);
		calib_apply_scn(c, s, f);
		fclose(f);
		CU_ASSERT(fabs(s->k.v[K_NCCL_SHM_GBS] / (gbs * truth[i]) - 1) < 0.02);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, "applied the constants fitted for scenario"));
		CU_ASSERT_PTR_NULL(strstr(out, "warning"));
		scn_free(s);
		s = NULL;
	}
	/* a third box keeps its own rate, and is told so */
	memset(out, 0, sizeof(out));
	f = fmemopen(out, sizeof(out) - 1, "w");
	CU_ASSERT_EQUAL_FATAL(scn_load(VM_SCENARIO, &s, &e), 0);
	calib_apply_scn(c, s, f);
	fclose(f);
	CU_ASSERT_EQUAL(s->k.v[K_NCCL_SHM_GBS], gbs);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "per-scenario constants for box-a, box-b only"));
	scn_free(s);
	calib_result_release(&r);
	val_free(v);
	free(c);
	remove(sa);
	remove(sb);
	remove(da);
	remove(db);
	remove(cal);
}

/* The single-box fit's file records the box; applied to an H200 box it
 * warns about the gpu-scope constants, to its own box it says nothing. */
static void test_fitted_on_and_warnings(void)
{
	struct calib_file *c = malloc(sizeof(*c));
	struct scenario *s = NULL;
	struct plumb_err e;
	char old[160], out[4096];
	const char *files[2];
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(fitted(), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	files[0] = F.decode;
	files[1] = F.coll;
	f = fopen(F.calfile, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(calib_write(f, F.v, &F.r, files, 2, F.calfile, &e), 0);
	fclose(f);
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(calib_load(F.calfile, c, &e), 0);
	CU_ASSERT_EQUAL(c->nscn, 1);
	CU_ASSERT_STRING_EQUAL(c->scn[0].name, "baremetal-8x-rtxpro6000");
	CU_ASSERT_STRING_EQUAL(c->scn[0].gpus, "rtx-pro-6000");
	CU_ASSERT_EQUAL(c->scn[0].vm, 0);
	CU_ASSERT_STRING_EQUAL(c->scn[0].engine, F.v->cases[0].scn->serving.engine == SCN_ENGINE_SGLANG ?
			       "sglang" : c->scn[0].engine);
	CU_ASSERT_PTR_NOT_NULL(strstr(c->scn[0].nccl_level, "SYS"));
	CU_ASSERT_EQUAL(c->npoints, F.r.npoints);
	CU_ASSERT(c->sd > 0);
	/* its own box: silent */
	memset(out, 0, sizeof(out));
	f = fmemopen(out, sizeof(out) - 1, "w");
	CU_ASSERT_EQUAL_FATAL(scn_load(SCENARIO, &s, &e), 0);
	calib_apply_scn(c, s, f);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(out, "");
	scn_free(s);
	/* an H200 box: the gpu-scope kmin_gemm_us was fitted on another GPU */
	memset(out, 0, sizeof(out));
	f = fmemopen(out, sizeof(out) - 1, "w");
	CU_ASSERT_EQUAL_FATAL(scn_load("scenarios/hgx-8x-h200.yaml", &s, &e), 0);
	calib_apply_scn(c, s, f);
	calib_apply_scn(c, s, f);   /* once per scenario file */
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "gpu-scope constants (kmin_gemm_us) were fitted on rtx-pro-6000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "has h200"));
	CU_ASSERT_PTR_NULL(strstr(strstr(out, "gpu-scope") + 1, "gpu-scope"));
	scn_free(s);
	/* an older file, without the record, loads and applies */
	snprintf(old, sizeof(old), "%s/old.yaml", F.dir);
	f = fopen(old, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("plumb_calibration: 1\nscenario: \"x.yaml\"\npoints: 3\nconverged: true\n"
	      "r2: 0.9\nconstants:\n  moe_mem_eff: 0.8\ncovariance:\n  names: [moe_mem_eff]\n"
	      "  matrix:\n    - [0.0001]\n", f);
	fclose(f);
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL(calib_load(old, c, &e), 0);
	CU_ASSERT_EQUAL(c->nscn, 0);
	CU_ASSERT_EQUAL(c->sd, 0);
	CU_ASSERT_EQUAL(c->n, 1);
	remove(old);
	free(c);
}

/*
 * A file as plumb wrote it before standard errors and units were data: they
 * were comments after each value. It loads; the standard errors come from
 * the covariance's diagonal.
 */
static void test_old_file_with_comments(void)
{
	static const char old[] =
		"# plumb calibration: fitted constants and their covariance.\n"
		"# Use with --calib FILE on any plumb command.\n"
		"plumb_calibration: 1\n"
		"scenario: \"scenarios/baremetal-8x-rtxpro6000.yaml\"\n"
		"data:\n  - \"bm-allreduce.txt\"\n  - \"vm-allreduce.txt\"\n"
		"points: 40\ndof: 37\nconverged: true\n"
		"status: \"converged after 6 iterations (gradient small)\"\n"
		"r2: 0.991000\n"
		"residual_rms: 0.0412    # RMS of log(predicted / measured)\n"
		"residual_sd: 0.0428    # sqrt(sum of squares / dof): the model error of intervals\n"
		"fitted_on:\n"
		"  - name: \"baremetal-8x-rtxpro6000\"\n"
		"    file: \"scenarios/baremetal-8x-rtxpro6000.yaml\"\n"
		"    gpus: \"rtx-pro-6000\"\n"
		"    virtualization: bare-metal\n"
		"    serving:\n      engine: sglang\n      cuda_graphs: true\n"
		"      custom_allreduce: \"off\"\n      moe_backend: \"cutlass\"\n      dsa: dense\n"
		"    nccl_p2p_level: \"SYS (the scenario's nccl: p2p_level)\"\n"
		"  - name: \"proxmox-vm-8x-rtxpro6000\"\n"
		"    file: \"scenarios/proxmox-vm-8x-rtxpro6000.yaml\"\n"
		"    gpus: \"rtx-pro-6000\"\n"
		"    virtualization: vm\n    chipset: i440fx\n    host_iommu: translate\n"
		"    serving:\n      engine: sglang\n      cuda_graphs: true\n"
		"      custom_allreduce: \"off\"\n      moe_backend: \"cutlass\"\n      dsa: dense\n"
		"    nccl_p2p_level: \"PHB (NCCL's default for this box)\"\n"
		"constants:\n"
		"  nccl_base_ll_us: 7.1    # +- 0.2 us\n"
		"scenarios:\n"
		"  \"proxmox-vm-8x-rtxpro6000\":\n"
		"    nccl_shm_gbs: 6.2    # +- 0.3 GB/s\n"
		"covariance:\n"
		"  names: [nccl_base_ll_us, \"proxmox-vm-8x-rtxpro6000/nccl_shm_gbs\"]\n"
		"  matrix:\n"
		"    - [0.04, 0.001]\n"
		"    - [0.001, 0.09]\n";
	struct calib_file *c = malloc(sizeof(*c));
	struct plumb_err e;
	char path[] = "/tmp/plumb-calib-old-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(old, f);
	CU_ASSERT_EQUAL(fclose(f), 0);
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL_FATAL(calib_load(path, c, &e), 0);
	CU_ASSERT_EQUAL(c->n, 2);
	CU_ASSERT_EQUAL(c->nscn, 2);
	CU_ASSERT_EQUAL(c->dof, 37);
	CU_ASSERT_EQUAL(c->sd, 0.0428);
	CU_ASSERT_EQUAL(c->idx[0], K_NCCL_BASE_US);
	CU_ASSERT_EQUAL(c->grp[0], -1);
	CU_ASSERT_EQUAL(c->value[0], 7.1);
	CU_ASSERT(fabs(c->se[0] - 0.2) < 1e-15);
	CU_ASSERT_EQUAL(c->idx[1], K_NCCL_SHM_GBS);
	CU_ASSERT_EQUAL(c->grp[1], 1);
	CU_ASSERT_EQUAL(c->value[1], 6.2);
	CU_ASSERT(fabs(c->se[1] - 0.3) < 1e-15);
	CU_ASSERT(c->has_chol);
	remove(path);
	free(c);
}

static int constant_100(void *arg, double *value, struct plumb_err *err)
{
	(void)arg;
	(void)err;
	*value = 100;
	return 1;
}

/* With a residual spread of 10%, a prediction the constants do not move
 * still gets an interval about exp(+-1.645 * 0.1) wide; without one, none. */
/* The defaults' draws: a step constant with a per-GPU draw range (a
 * measured catalog value) stays inside it with its value the median; one
 * without is drawn over its plausible range; one the scenario sets stays. */
static void test_draw_ranges(void)
{
	enum { N = 400 };
	static struct plumb_consts out[N];
	static double mult[N];
	struct plumb_consts k;
	struct plumb_err e;
	double lo = 1e9, hi = 0, klo = 1e9, khi = 0;
	int d, below = 0;

	consts_defaults(&k);
	k.v[K_MEM_EFF] = 0.75;
	k.dlo[K_MEM_EFF] = 0.7;
	k.dhi[K_MEM_EFF] = 0.8;
	k.v[K_KMIN_ATTN_US] = 7;
	k.set[K_KMIN_ATTN_US] = 1;
	plumb_err_clear(&e);
	CU_ASSERT_EQUAL(cmd_interval_consts(&k, N, 1, out, mult, &e), 1);
	for (d = 0; d < N; d++) {
		double m = out[d].v[K_MEM_EFF], g = out[d].v[K_KMIN_GEMM_US];
		lo = fmin(lo, m);
		hi = fmax(hi, m);
		below += m < 0.75;
		klo = fmin(klo, g);
		khi = fmax(khi, g);
		CU_ASSERT_DOUBLE_EQUAL(out[d].v[K_KMIN_ATTN_US], 7, 0);
	}
	CU_ASSERT(lo >= 0.7 - 1e-12 && hi <= 0.8 + 1e-12);
	CU_ASSERT(lo < 0.71 && hi > 0.79);
	CU_ASSERT(below > N / 2 - 50 && below < N / 2 + 50);
	/* kmin_gemm_us has no range of its own: its plausible 2-15 us */
	CU_ASSERT(klo >= plumb_const_defs[K_KMIN_GEMM_US].plo - 1e-12 && klo < 2.2);
	CU_ASSERT(khi <= plumb_const_defs[K_KMIN_GEMM_US].phi + 1e-12 && khi > 13);
}

static void test_interval_model_error(void)
{
	struct calib_file *c = calloc(1, sizeof(*c));
	struct plumb_consts k;
	struct plumb_err e;
	double lo, hi;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	consts_defaults(&k);
	c->sd = 0.1;
	cmd_set_calib(c);
	CU_ASSERT_EQUAL(cmd_calib_interval(&k, 200, constant_100, NULL, &lo, &hi, &e), 0);
	CU_ASSERT(lo < 95 && lo > 80);
	CU_ASSERT(hi > 105 && hi < 125);
	c->sd = 0;
	CU_ASSERT_EQUAL(cmd_calib_interval(&k, 200, constant_100, NULL, &lo, &hi, &e), 0);
	CU_ASSERT(isnan(lo) && isnan(hi));
	cmd_set_calib(NULL);
	free(c);
}

void suite_calib_file(void)
{
	CU_pSuite s = CU_add_suite("calib_file", NULL, cleanup);
	CU_add_test(s, "the defaults' draws keep a measured per-GPU value in its range",
		    test_draw_ranges);
	CU_add_test(s, "joint fit: shared constants once, box constants per scenario", test_joint);
	CU_add_test(s, "the file records what it was fitted on; --calib warns on another GPU",
		    test_fitted_on_and_warnings);
	CU_add_test(s, "intervals include the fit's residual spread", test_interval_model_error);
	CU_add_test(s, "a file with standard errors and units in comments still loads",
		    test_old_file_with_comments);
}
