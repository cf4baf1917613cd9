/*
 * test_meas_int.h - what test_meas.c and test_meas_csv.c share: assertions
 * that print both values, and the helpers defined in test_meas.c.
 */
#ifndef PLUMB_TEST_MEAS_INT_H
#define PLUMB_TEST_MEAS_INT_H

#include <stddef.h>

#include "fixtures.h"      /* EXPECT_INT, EXPECT_STR */

#define DATA "tests/data/meas/"

/* Parsed decimals must equal the same literal exactly (both are strtod of
 * the same text). */
#define EXPECT_DBL(actual, expected) do { \
	double a_ = (actual), e_ = (expected); \
	if (!(a_ == e_)) \
		printf("\n  %s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, \
		       #actual, a_, e_); \
	CU_ASSERT(a_ == e_); \
} while (0)

#define EXPECT_NAN(actual) do { \
	double a_ = (actual); \
	if (!isnan(a_)) \
		printf("\n  %s:%d: %s = %.17g, expected NaN\n", __FILE__, __LINE__, \
		       #actual, a_); \
	CU_ASSERT(isnan(a_)); \
} while (0)

/* Whole file into memory (NUL-terminated; caller frees), *len its size;
 * NULL with a message when it cannot be read. */
char *slurp(const char *path, size_t *len);

/* One bad-input case: the parser, the text, and the exact error. */
enum which { NCCL, P2P, CSV };

void expect_fail(enum which w, const char *text, size_t len, int code,
		 int line, int col, const char *msg);

#define FAIL_CASE(w, text, code, line, col, msg) \
	expect_fail(w, text, sizeof(text) - 1, code, line, col, msg)

#endif
