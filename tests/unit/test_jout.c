/*
 * test_jout.c - the JSON writer (io/jout.c): the layout rule, jansson's
 * escapes and numbers, rounding to decimals, bytes that are not UTF-8, a
 * failed build refused instead of written in part.
 */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jout.h"

void suite_jout(void);

#define EXPECT_STR(actual, expected) do { \
	const char *a_ = (actual), *e_ = (expected); \
	if (strcmp(a_, e_) != 0) \
		printf("\n  %s:%d: %s =\n%s\n  expected\n%s\n", __FILE__, __LINE__, #actual, a_, e_); \
	CU_ASSERT_STRING_EQUAL(a_, e_); \
} while (0)

/* v written by jout_write, as a string (caller frees); v is released. */
static char *written(json_t *v, int *rc)
{
	char *buf = NULL;
	size_t n = 0;
	struct plumb_err e;
	FILE *f = open_memstream(&buf, &n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	plumb_err_clear(&e);
	*rc = jout_write(f, v, 3, &e);
	fclose(f);
	json_decref(v);
	return buf;
}

static void test_layout(void)
{
	json_t *doc = json_object(), *rows = json_array(), *o = json_object(), *deep;
	char *s;
	int rc, i;

	CU_ASSERT_EQUAL(jout_set(doc, "name", jout_str("box")), 0);
	for (i = 0; i < 2; i++) {
		json_t *row = json_array();
		jout_push(row, json_integer(i));
		jout_push(row, jout_real(0.5 + i, 2));
		jout_push(rows, row);
	}
	jout_set(o, "rows", rows);
	jout_set(o, "flat", json_pack("{si}", "x", 1));
	jout_set(doc, "table", o);
	jout_set(doc, "empty", json_array());
	/* a fourth level is written on one line */
	deep = json_pack("{s{s{s[i]}}}", "a", "b", "c", 1);
	jout_set(doc, "deep", deep);
	s = written(doc, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	EXPECT_STR(s, "{\n"
		      "  \"name\": \"box\",\n"
		      "  \"table\": {\n"
		      "    \"rows\": [\n"
		      "      [0, 0.5],\n"
		      "      [1, 1.5]\n"
		      "    ],\n"
		      "    \"flat\": {\"x\": 1}\n"
		      "  },\n"
		      "  \"empty\": [],\n"
		      "  \"deep\": {\n"
		      "    \"a\": {\n"
		      "      \"b\": {\"c\": [1]}\n"
		      "    }\n"
		      "  }\n"
		      "}\n");
	free(s);

	/* two levels: the rows themselves on one line each */
	doc = json_pack("{s[[ii][ii]]}", "rows", 1, 2, 3, 4);
	{
		char *buf = NULL;
		size_t n = 0;
		struct plumb_err e;
		FILE *f = open_memstream(&buf, &n);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		CU_ASSERT_EQUAL(jout_write(f, doc, 1, &e), 0);
		fclose(f);
		EXPECT_STR(buf, "{\n  \"rows\": [[1, 2], [3, 4]]\n}\n");
		free(buf);
	}
	json_decref(doc);
}

static void test_values(void)
{
	json_t *a = json_array();
	char *s;
	int rc;

	jout_push(a, jout_str("q\"b\\s\x01\t\xc3\xa9"));
	jout_push(a, jout_str("bad \xff\xfe utf-8"));
	jout_push(a, jout_str(NULL));
	jout_push(a, jout_real(191.80, 2));
	jout_push(a, jout_real(5.2144, 3));
	jout_push(a, jout_real(5.2145001, 3));
	jout_push(a, jout_real(-0.0001, 2));
	jout_push(a, jout_real(3, 2));
	jout_push(a, jout_real(NAN, 2));
	jout_push(a, jout_real(1e300 * 1e10, 2));
	jout_push(a, jout_real(0.1 + 0.2, 9));
	s = written(a, &rc);
	CU_ASSERT_EQUAL(rc, 0);
	EXPECT_STR(s, "[\"q\\\"b\\\\s\\u0001\\t\xc3\xa9\", \"bad ?? utf-8\", \"\", 191.8, 5.214, "
		      "5.215, 0.0, 3.0, null, null, 0.3]\n");
	free(s);
}

static void test_failed_build(void)
{
	json_t *o = json_object();
	char *s;
	int rc;

	/* a NULL value (a builder out of memory) fails the set and is not written */
	CU_ASSERT_EQUAL(jout_set(o, "x", NULL), -1);
	CU_ASSERT_EQUAL(jout_set(NULL, "x", json_integer(1)), -1);
	CU_ASSERT_EQUAL(jout_push(NULL, json_integer(1)), -1);
	json_decref(o);
	s = written(NULL, &rc);
	CU_ASSERT_EQUAL(rc, -PLUMB_ERUNTIME);
	EXPECT_STR(s, "");
	free(s);
}

void suite_jout(void)
{
	CU_pSuite s = CU_add_suite("jout", NULL, NULL);
	CU_add_test(s, "layout: three levels break, deeper values inline", test_layout);
	CU_add_test(s, "strings, reals and non-finite values", test_values);
	CU_add_test(s, "a failed build is refused", test_failed_build);
}
