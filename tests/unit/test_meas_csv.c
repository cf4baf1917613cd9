/*
 * test_meas_csv.c - the measured-data parsers (io/meas.h), continued: the
 * three CSV kinds (quoted fields, BOM, broken input with its exact code,
 * line, column and message), the size limit and files, every example of
 * docs/data-formats.md, and mutated input that never crashes.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "meas.h"
#include "test_meas_int.h"

void suite_meas_csv(void);

/* ---------------------------------------------------------------- CSV */

static struct meas_csv *csv_ok(const char *text, size_t len)
{
	struct meas_csv *t;
	struct plumb_err e;
	int rc = meas_csv_parse(text, len, "ok.csv", &t, &e);

	if (rc)
		printf("\n  ok.csv:%d:%d: %s\n", e.line, e.col, e.msg);
	EXPECT_INT(rc, 0);
	return t;
}

/* The checks of one good CSV beyond its kind and row count. */
static void good_requests(const struct meas_csv *t)
{
	CU_ASSERT_DOUBLE_EQUAL(t->rows[2].arrival_s, 2.5, 1e-12);
	EXPECT_INT(t->rows[2].input_len, 512);
	EXPECT_INT(t->rows[2].output_len, 64);
}

static void good_collectives(const struct meas_csv *t)
{
	EXPECT_INT(t->rows[0].line, 4);
	EXPECT_STR(t->rows[0].op, "allreduce");
	EXPECT_INT(t->rows[0].gpus, 8);
	EXPECT_INT(t->rows[0].bytes, 1024);
	EXPECT_DBL(t->rows[0].time_us, 38.83);
	EXPECT_INT(t->rows[1].line, 6);
	EXPECT_STR(t->rows[1].op, "allreduce");
	EXPECT_INT(t->rows[1].bytes, 134217728);
	EXPECT_DBL(t->rows[1].time_us, 16253);
	EXPECT_STR(t->rows[2].op, "sendrecv");
	EXPECT_INT(t->rows[3].gpus, 4);
	EXPECT_NAN(t->rows[0].step_ms);
	EXPECT_INT(t->rows[0].context, -1);
}

static void good_decode(const struct meas_csv *t)
{
	EXPECT_STR(t->rows[1].layout, "tp4pp2");
	EXPECT_INT(t->rows[1].batch, 64);
	EXPECT_INT(t->rows[1].context, 4096);
	EXPECT_DBL(t->rows[1].step_ms, 120.25);
	EXPECT_STR(t->rows[2].layout, "tp8ep");
}

static void good_serving(const struct meas_csv *t)
{
	EXPECT_INT(t->rows[1].concurrency, 64);
	EXPECT_DBL(t->rows[1].tok_s, 485);
	EXPECT_NAN(t->rows[1].tpot_ms);
	EXPECT_NAN(t->rows[1].ttft_ms);
	EXPECT_DBL(t->rows[0].tpot_ms, 89.3);
	EXPECT_INT(t->rows[2].input_len, 2048);
	EXPECT_INT(t->rows[2].output_len, 1024);
	EXPECT_INT(t->rows[2].prompts, 0);
}

static void good_tpot_only(const struct meas_csv *t)
{
	EXPECT_NAN(t->rows[0].tok_s);
	EXPECT_DBL(t->rows[0].tpot_ms, 9.15);
	EXPECT_INT(t->rows[0].prompts, 10);
	EXPECT_INT(t->rows[1].prompts, 80);
}

static void good_ttft_only(const struct meas_csv *t)
{
	EXPECT_NAN(t->rows[0].tok_s);
	EXPECT_NAN(t->rows[0].tpot_ms);
	EXPECT_DBL(t->rows[0].ttft_ms, 140.76);
}

/* One CSV that parses: its text (sizeof, so a NUL inside would count), the
 * kind and row count it must give, and the checks of its rows. */
struct csv_good {
	const char *name, *text;
	size_t len;
	enum meas_csv_kind kind;
	const char *kind_name;
	int nrows;
	void (*check)(const struct meas_csv *t);
};

#define GOOD(name, text, kind, kind_name, nrows, check) \
	{ name, text, sizeof(text) - 1, kind, kind_name, nrows, check }

static void test_csv_good(void)
{
	static const struct csv_good cases[] = {
		GOOD("requests",
		     "arrival_s,input_len,output_len\n"
		     "0,1024,128\n"
		     "0,1024,128\n"       /* two requests alike: a trace may */
		     "2.5,512,64\n",
		     MEAS_CSV_REQUESTS, "requests", 3, good_requests),
		GOOD("collectives: BOM, CRLF, comments, quotes, case and blanks",
		     "\xEF\xBB\xBF# measured on the 8x RTX PRO 6000 box\r\n"
		     "\r\n"
		     "Bytes,OP,time_us,\"gpus\"\r\n"
		     "1024,allreduce,38.83,8\r\n"
		     "  # a comment between rows\r\n"
		     "\"134217728\", AllReduce ,16253,8\r\n"
		     "1024,sendrecv,12.5,2\r\n"
		     "1024,allreduce,20.1,4\r\n",
		     MEAS_CSV_COLLECTIVES, "collectives", 4, good_collectives),
		GOOD("decode",
		     "layout,batch,context,step_ms\n"
		     "tp8,1,0,90.5\n"
		     "tp4pp2,64,4096,120.25\n"
		     "tp8ep,1,0,88\n",
		     MEAS_CSV_DECODE, "decode", 3, good_decode),
		GOOD("serving",
		     "layout,concurrency,context,tok_s,tpot_ms,input_len,output_len\n"
		     "tp8,1,2048,11.2,89.3,1024,1024\n"
		     "tp8,64,2048,485,,1024,1024\n"
		     "tp8,64,2048,470,131.5,2048,1024\n",
		     MEAS_CSV_SERVING, "serving", 3, good_serving),
		/* A row may give only its TPOT; prompts is the benchmark's
		 * request count. */
		GOOD("serving: TPOT only, prompts",
		     "layout,concurrency,context,tok_s,tpot_ms,prompts\n"
		     "tp8,1,0,,9.15,10\ntp8,16,0,795.3,,80\n",
		     MEAS_CSV_SERVING, "serving", 2, good_tpot_only),
		/* Or only its TTFT (a prefill measurement). */
		GOOD("serving: TTFT only",
		     "layout,concurrency,context,tok_s,ttft_ms\ntp8,1,0,,140.76\n",
		     MEAS_CSV_SERVING, "serving", 1, good_ttft_only),
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct csv_good *g = &cases[i];
		unsigned int before = CU_get_number_of_failures();
		struct meas_csv *t = csv_ok(g->text, g->len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		EXPECT_INT(t->kind, g->kind);
		EXPECT_STR(meas_csv_kind_name(t->kind), g->kind_name);
		EXPECT_INT(t->nrows, g->nrows);
		if (t->nrows == g->nrows)
			g->check(t);
		meas_csv_free(t);
		if (CU_get_number_of_failures() != before)
			printf("\n  (good CSV '%s')\n", g->name);
	}
}

#define COLL "op,gpus,bytes,time_us\n"

/* One broken CSV: its text (sizeof: the NUL bytes of the last count) and
 * the line, column and message of its input error. */
struct csv_bad {
	const char *text;
	size_t len;
	int line, col;
	const char *msg;
};

#define BAD(text, line, col, msg) { text, sizeof(text) - 1, line, col, msg }

static void test_csv_bad(void)
{
	static const struct csv_bad cases[] = {
		BAD("", 1, 1,
		    "empty file: expected a header such as op,gpus,bytes,time_us and data rows"),
		BAD("# only a note\n\n", 2, 1,
		    "missing header: the file has only comments and blank lines"),
		BAD("allreduce,8,1024,38.8\n", 1, 1,
		    "missing header: the first line must name the columns (e.g. "
		    "op,gpus,bytes,time_us or layout,batch,context,step_ms)"),
		BAD("op,gpus,bytes\nallreduce,8,1024\n", 1, 1,
		    "missing required column 'time_us' (a collectives CSV needs op, "
		    "gpus, bytes, time_us)"),
		BAD("op,gpus,bytes,time_ms\n", 1, 15,
		    "unknown column 'time_ms' for a collectives CSV (allowed: op, gpus, "
		    "bytes, time_us)"),
		BAD("layout,concurrency,context,tok_s,step_ms\n", 1, 34,
		    "unknown column 'step_ms' for a serving CSV (allowed: layout, "
		    "concurrency, context, tok_s, tpot_ms, ttft_ms, input_len, output_len, prompts, peak_tok_s, cached_prompts, kv_transfer_ms)"),
		BAD("layout,concurrency,context,tok_s,tpot_ms\ntp8,1,0,,\n", 2, 1,
		    "a serving row needs tok_s, tpot_ms, ttft_ms, peak_tok_s or kv_transfer_ms (all are empty)"),
		BAD("op,gpus,bytes,time_us,Bytes\n", 1, 23,
		    "column 'Bytes' appears twice (first at column 9)"),
		BAD("op,gpus,bytes,time_us,\n", 1, 23,
		    "empty column name in the header (field 5)"),
		BAD("layout,batch,context,tok_s\n", 1, 1,
		    "header mixes columns of different kinds: expected op,gpus,bytes,"
		    "time_us (collectives), layout,batch,context,step_ms (decode steps), "
		    "layout,concurrency,context,tok_s (serving) or arrival_s,input_len,"
		    "output_len (requests)"),
		BAD("# header only\n" COLL, 2, 1,
		    "no data rows after the header"),
		/* cut in the middle of a row */
		BAD(COLL "allreduce,8,1024,38.8\nallreduce,8,20", 3, 15,
		    "wrong number of fields: 3, the header at line 1 has 4"),
		BAD(COLL "allreduce,8,1024,38.8,x\n", 2, 23,
		    "wrong number of fields: 5, the header at line 1 has 4"),
		BAD(COLL "allreduce,8,1k,38.8\n", 2, 13,
		    "bytes '1k' is not a number"),
		BAD(COLL "allreduce,8.5,1024,38.8\n", 2, 11,
		    "gpus '8.5' is not an integer"),
		BAD(COLL "allreduce,8,1024,NaN\n", 2, 18,
		    "time_us 'NaN' is not a finite number"),
		BAD(COLL "allreduce,8,1024,-inf\n", 2, 18,
		    "time_us '-inf' is not a finite number"),
		BAD(COLL "allreduce,8,1024,0\n", 2, 18,
		    "time_us must be positive, got '0'"),
		BAD(COLL "allreduce,8,-1024,3\n", 2, 13,
		    "bytes must be at least 1, got '-1024'"),
		BAD(COLL "allreduce,1,1024,3\n", 2, 11,
		    "gpus must be at least 2, got '1'"),
		BAD(COLL "allreduce,8,99999999999999999999999,3\n", 2, 13,
		    "bytes '99999999999999999999999' is out of range"),
		BAD(COLL "allreduce,8,1024,1e999\n", 2, 18,
		    "time_us '1e999' is out of range"),
		BAD(COLL "allreduce,8,,3\n", 2, 13,
		    "empty value for 'bytes'"),
		BAD(COLL "sendrecv,4,1024,3\n", 2, 10,
		    "sendrecv runs between 2 GPUs, got gpus 4"),
		BAD(COLL "reduce,8,1024,3\n", 2, 1,
		    "unknown op 'reduce' (expected allreduce, allgather, reducescatter, "
		    "alltoall, sendrecv or broadcast)"),
		BAD(COLL "all_reduce,8,1024,3\n", 2, 1,
		    "unknown op 'all_reduce' (did you mean 'allreduce'?)"),
		BAD(COLL "allreduce,8,1024,38.8\nbroadcast,8,1024,9\n"
		    "  AllReduce , 8 ,1024,40\n", 4, 1,
		    "duplicate point (first at line 2)"),
		BAD("layout,batch,context,step_ms\nTP8,1,0,90\n", 2, 1,
		    "layout 'TP8' must be 1-31 lower-case letters and digits, like tp8, "
		    "tp4pp2, ep8"),
		BAD("layout,batch,context,step_ms\ntp8,1,-5,90\n", 2, 7,
		    "context must be at least 0, got '-5'"),
		BAD(COLL "\"allreduce,8,1024,3\n", 2, 1,
		    "unterminated quoted field"),
		BAD(COLL "\"allreduce\"x,8,1024,3\n", 2, 12,
		    "unexpected text after a closing quote"),
		BAD(COLL "allreduce,8,10\0\0,3\n", 2, 15,
		    "binary data (NUL byte at offset 36); expected a text file"),
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int before = CU_get_number_of_failures();

		expect_fail(CSV, cases[i].text, cases[i].len, PLUMB_EINPUT, cases[i].line,
			    cases[i].col, cases[i].msg);
		if (CU_get_number_of_failures() != before)
			printf("\n  (bad CSV case %zu: %s)\n", i, cases[i].msg);
	}
}

/* Input over the size limit is refused before it is read line by line;
 * a missing file is an I/O error. */
static void test_limits(void)
{
	size_t n = MEAS_MAX_INPUT + 1;
	char *big = malloc(n);
	struct meas_csv *t;
	struct meas_nccl_file *f;
	struct meas_p2p_file *p;
	struct plumb_err e;

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, ' ', n);
	EXPECT_INT(meas_csv_parse(big, n, "big.csv", &t, &e), -PLUMB_EINPUT);
	EXPECT_STR(e.msg, "input is larger than 16 MiB; give one tool's output, not "
		   "a whole log archive");
	EXPECT_INT(meas_nccl_parse(big, n, "big.txt", NULL, &f, &e), -PLUMB_EINPUT);
	EXPECT_INT(meas_p2p_parse(big, n, "big.txt", &p, &e), -PLUMB_EINPUT);
	EXPECT_STR(e.file, "big.txt");
	free(big);

	EXPECT_INT(meas_csv_parse_file(DATA "no-such-file.csv", &t, &e), -PLUMB_EIO);
	CU_ASSERT_PTR_NULL(t);
	EXPECT_STR(e.msg, "cannot read: No such file or directory");
	EXPECT_INT(meas_nccl_parse_file(DATA "nccl-tests-samples.txt", NULL, &f, &e), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	/* the whole file: the runs of all six samples in order */
	EXPECT_INT(f->nruns, 9);
	meas_nccl_free(f);
	EXPECT_INT(meas_p2p_parse_file(DATA "p2p-latency-samples.txt", &p, &e), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	EXPECT_INT(p->nruns, 18);
	meas_p2p_free(p);
}

/* The examples in docs/data-formats.md parse: the first ```text block as
 * nccl-tests output, the second as p2pBandwidthLatencyTest output, every
 * ```csv block as a CSV of the kind its header says. */
static void test_docs_examples(void)
{
	static const enum meas_csv_kind csv_kinds[] = {
		MEAS_CSV_COLLECTIVES, MEAS_CSV_DECODE, MEAS_CSV_SERVING, MEAS_CSV_REQUESTS
	};
	size_t len;
	char *doc = slurp("docs/data-formats.md", &len);
	const char *p;
	int ntext = 0, ncsv = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	for (p = doc; (p = strstr(p, "\n```")) != NULL; ) {
		const char *body, *end;
		struct plumb_err e;
		int csv, rc;
		p += 4;
		csv = strncmp(p, "csv\n", 4) == 0;
		if (!csv && strncmp(p, "text\n", 5) != 0)
			continue;
		body = strchr(p, '\n') + 1;
		end = strstr(body, "\n```");
		CU_ASSERT_PTR_NOT_NULL_FATAL(end);
		plumb_err_clear(&e);
		if (csv) {
			struct meas_csv *t;
			rc = meas_csv_parse(body, (size_t)(end + 1 - body), "doc", &t, &e);
			EXPECT_INT(rc, 0);
			if (rc == 0 && ncsv < 4)
				EXPECT_INT(t->kind, csv_kinds[ncsv]);
			meas_csv_free(t);
			ncsv++;
		} else if (ntext == 0) {
			struct meas_nccl_file *f;
			rc = meas_nccl_parse(body, (size_t)(end + 1 - body), "doc", NULL, &f, &e);
			EXPECT_INT(rc, 0);
			if (rc == 0) {
				EXPECT_INT(f->runs[0].nrows, 2);
				/* one Rank line shown, nGpus 8 */
				EXPECT_INT(f->runs[0].ngpus, 8);
			}
			meas_nccl_free(f);
			ntext++;
		} else {
			struct meas_p2p_file *f;
			rc = meas_p2p_parse(body, (size_t)(end + 1 - body), "doc", &f, &e);
			EXPECT_INT(rc, 0);
			if (rc == 0)
				EXPECT_DBL(meas_p2p_at(&f->runs[0], MEAS_P2P_LAT_DISABLED_CPU, 1, 0), 9.79);
			meas_p2p_free(f);
			ntext++;
		}
		if (rc)
			printf("\n  docs example: %d:%d: %s\n", e.line, e.col, e.msg);
		p = end + 4;
	}
	EXPECT_INT(ntext, 2);
	EXPECT_INT(ncsv, 4);
	free(doc);
}

/* Deterministic mutations of the real samples (cuts, byte flips, lines
 * swapped for digits) never crash a parser and never give anything but
 * success or an input error with a message. */
static void fuzz_one(const char *text, size_t len)
{
	struct plumb_err e;
	struct meas_nccl_file *f;
	struct meas_p2p_file *p;
	struct meas_csv *t;
	int rc;

	plumb_err_clear(&e);
	rc = meas_nccl_parse(text, len, "fuzz", NULL, &f, &e);
	CU_ASSERT(rc == 0 || (rc == -PLUMB_EINPUT && e.msg[0]));
	meas_nccl_free(f);
	plumb_err_clear(&e);
	rc = meas_p2p_parse(text, len, "fuzz", &p, &e);
	CU_ASSERT(rc == 0 || (rc == -PLUMB_EINPUT && e.msg[0]));
	meas_p2p_free(p);
	plumb_err_clear(&e);
	rc = meas_csv_parse(text, len, "fuzz", &t, &e);
	CU_ASSERT(rc == 0 || (rc == -PLUMB_EINPUT && e.msg[0]));
	meas_csv_free(t);
}

static void test_fuzz(void)
{
	static const char *const files[] = {
		DATA "nccl-tests-samples.txt", DATA "p2p-latency-samples.txt"
	};
	static const char alphabet[] = "0123456789.-, \t\n#[]\"eE\x1b\r";
	unsigned long long x = 0x9e3779b97f4a7c15ULL;
	size_t k, i, len;
	int round;

	for (k = 0; k < 2; k++) {
		char *buf = slurp(files[k], &len), *m;
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		m = malloc(len + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		for (i = 0; i < len; i += len / 37 + 1)
			fuzz_one(buf, i);             /* cut anywhere */
		for (round = 0; round < 60; round++) {
			int flips;
			memcpy(m, buf, len + 1);
			for (flips = 0; flips < 40; flips++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				m[(x >> 8) % len] = alphabet[(x >> 40) % (sizeof(alphabet) - 1)];
			}
			fuzz_one(m, len);
		}
		free(m);
		free(buf);
	}
}
void suite_meas_csv(void)
{
	CU_pSuite s = CU_add_suite("meas_csv", NULL, NULL);

	CU_add_test(s, "csv good", test_csv_good);
	CU_add_test(s, "csv bad input", test_csv_bad);
	CU_add_test(s, "limits and files", test_limits);
	CU_add_test(s, "docs/data-formats.md examples", test_docs_examples);
	CU_add_test(s, "mutated input never crashes", test_fuzz);
}
