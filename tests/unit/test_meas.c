/*
 * test_meas.c - the measured-data parsers (io/meas.h): every sample block
 * of realdata/nccl-tests-samples.txt and realdata/p2p-latency-samples.txt
 * (copied verbatim to tests/data/meas/) parses with the expected runs and
 * exact values; format variants (old columns, CRLF, ANSI, NCCL INFO lines,
 * N/A) parse; broken input fails with the exact code, line, column and
 * message. The CSV files, the limits, the docs' examples and mutated input
 * are in test_meas_csv.c.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "meas.h"
#include "test_meas_int.h"

void suite_meas(void);

/* ------------------------------------------------------------ helpers */

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f) {
		printf("\n  cannot open %s\n", path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = (size_t)n;
	}
	return buf;
}

#define MAX_SAMPLES 32

/* Blocks of a samples file that start with "=== SAMPLE" (the notes before
 * the first block are not a sample). Returns how many. */
static int split_samples(const char *buf, const char **start, size_t *len)
{
	const char *p = buf, *q;
	int n = 0;

	while ((p = strstr(p, "=== SAMPLE")) != NULL && n < MAX_SAMPLES) {
		if (p != buf && p[-1] != '\n') {
			p++;
			continue;
		}
		q = strstr(p + 1, "\n=== SAMPLE");
		start[n] = p;
		len[n] = q ? (size_t)(q + 1 - p) : strlen(p);
		n++;
		p += len[n - 1];
	}
	return n;
}

/* One bad-input case: the parser, the text, and the exact error. */
void expect_fail(enum which w, const char *text, size_t len, int code,
		 int line, int col, const char *msg)
{
	struct plumb_err e;
	int rc;

	plumb_err_clear(&e);
	if (w == NCCL) {
		struct meas_nccl_file *f = (struct meas_nccl_file *)&e;
		rc = meas_nccl_parse(text, len, "bad.txt", NULL, &f, &e);
		CU_ASSERT_PTR_NULL(f);
		meas_nccl_free(rc == 0 ? f : NULL);
	} else if (w == P2P) {
		struct meas_p2p_file *f = (struct meas_p2p_file *)&e;
		rc = meas_p2p_parse(text, len, "bad.txt", &f, &e);
		CU_ASSERT_PTR_NULL(f);
		meas_p2p_free(rc == 0 ? f : NULL);
	} else {
		struct meas_csv *t = (struct meas_csv *)&e;
		rc = meas_csv_parse(text, len, "bad.csv", &t, &e);
		CU_ASSERT_PTR_NULL(t);
		meas_csv_free(rc == 0 ? t : NULL);
	}
	EXPECT_INT(rc, -code);
	EXPECT_INT(e.code, code);
	EXPECT_INT(e.line, line);
	EXPECT_INT(e.col, col);
	EXPECT_STR(e.msg, msg);
}

/* ---------------------------------------------------------- nccl-tests */

static const char *const NCCL_HDR =
	"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

static void test_nccl_samples(void)
{
	static const struct {
		const char *id;
		int nruns;
		int rows[3];
		int ngpus[3];
		enum meas_src op_src;
	} want[] = {
		{ "8x4090-epyc7542-noP2P", 1, { 25 }, { 8 }, MEAS_SRC_FILE },
		{ "8x4090-epyc7542-P2P", 1, { 25 }, { 8 }, MEAS_SRC_DEFAULT },
		{ "8x5090-epyc9575f-P2P", 1, { 25 }, { 8 }, MEAS_SRC_FILE },
		{ "2x2080ti-autodl-container-noP2P", 1, { 28 }, { 2 }, MEAS_SRC_FILE },
		{ "a40-nv4-2gpu-nvlink", 3, { 4, 4, 4 }, { 2, 4, 2 }, MEAS_SRC_FILE },
		{ "dgx-a100-4gpu-nvswitch", 2, { 4, 4 }, { 4, 4 }, MEAS_SRC_FILE },
	};
	const char *start[MAX_SAMPLES];
	size_t len[MAX_SAMPLES], flen;
	char *buf = slurp(DATA "nccl-tests-samples.txt", &flen);
	struct meas_nccl_file *f[6];
	struct plumb_err e;
	int n, i, j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	n = split_samples(buf, start, len);
	EXPECT_INT(n, 6);
	if (n != 6) {
		free(buf);
		return;
	}
	for (i = 0; i < n; i++) {
		int rc;
		CU_ASSERT(strncmp(start[i] + 11, want[i].id, strlen(want[i].id)) == 0);
		plumb_err_clear(&e);
		rc = meas_nccl_parse(start[i], len[i], want[i].id, NULL, &f[i], &e);
		if (rc != 0)
			printf("\n  sample %s: %s:%d:%d: %s\n", want[i].id, e.file, e.line,
			       e.col, e.msg);
		EXPECT_INT(rc, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f[i]);
		EXPECT_INT(f[i]->nruns, want[i].nruns);
		for (j = 0; j < f[i]->nruns && j < want[i].nruns; j++) {
			const struct meas_nccl_run *r = &f[i]->runs[j];
			EXPECT_INT(r->nrows, want[i].rows[j]);
			EXPECT_INT(r->ngpus, want[i].ngpus[j]);
			EXPECT_INT(r->ngpus_src, MEAS_SRC_FILE);
			EXPECT_STR(r->op, "allreduce");
			EXPECT_INT(r->op_src, want[i].op_src);
			EXPECT_INT(r->has_root, 1);
			EXPECT_INT(r->wrong_is_error, 0);
			EXPECT_INT(r->transports, 0);
		}
	}

	/* 8x4090 without P2P: first row, the 128M row, footer, devices */
	{
		const struct meas_nccl_run *r = &f[0]->runs[0];
		const struct meas_nccl_row *a = &r->rows[0], *z = &r->rows[24];
		EXPECT_INT(r->line, 5);
		EXPECT_INT(a->line, 21);
		EXPECT_INT(a->size, 8);
		EXPECT_INT(a->count, 2);
		EXPECT_STR(a->type, "float");
		EXPECT_STR(a->redop, "sum");
		EXPECT_INT(a->root, -1);
		EXPECT_DBL(a->oop_time_us, 38.83);
		EXPECT_DBL(a->oop_algbw, 0.0);
		EXPECT_DBL(a->oop_wrong, 0.0);
		EXPECT_DBL(a->ip_time_us, 40.43);
		EXPECT_INT(z->size, 134217728);
		EXPECT_INT(z->count, 33554432);
		EXPECT_DBL(z->oop_time_us, 16253);
		EXPECT_DBL(z->oop_algbw, 8.26);
		EXPECT_DBL(z->oop_busbw, 14.45);
		EXPECT_DBL(z->ip_time_us, 16227);
		EXPECT_DBL(z->ip_busbw, 14.47);
		EXPECT_DBL(r->avg_busbw, 4.85265);
		EXPECT_INT(r->ndevices, 8);
		EXPECT_INT(r->devices[7].rank, 7);
		EXPECT_INT(r->devices[7].device, 7);
		EXPECT_STR(r->devices[7].bus, "0xe1");
		EXPECT_STR(r->devices[7].name, "NVIDIA GeForce RTX 4090");
	}
	/* same box with P2P: 20.64 at 128M, no command line in the sample */
	EXPECT_DBL(f[1]->runs[0].rows[24].oop_busbw, 20.64);
	EXPECT_DBL(f[1]->runs[0].rows[0].ip_time_us, 38.16);
	/* 8x5090: full BDF, no footer, four-decimal times */
	EXPECT_STR(f[2]->runs[0].devices[0].bus, "0000:01:00");
	EXPECT_STR(f[2]->runs[0].devices[0].name, "NVIDIA GeForce RTX 5090");
	EXPECT_NAN(f[2]->runs[0].avg_busbw);
	EXPECT_DBL(f[2]->runs[0].rows[22].oop_time_us, 1284.81);
	EXPECT_DBL(f[2]->runs[0].rows[24].ip_busbw, 44.07);
	/* 2x2080Ti: up to 1 GiB */
	EXPECT_INT(f[3]->runs[0].rows[27].size, 1073741824);
	EXPECT_DBL(f[3]->runs[0].rows[27].oop_time_us, 268588);
	EXPECT_STR(f[3]->runs[0].devices[1].name, "NVIDIA GeForce RTX 2080 Ti");
	/* A40: three runs told apart by their command lines (-g 2 / -g 4) */
	EXPECT_DBL(f[4]->runs[0].rows[0].oop_time_us, 22661);
	EXPECT_DBL(f[4]->runs[1].rows[0].oop_time_us, 1121937);
	EXPECT_INT(f[4]->runs[1].rows[3].size, 8589934592ULL);
	EXPECT_INT(f[4]->runs[1].rows[3].count, 2147483648ULL);
	EXPECT_DBL(f[4]->runs[2].rows[3].ip_busbw, 3.71);
	EXPECT_DBL(f[4]->runs[0].avg_busbw, 47.4509);
	EXPECT_DBL(f[4]->runs[1].avg_busbw, 1.40216);
	EXPECT_DBL(f[4]->runs[2].avg_busbw, 3.85845);
	EXPECT_INT(f[4]->runs[1].line, 17);
	EXPECT_INT(f[4]->runs[0].ndevices, 0);
	/* DGX A100 NVSwitch vs P2P disabled */
	EXPECT_DBL(f[5]->runs[0].rows[0].oop_time_us, 7163.5);
	EXPECT_DBL(f[5]->runs[0].rows[0].oop_busbw, 224.84);
	EXPECT_DBL(f[5]->runs[1].rows[3].oop_algbw, 3.46);

	for (i = 0; i < n; i++)
		meas_nccl_free(f[i]);
	free(buf);
}

/* Old nccl-tests (no root column, "error"), CRLF, ANSI colour, NCCL INFO
 * lines, N/A, a second run of another collective, trailing prose. */
static void test_nccl_variants(void)
{
	static const char text[] =
		"\xEF\xBB\xBFnode1:123:123 [0] NCCL INFO Bootstrap : Using eth0\r\n"
		"# nThread 1 nGpus 4 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\r\n"
		"node1:123:130 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via SHM/direct/direct\r\n"
		"node1:123:131 [2] NCCL INFO Channel 00 : 2[2] -> 3[3] via P2P/IPC/read\r\n"
		"#\r\n"
		"#                                                     out-of-place                       in-place\r\n"
		"#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\r\n"
		"#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\r\n"
		"\x1b[1;32m           8             2   float     sum    158.3    0.00    0.00  1e-07    157.9    0.00    0.00  1e-07\x1b[0m\r\n"
		"          64            16   float     sum    160.1    0.00    0.00    N/A    160.0    0.00    0.00    N/A\r\n"
		"# Out of bounds values : 0 OK\r\n"
		"# Avg bus bandwidth    : 0.00123 \r\n"
		"\r\n"
		"# Collective test starting: sendrecv_perf\r\n"
		"# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\r\n"
		"host:9:9 [0] NCCL INFO Channel 00/1 : 0[0] -> 1[1] via NET/IB/0\r\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\r\n"
		"        1024           256     float     sum      -1    20.01    0.05    0.05      0    19.99    0.05    0.05      0\r\n"
		"Done. Results were posted to the wiki.\r\n";
	struct meas_nccl_file *f;
	struct plumb_err e;
	int rc = meas_nccl_parse(text, sizeof(text) - 1, "v.txt", NULL, &f, &e);

	if (rc)
		printf("\n  %d:%d: %s\n", e.line, e.col, e.msg);
	EXPECT_INT(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_INT(f->nruns, 2);
	if (f->nruns == 2) {
		const struct meas_nccl_run *a = &f->runs[0], *b = &f->runs[1];
		EXPECT_STR(a->op, "allreduce");
		EXPECT_INT(a->nccl_version, 0);
		EXPECT_INT(a->op_src, MEAS_SRC_DEFAULT);
		EXPECT_INT(a->ngpus, 4);
		EXPECT_INT(a->has_root, 0);
		EXPECT_INT(a->wrong_is_error, 1);
		EXPECT_INT(a->transports, MEAS_TR_SHM | MEAS_TR_P2P);
		EXPECT_INT(a->nrows, 2);
		EXPECT_INT(a->line, 2);
		EXPECT_INT(a->rows[0].line, 9);
		EXPECT_INT(a->rows[0].root, -1);
		EXPECT_DBL(a->rows[0].oop_time_us, 158.3);
		EXPECT_DBL(a->rows[0].oop_wrong, 1e-07);
		EXPECT_DBL(a->rows[0].ip_time_us, 157.9);
		EXPECT_INT(a->rows[1].size, 64);
		EXPECT_NAN(a->rows[1].oop_wrong);
		EXPECT_NAN(a->rows[1].ip_wrong);
		EXPECT_DBL(a->avg_busbw, 0.00123);
		EXPECT_STR(b->op, "sendrecv");
		EXPECT_INT(b->op_src, MEAS_SRC_FILE);
		EXPECT_INT(b->ngpus, 2);
		EXPECT_INT(b->transports, MEAS_TR_NET);
		EXPECT_INT(b->nrows, 1);
		EXPECT_INT(b->has_root, 1);
		EXPECT_DBL(b->rows[0].ip_time_us, 19.99);
		EXPECT_NAN(b->avg_busbw);
	}
	meas_nccl_free(f);
}

/* Hints fill what the text does not say; the text wins otherwise. */
static void test_nccl_hints(void)
{
	char text[1024];
	struct meas_nccl_hint h = { "all_gather_perf", 8 };
	struct meas_nccl_file *f;
	struct plumb_err e;
	int rc;

	snprintf(text, sizeof(text), "%s%s", NCCL_HDR,
		 "        1024            32     float    none      -1    30.00    0.03    0.03      0    29.00    0.04    0.03      0\n");
	rc = meas_nccl_parse(text, strlen(text), "h.txt", &h, &f, &e);
	EXPECT_INT(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_STR(f->runs[0].op, "allgather");
	EXPECT_INT(f->runs[0].op_src, MEAS_SRC_HINT);
	EXPECT_INT(f->runs[0].ngpus, 8);
	EXPECT_INT(f->runs[0].ngpus_src, MEAS_SRC_HINT);
	EXPECT_STR(f->runs[0].rows[0].redop, "none");
	meas_nccl_free(f);

	/* no hint: op defaults, GPU count unknown */
	rc = meas_nccl_parse(text, strlen(text), "h.txt", NULL, &f, &e);
	EXPECT_INT(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_STR(f->runs[0].op, "allreduce");
	EXPECT_INT(f->runs[0].op_src, MEAS_SRC_DEFAULT);
	EXPECT_INT(f->runs[0].ngpus, 0);
	EXPECT_INT(f->runs[0].ngpus_src, MEAS_SRC_UNKNOWN);
	meas_nccl_free(f);

	/* the command line beats the hint; mpirun tags are stripped */
	snprintf(text, sizeof(text), "%s%s%s",
		 "$ mpirun -np 4 ./build/alltoall_perf -b 1K -e 1K -g 2\n", NCCL_HDR,
		 "[1,0]<stdout>:        1024            32     float    none      -1    30.00    0.03    0.03      0    29.00    0.04    0.03      0\n");
	rc = meas_nccl_parse(text, strlen(text), "h.txt", &h, &f, &e);
	EXPECT_INT(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_STR(f->runs[0].op, "alltoall");
	EXPECT_INT(f->runs[0].op_src, MEAS_SRC_FILE);
	EXPECT_INT(f->runs[0].ngpus, 8);
	EXPECT_INT(f->runs[0].ngpus_src, MEAS_SRC_FILE);
	EXPECT_DBL(f->runs[0].rows[0].ip_algbw, 0.04);
	meas_nccl_free(f);

	/* other nccl-tests binaries keep their own name */
	snprintf(text, sizeof(text), "%s%s%s",
		 "# Collective test starting: reduce_perf\n", NCCL_HDR,
		 "        1024           256     float     sum       0    30.00    0.03    0.03      0    29.00    0.04    0.03      0\n");
	rc = meas_nccl_parse(text, strlen(text), "h.txt", NULL, &f, &e);
	EXPECT_INT(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_STR(f->runs[0].op, "reduce");
	EXPECT_INT(f->runs[0].rows[0].root, 0);
	meas_nccl_free(f);

	EXPECT_STR(meas_nccl_op_name("ReduceScatter"), "reducescatter");
	EXPECT_STR(meas_nccl_op_name("broadcast_perf"), "broadcast");
	CU_ASSERT_PTR_NULL(meas_nccl_op_name("reduce"));
}

static void test_nccl_bad(void)
{
	struct meas_nccl_hint h = { "allreduc", 0 };
	struct meas_nccl_file *f;
	struct plumb_err e;

	FAIL_CASE(NCCL, "", PLUMB_EINPUT, 0, 0,
		  "no nccl-tests data rows found (expected lines like '8  2  float  "
		  "sum  -1  38.83  0.00  0.00  0  40.43  0.00  0.00  0' under a "
		  "'# size count type ...' header)");
	FAIL_CASE(NCCL, "# nThread 1 nGpus 8\n# Avg bus bandwidth : 4.8\n", PLUMB_EINPUT, 0, 0,
		  "no nccl-tests data rows found (expected lines like '8  2  float  "
		  "sum  -1  38.83  0.00  0.00  0  40.43  0.00  0.00  0' under a "
		  "'# size count type ...' header)");
	/* a file cut in the middle of a row */
	FAIL_CASE(NCCL,
		  "# nThread 1 nGpus 8\n"
		  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		  "           8             2     float     sum      -1    38.83    0.00    0.00      0    40.43    0.00    0.00      0\n"
		  "      1048576        262144     float",
		  PLUMB_EINPUT, 4, 38,
		  "data row has 3 fields, the column header at line 2 has 13 (truncated row?)");
	FAIL_CASE(NCCL,
		  "           8             2     float     sum      -1    38.83    0.00    0.00      0\n",
		  PLUMB_EINPUT, 1, 85,
		  "data row has 9 fields; expected 13 (size count type redop root time "
		  "algbw busbw #wrong time algbw busbw #wrong) or 12 (older nccl-tests, "
		  "no root column)");
	FAIL_CASE(NCCL,
		  "           8             2     float     sum      -1    38.8x    0.00    0.00      0    40.43    0.00    0.00      0\n",
		  PLUMB_EINPUT, 1, 57, "time '38.8x' is not a number");
	FAIL_CASE(NCCL,
		  "99999999999999999999999   2     float     sum      -1    38.83    0.00    0.00      0    40.43    0.00    0.00      0\n",
		  PLUMB_EINPUT, 1, 1, "size '99999999999999999999999' is out of range");
	FAIL_CASE(NCCL,
		  "           8             2     float     sum      -1    1e999    0.00    0.00      0    40.43    0.00    0.00      0\n",
		  PLUMB_EINPUT, 1, 57, "time '1e999' is out of range");
	FAIL_CASE(NCCL,
		  "           8             2     float     sum      -1    -3.5    0.00    0.00      0    40.43    0.00    0.00      0\n",
		  PLUMB_EINPUT, 1, 57, "time '-3.5' is negative");
	FAIL_CASE(NCCL, "# nThread 1 nGpus 8\n  8  2 fl\0at\n", PLUMB_EINPUT, 2, 10,
		  "binary data (NUL byte at offset 29); expected a text file");
	EXPECT_INT(meas_nccl_parse("x", 1, "h.txt", &h, &f, &e), -PLUMB_EUSAGE);
	CU_ASSERT_PTR_NULL(f);
	EXPECT_STR(e.msg, "unknown collective 'allreduc' (expected allreduce, allgather, "
		   "reducescatter, alltoall, sendrecv or broadcast)");
}

/* ------------------------------------------------ p2pBandwidthLatencyTest */

/* Bit set of the matrices a run has. */
static unsigned present(const struct meas_p2p_run *r)
{
	unsigned m = 0;
	int k;

	for (k = 0; k < MEAS_P2P_NKINDS; k++)
		if (r->m[k].present)
			m |= 1u << k;
	return m;
}

#define B(k) (1u << MEAS_P2P_##k)
#define FULL (B(CONNECTIVITY) | B(UNI_DISABLED) | B(UNI_WRITES) | B(BI_DISABLED) | \
	      B(BI_ENABLED) | B(LAT_DISABLED_GPU) | B(LAT_DISABLED_CPU) | \
	      B(LAT_WRITES_GPU) | B(LAT_WRITES_CPU))

static const char *const NO_MATRIX =
	"no p2pBandwidthLatencyTest matrix found (expected a title such as "
	"'Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)', a 'D\\D 0 1 ...' "
	"header and rows)";

static void test_p2p_samples(void)
{
	static const struct {
		int nruns;
		int n[6];
		unsigned kinds[6];
		int ndev;
	} want[13] = {
		/* 1: stock driver, then tinygrad P2P driver */
		{ 2, { 8, 8 }, { FULL, FULL }, 0 },
		/* 2: A100 HGX with device list */
		{ 1, { 8 }, { FULL }, 8 },
		/* 3: TH2K, partial NVLink */
		{ 1, { 4 }, { FULL }, 0 },
		/* 4: 9 GPUs, tabs after row indices */
		{ 1, { 9 }, { FULL }, 9 },
		{ 1, { 4 }, { FULL }, 4 },
		{ 1, { 2 }, { FULL }, 2 },
		{ 1, { 2 }, { FULL }, 2 },
		{ 1, { 2 }, { FULL }, 2 },
		/* 9: summary table only: no matrix */
		{ 0, { 0 }, { 0 }, 0 },
		/* 10: partial as published */
		{ 1, { 6 }, { B(UNI_WRITES) | B(BI_ENABLED) | B(LAT_WRITES_GPU) }, 0 },
		/* 11: diagonal removed, rounded; the "Full 8x8" summary is the write matrix */
		{ 1, { 8 }, { B(UNI_WRITES) | B(BI_ENABLED) }, 0 },
		{ 1, { 8 }, { B(BI_ENABLED) | B(LAT_WRITES_GPU) }, 0 },
		/* 13: six excerpts of different sizes */
		{ 6, { 6, 8, 3, 2, 8, 4 },
		  { B(UNI_DISABLED) | B(UNI_WRITES) | B(UNI_READS),
		    B(BI_ENABLED) | B(LAT_DISABLED_GPU),
		    B(BI_DISABLED) | B(BI_ENABLED),
		    B(UNI_DISABLED) | B(UNI_WRITES) | B(BI_DISABLED) | B(BI_ENABLED),
		    B(UNI_DISABLED) | B(UNI_WRITES),
		    B(LAT_DISABLED_GPU) | B(LAT_WRITES_GPU) }, 0 },
	};
	const char *start[MAX_SAMPLES];
	size_t len[MAX_SAMPLES], flen;
	char *buf = slurp(DATA "p2p-latency-samples.txt", &flen);
	struct meas_p2p_file *f[13];
	struct plumb_err e;
	const struct meas_p2p_run *r;
	int n, i, j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	n = split_samples(buf, start, len);
	EXPECT_INT(n, 13);
	if (n != 13) {
		free(buf);
		return;
	}
	for (i = 0; i < n; i++) {
		char name[32];
		int rc;
		snprintf(name, sizeof(name), "sample %d", i + 1);
		plumb_err_clear(&e);
		rc = meas_p2p_parse(start[i], len[i], name, &f[i], &e);
		if (want[i].nruns == 0) {
			EXPECT_INT(rc, -PLUMB_EINPUT);
			EXPECT_STR(e.msg, NO_MATRIX);
			EXPECT_INT(e.line, 0);
			CU_ASSERT_PTR_NULL(f[i]);
			continue;
		}
		if (rc != 0)
			printf("\n  %s: %d:%d: %s\n", name, e.line, e.col, e.msg);
		EXPECT_INT(rc, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f[i]);
		EXPECT_INT(f[i]->nruns, want[i].nruns);
		for (j = 0; j < f[i]->nruns && j < want[i].nruns; j++) {
			EXPECT_INT(f[i]->runs[j].n, want[i].n[j]);
			EXPECT_INT(present(&f[i]->runs[j]), want[i].kinds[j]);
		}
		EXPECT_INT(f[i]->runs[0].ndevices, want[i].ndev);
	}

	/* 1a stock driver and 1b P2P driver of the same 8x4090 box */
	r = &f[0]->runs[0];
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_CONNECTIVITY, 0, 1), 0);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_CONNECTIVITY, 3, 3), 1);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_DISABLED, 0, 0), 909.49);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_DISABLED, 0, 1), 18.77);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_DISABLED, 1, 0), 21.39);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_DISABLED_GPU, 0, 1), 20.26);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_DISABLED_CPU, 7, 7), 3.53);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_WRITES_CPU, 7, 7), 3.41);
	EXPECT_NAN(meas_p2p_at(r, MEAS_P2P_UNI_READS, 0, 1));
	EXPECT_NAN(meas_p2p_at(r, MEAS_P2P_UNI_DISABLED, 0, 8));
	EXPECT_INT(r->m[MEAS_P2P_UNI_DISABLED].nmissing, 0);
	EXPECT_INT(r->m[MEAS_P2P_UNI_DISABLED].line, 33);
	EXPECT_INT(r->line, 23);
	r = &f[0]->runs[1];
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_CONNECTIVITY, 0, 1), 1);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 0, 1), 50.10);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 1, 0), 50.15);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_WRITES_GPU, 1, 0), 1.19);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_WRITES_CPU, 7, 6), 3.04);
	/* A100 device list */
	r = &f[1]->runs[0];
	EXPECT_STR(r->devices[0].name, "NVIDIA A100-SXM4-80GB");
	EXPECT_STR(r->devices[7].bus, "c4");
	EXPECT_INT(r->devices[7].index, 7);
	/* TH2K: NVLink pair vs PCIe pair */
	EXPECT_DBL(meas_p2p_at(&f[2]->runs[0], MEAS_P2P_BI_ENABLED, 0, 1), 96.39);
	EXPECT_DBL(meas_p2p_at(&f[2]->runs[0], MEAS_P2P_BI_ENABLED, 0, 3), 18.61);
	/* 9 GPUs, tab-separated connectivity rows */
	r = &f[3]->runs[0];
	EXPECT_STR(r->devices[0].name, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
	EXPECT_STR(r->devices[8].bus, "f1");
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_CONNECTIVITY, 8, 0), 1);
	EXPECT_INT(r->m[MEAS_P2P_CONNECTIVITY].nmissing, 0);
	/* 2x5090 stock driver: P2P=Enabled numbers are the staged ones */
	EXPECT_DBL(meas_p2p_at(&f[5]->runs[0], MEAS_P2P_CONNECTIVITY, 0, 1), 0);
	/* 10: partial */
	r = &f[9]->runs[0];
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_WRITES, 0, 0), 1488.10);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 3, 4), 99.09);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_WRITES_GPU, 5, 5), 2.07);
	/* 11: "—" on the diagonal */
	r = &f[10]->runs[0];
	EXPECT_INT(r->m[MEAS_P2P_BI_ENABLED].nmissing, 8);
	EXPECT_NAN(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 3, 3));
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 0, 1), 102);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 7, 6), 103);
	/* 12: "P2P=Enabled Write Latency (microseconds)" */
	EXPECT_DBL(meas_p2p_at(&f[11]->runs[0], MEAS_P2P_LAT_WRITES_GPU, 7, 7), 1.24);
	/* 13: excerpts cut short */
	r = &f[12]->runs[0];
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_READS, 3, 2), 10.45);
	r = &f[12]->runs[1];
	EXPECT_INT(r->m[MEAS_P2P_LAT_DISABLED_GPU].nmissing, 8);
	EXPECT_NAN(meas_p2p_at(r, MEAS_P2P_LAT_DISABLED_GPU, 7, 0));
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_DISABLED_GPU, 6, 7), 16.53);
	r = &f[12]->runs[3];
	EXPECT_INT(r->m[MEAS_P2P_BI_ENABLED].nmissing, 2);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_BI_ENABLED, 0, 1), 12.88);
	r = &f[12]->runs[4];
	EXPECT_INT(r->m[MEAS_P2P_UNI_WRITES].nmissing, 57);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_WRITES, 0, 0), 2494.76);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_WRITES, 0, 6), 375.94);
	EXPECT_NAN(meas_p2p_at(r, MEAS_P2P_UNI_WRITES, 0, 7)); /* "375.6[..." cut */
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_DISABLED, 7, 7), 2503.38);
	EXPECT_DBL(meas_p2p_at(&f[12]->runs[5], MEAS_P2P_LAT_WRITES_GPU, 3, 2), 2.23);

	for (i = 0; i < n; i++)
		meas_p2p_free(f[i]);
	free(buf);
}

static void test_p2p_variants(void)
{
	static const char text[] =
		"\x1b[0m[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\r\n"
		"Device: 0, NVIDIA GeForce RTX 3090, pciBusID: 1, pciDeviceID: 0, pciDomainID:0\r\n"
		"Device: 1, NVIDIA GeForce RTX 3090, pciBusID: 2, pciDeviceID: 0, pciDomainID:0\r\n"
		"Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)\r\n"
		"   D\\D     0      1 \r\n"
		"     0\t 800.50  N/A \r\n"
		"     1\t  11.25 \x1b[1m801.00\x1b[0m \r\n"
		"P2P=Enabled Latency (P2P Reads) Matrix (us)\r\n"
		"   GPU     0      1\r\n"
		"     0   1.50   1.20\r\n"
		"     1   1.21   1.49\r\n"
		"\r\n"
		"   CPU     0      1\r\n"
		"     0   2.50   2.20\r\n"
		"     1   2.21   2.49\r\n";
	struct meas_p2p_file *f;
	struct plumb_err e;
	const struct meas_p2p_run *r;
	int rc = meas_p2p_parse(text, sizeof(text) - 1, "v.txt", &f, &e);

	if (rc)
		printf("\n  %d:%d: %s\n", e.line, e.col, e.msg);
	EXPECT_INT(rc, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_INT(f->nruns, 1);
	r = &f->runs[0];
	EXPECT_INT(r->n, 2);
	EXPECT_INT(r->ndevices, 2);
	EXPECT_INT(r->line, 1);
	EXPECT_INT(present(r), B(UNI_READS) | B(LAT_READS_GPU) | B(LAT_READS_CPU));
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_READS, 1, 0), 11.25);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_UNI_READS, 1, 1), 801.00);
	EXPECT_NAN(meas_p2p_at(r, MEAS_P2P_UNI_READS, 0, 1));
	EXPECT_INT(r->m[MEAS_P2P_UNI_READS].nmissing, 1);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_READS_GPU, 0, 1), 1.20);
	EXPECT_DBL(meas_p2p_at(r, MEAS_P2P_LAT_READS_CPU, 1, 0), 2.21);
	EXPECT_STR(meas_p2p_kind_name(MEAS_P2P_LAT_READS_CPU), "lat_reads_cpu");
	meas_p2p_free(f);
}

#define UNI "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D     0      1\n"

static void test_p2p_bad(void)
{
	FAIL_CASE(P2P, "", PLUMB_EINPUT, 0, 0, NO_MATRIX);
	FAIL_CASE(P2P, "Device=0 CANNOT Access Peer Device=1\n", PLUMB_EINPUT, 0, 0, NO_MATRIX);
	/* cut in the middle of a row */
	FAIL_CASE(P2P, UNI "     0 909.49  18.77\n     1  19.95", PLUMB_EINPUT, 4, 14,
		  "row 1 of 'Unidirectional P2P=Disabled Bandwidth Matrix' has 1 values, "
		  "the header has 2 columns (truncated row?)");
	FAIL_CASE(P2P, UNI "     0 909.49  18.77  20.00\n", PLUMB_EINPUT, 3, 23,
		  "row 0 of 'Unidirectional P2P=Disabled Bandwidth Matrix' has 3 values, "
		  "the header has 2 columns");
	FAIL_CASE(P2P, UNI "     0 909.49  18.7.7\n", PLUMB_EINPUT, 3, 16,
		  "value '18.7.7' in 'Unidirectional P2P=Disabled Bandwidth Matrix' is "
		  "not a number");
	FAIL_CASE(P2P, UNI "     2 909.49  18.77\n", PLUMB_EINPUT, 3, 6,
		  "row index 2 out of range in 'Unidirectional P2P=Disabled Bandwidth "
		  "Matrix' (it has 2 columns)");
	FAIL_CASE(P2P, UNI "     0 909.49  18.77\n     0 909.49  18.77\n", PLUMB_EINPUT, 4, 6,
		  "row 0 of 'Unidirectional P2P=Disabled Bandwidth Matrix' appears twice");
	FAIL_CASE(P2P, UNI "     0 909.49  -18.77\n", PLUMB_EINPUT, 3, 16,
		  "value '-18.77' in 'Unidirectional P2P=Disabled Bandwidth Matrix' is "
		  "negative");
	FAIL_CASE(P2P, UNI "     0 909.49  1e999\n", PLUMB_EINPUT, 3, 16,
		  "value '1e999' is out of range");
	FAIL_CASE(P2P, "P2P Connectivity Matrix\n     D\\D     0     1\n     0       1     2\n",
		  PLUMB_EINPUT, 3, 20, "connectivity value '2' is not 0 or 1");
	FAIL_CASE(P2P, UNI "     0 909.49\0 18.77\n", PLUMB_EINPUT, 3, 14,
		  "binary data (NUL byte at offset 85); expected a text file");
}

/* The release the run linked, from nccl-tests' version header (NCCL 2.29.7
 * of the 8x RTX 5090 sample); a second run of the file without one has 0. */
static void test_nccl_version(void)
{
	static const char text[] =
		"# nccl-tests version 2.18.2 nccl-headers=22907 nccl-library=22907\n"
		"# nThread 1 nGpus 8 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"           8             2     float     sum      -1    25.47    0.00    0.00       0    24.82    0.00    0.00       0\n"
		"# nThread 1 nGpus 8 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"           8             2     float     sum      -1    25.47    0.00    0.00       0    24.82    0.00    0.00       0\n";
	struct meas_nccl_file *f = NULL;
	struct plumb_err e;
	EXPECT_INT(meas_nccl_parse(text, sizeof(text) - 1, "v.txt", NULL, &f, &e), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	EXPECT_INT(f->nruns, 2);
	if (f->nruns == 2) {
		EXPECT_INT(f->runs[0].nccl_version, 22907);
		EXPECT_INT(f->runs[1].nccl_version, 0);
	}
	meas_nccl_free(f);
}

void suite_meas(void)
{
	CU_pSuite s = CU_add_suite("meas", NULL, NULL);

	CU_add_test(s, "nccl-tests samples", test_nccl_samples);
	CU_add_test(s, "nccl-tests variants", test_nccl_variants);
	CU_add_test(s, "nccl-tests hints", test_nccl_hints);
	CU_add_test(s, "nccl-tests bad input", test_nccl_bad);
	CU_add_test(s, "nccl-tests: the NCCL release of a run", test_nccl_version);
	CU_add_test(s, "p2p samples", test_p2p_samples);
	CU_add_test(s, "p2p variants", test_p2p_variants);
	CU_add_test(s, "p2p bad input", test_p2p_bad);
}
