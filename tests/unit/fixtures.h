/*
 * fixtures.h - what several unit-test files share: scenarios, collectives,
 * serving step times by formula and helpers for imported trees.
 */
#ifndef PLUMB_TEST_FIXTURES_H
#define PLUMB_TEST_FIXTURES_H

#include "coll.h"
#include "import.h"
#include "scn.h"
#include "serve.h"

/* CU_ASSERT_EQUAL on two integers that prints both on failure (the file
 * includes <stdio.h> and CUnit). */
#define EXPECT_INT(actual, expected) do { \
	long long a_ = (long long)(actual), e_ = (long long)(expected); \
	if (a_ != e_) \
		printf("\n  %s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, \
		       #actual, a_, e_); \
	CU_ASSERT_EQUAL(a_, e_); \
} while (0)

/* CU_ASSERT_EQUAL on two unsigned 64-bit integers that prints both on
 * failure (the file includes <stdio.h> and CUnit). */
#define EXPECT_U64(actual, expected) do { \
	unsigned long long a_ = (actual), e_ = (expected); \
	if (a_ != e_) \
		printf("\n  %s:%d: %s = %llu, expected %llu\n", __FILE__, __LINE__, \
		       #actual, a_, e_); \
	CU_ASSERT_EQUAL(a_, e_); \
} while (0)

/* CU_ASSERT_STRING_EQUAL that prints both strings on failure (the file
 * includes <stdio.h>, <string.h> and CUnit). */
#define EXPECT_STR(actual, expected) do { \
	const char *a_ = (actual), *e_ = (expected); \
	if (strcmp(a_, e_) != 0) \
		printf("\n  %s:%d: %s = \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
		       #actual, a_, e_); \
	CU_ASSERT_STRING_EQUAL(a_, e_); \
} while (0)

/* CU_ASSERT that actual is within rel (relative) of expected, printing both
 * on failure (the file includes <math.h>, <stdio.h> and CUnit). */
#define EXPECT_NEAR(actual, expected, rel) do { \
	double a_ = (actual), e_ = (expected); \
	if (!(fabs(a_ - e_) <= (rel) * fabs(e_))) \
		printf("\n  %s:%d: %s = %.9g, expected %.9g (rel %g)\n", __FILE__, __LINE__, \
		       #actual, a_, e_, (double)(rel)); \
	CU_ASSERT(fabs(a_ - e_) <= (rel) * fabs(e_)); \
} while (0)

/* CU_ASSERT that the message of err contains text, printing both on
 * failure (the file includes <stdio.h>, <string.h> and CUnit). */
#define EXPECT_MSG(err, text) do { \
	if (!strstr((err)->msg, (text))) \
		printf("\n  %s:%d: message '%s', expected it to contain '%s'\n", \
		       __FILE__, __LINE__, (err)->msg, (text)); \
	CU_ASSERT_PTR_NOT_NULL(strstr((err)->msg, (text))); \
} while (0)

/* Load inline scenario text as "inline.yaml"; on failure print the error,
 * record a failed assertion and return NULL. */
struct scenario *fix_load(const char *text);

/* The seed box's shape: eight RTX PRO 6000, one per root complex, two AMD
 * sockets joined by xGMI of xsock GB/s; extra is appended (more top-level
 * keys, or ""). */
struct scenario *fix_seed_box(const char *xsock, const char *extra);

/* 0, 1, ..., 63: the GPUs of a collective over the first n in order
 * (coll_spec.gpus). */
extern const int fix_ranks[64];

/* *c = a collective op over the first n GPUs in order (fix_ranks) of bytes
 * each, with algorithm algo and protocol proto (enum coll_algo, coll_proto);
 * every other field 0. */
void fix_coll_spec(struct coll_spec *c, enum coll_op op, int n, double bytes, int algo,
		   int proto);

/* Serving step times by formula, so every figure can be checked by hand
 * (a serve_step_fn): decode 10 ms + 0.1 ms a sequence, prefill 50 ms a
 * request; a mixed step is the prefill's with its decode sequences' 0.1 ms
 * each. With ctx not NULL, *(long *)ctx keeps the largest prefill chunk
 * seen (tokens of a prefill or mixed step). */
int fix_serve_steps(void *ctx, const struct serve_shape *sh, double *s,
		    struct plumb_err *err);
/* *p = serve_params_init's defaults with concurrency clients and every
 * request exactly output_len tokens (spread 0), so figures can be checked
 * by hand with fix_serve_steps. */
void fix_serve_params(struct serve_params *p, int concurrency, long output_len);

/* An importer's parser (imp_lspci_parse, imp_topom_parse, ...). */
typedef int (*fix_imp_parse_fn)(const char *text, size_t len, const struct imp_opts *o,
				struct imp_scn *s, struct plumb_err *err);
/* A sample file (imp_read_input; caller frees), *len its size; NULL with a
 * failed assertion when it cannot be read. */
char *fix_imp_read(const char *path, size_t *len);
/* Every prefix of text[0, len) of the lengths 0, step, 2 step, ... up to
 * len, each parsed from an exact-size copy (reading past the end is caught
 * by ASan), gives success or an input error. */
void fix_imp_prefixes(fix_imp_parse_fn parse, const char *text, size_t len, size_t step);
/* 50 buffers of 4096 pseudo-random bytes (seeded): each byte one of the
 * first nalpha characters of alphabet (a list of tokens), 1 in 16 a raw
 * byte 1-255; each parses to success or an input error. */
void fix_imp_junk(fix_imp_parse_fn parse, const char *alphabet, size_t nalpha,
		  unsigned long seed);
/* The YAML text imp_write_yaml writes for s (caller frees). */
char *fix_imp_yaml(const struct imp_scn *s);
/* Nodes of kind k in s. */
int fix_imp_count(const struct imp_scn *s, enum imp_kind k);
/* Node index of GPU number g (GPUs numbered by their `order`), or -1. */
int fix_imp_gpu_node(const struct imp_scn *s, int g);
/* The root (root complex) above node i. */
int fix_imp_root(const struct imp_scn *s, int i);

#endif
