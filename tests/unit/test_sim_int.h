/*
 * test_sim_int.h - what test_sim_flow.c and test_sim_engine.c share:
 * assertions that print the actual and the expected value (test_bench.c,
 * test_sim_queue.c and test_sim_solvers.c use them too), and an engine
 * with a flow network (defined in test_sim_flow.c).
 */
#ifndef PLUMB_TEST_SIM_INT_H
#define PLUMB_TEST_SIM_INT_H

#include <CUnit/CUnit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "flow.h"

/* Assertions that print the actual and the expected value on failure. */
#define EXPECT_INT(act, exp) do { \
	long long a_ = (long long)(act), e_ = (long long)(exp); \
	char m_[256]; \
	snprintf(m_, sizeof(m_), "%s = %lld, expected %lld", #act, a_, e_); \
	CU_assertImplementation(a_ == e_, __LINE__, m_, __FILE__, "", \
				CU_FALSE); \
} while (0)

/* |act - exp| <= rel * |exp| (+1e-300 so exp == 0 needs act == 0) */
#define EXPECT_NEAR(act, exp, rel) do { \
	double a_ = (act), e_ = (exp); \
	char m_[256]; \
	snprintf(m_, sizeof(m_), "%s = %.17g, expected %.17g (rel. tol. %g)", \
		 #act, a_, e_, (double)(rel)); \
	CU_assertImplementation(fabs(a_ - e_) <= (rel) * fabs(e_) + 1e-300 \
				? CU_TRUE : CU_FALSE, __LINE__, m_, __FILE__, \
				"", CU_FALSE); \
} while (0)

#define EXPECT_TRUE(cond, ...) do { \
	char m_[512]; \
	snprintf(m_, sizeof(m_), __VA_ARGS__); \
	CU_assertImplementation((cond) ? CU_TRUE : CU_FALSE, __LINE__, m_, \
				__FILE__, "", CU_FALSE); \
} while (0)

#define TOL 1e-12

struct fix {
	struct sim_engine *eng;
	struct sim_net *net;
	struct plumb_err err;
};

/* f = a new engine of the seed with an empty flow network (asserted). */
void fix_init(struct fix *f, uint64_t seed);
void fix_release(struct fix *f);
/* A PCIe link of cap bytes/s and lat s latency in f (asserted); its id. */
int add_link(struct fix *f, double cap, double lat);

#endif
