/*
 * test_ytree.c - the YAML tree and its typed getters (io/ytree.h): size
 * parsing, edit distance, duplicate keys, NUL bytes, alias cycles, the
 * getters' messages and positions, the input size limit, and the
 * "did you mean" suggestion of ymap_check_keys.
 */
#include <CUnit/CUnit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "ytree.h"

void suite_ytree(void);

/* An error at file:line:col with exactly this message and code. */
#define EXPECT_ERR(e, code_, line_, col_, msg_) do { \
	EXPECT_INT((e).code, (code_)); \
	EXPECT_INT((e).line, (line_)); \
	EXPECT_INT((e).col, (col_)); \
	EXPECT_STR((e).msg, (msg_)); \
} while (0)

/* Parse text (NUL-terminated); returns the tree or NULL with *e filled. */
static struct ytree *parse(const char *text, struct plumb_err *e)
{
	struct ytree *t = NULL;
	plumb_err_clear(e);
	if (ytree_parse("t.yaml", text, strlen(text), &t, e) < 0)
		return NULL;
	return t;
}

static void test_parse_size(void)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "64M", 64ull << 20 },
		{ "128G", 128ull << 30 },
		{ "1.5T", 3ull << 39 },
		{ "64MiB", 64ull << 20 },
		{ "64mib", 64ull << 20 },
		{ "32 G", 32ull << 30 },
		{ "4096", 4096 },
		{ "1K", 1024 },
		{ "2P", 2ull << 50 },
		{ "1GB", 1ull << 30 },
	};
	static const char *const bad[] = {
		"0", "-1", "1.5X", "", "G", "lots", "1.5TT", "nan", "inf", "0.1",
		"1e30T", "64 M B",
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 0;
		int rc = parse_size(good[i].s, &v);
		if (rc != 0)
			printf("\n  parse_size(\"%s\") failed\n", good[i].s);
		EXPECT_INT(rc, 0);
		EXPECT_U64(v, good[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 12345;
		int rc = parse_size(bad[i], &v);
		if (rc == 0)
			printf("\n  parse_size(\"%s\") accepted, gave %llu\n", bad[i],
			       (unsigned long long)v);
		EXPECT_INT(rc, -1);
		EXPECT_U64(v, 12345);   /* untouched on failure */
	}
}

static void test_str_distance(void)
{
	EXPECT_INT(str_distance("pcie", "pcie"), 0);
	EXPECT_INT(str_distance("cpu_vendr", "cpu_vendor"), 1);
	EXPECT_INT(str_distance("pcei", "pcie"), 2);   /* a swap is two edits */
	EXPECT_INT(str_distance("", "abc"), 3);
	EXPECT_INT(str_distance("abc", ""), 3);
	EXPECT_INT(str_distance("Switch", "switch"), 0);   /* case-insensitive */
	EXPECT_INT(str_distance("kitten", "sitting"), 3);
	EXPECT_INT(str_distance("rtx-pro-600", "rtx-pro-6000"), 1);
	/* Symmetric. */
	EXPECT_INT(str_distance("latncy", "latency"), str_distance("latency", "latncy"));
	{
		char longs[200];
		memset(longs, 'a', sizeof(longs) - 1);
		longs[sizeof(longs) - 1] = '\0';
		/* Over-long strings are never "close". */
		EXPECT_INT(str_distance(longs, "a") >= 100, 1);
	}
}

static void test_tree_shape(void)
{
	struct plumb_err e;
	struct ytree *t = parse("a: 1\nb: [x, 'y']\nc: {d: e}\n", &e);
	struct ynode *b, *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_INT(t->root->type, Y_MAP);
	EXPECT_INT(t->root->n, 3);
	b = ymap_get(t->root, "b");
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	EXPECT_INT(b->type, Y_SEQ);
	EXPECT_INT(b->n, 2);
	EXPECT_STR(b->vals[0]->str, "x");
	EXPECT_INT(b->vals[0]->quoted, 0);
	EXPECT_INT(b->vals[1]->quoted, 1);
	EXPECT_INT(b->line, 2);
	EXPECT_INT(b->col, 4);
	c = ymap_get(t->root, "c");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	EXPECT_STR(ymap_get(c, "d")->str, "e");
	CU_ASSERT_PTR_NULL(ymap_get(t->root, "zz"));
	CU_ASSERT_PTR_NULL(ymap_get(b, "x"));   /* not a map */
	ytree_free(t);

	/* An empty document is a tree without a root, not an error. */
	t = parse("# nothing here\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NULL(t->root);
	ytree_free(t);
	ytree_free(NULL);
}

static void test_duplicate_key(void)
{
	struct plumb_err e;
	CU_ASSERT_PTR_NULL(parse("a: 1\nb: 2\na: 3\n", &e));
	EXPECT_ERR(e, PLUMB_EINPUT, 3, 1, "duplicate key 'a' (first at line 1)");
	EXPECT_STR(e.file, "t.yaml");

	/* Nested, in flow style: the column is the second key's. */
	CU_ASSERT_PTR_NULL(parse("top:\n  - {id: x, kind: gpu, id: y}\n", &e));
	EXPECT_ERR(e, PLUMB_EINPUT, 2, 24, "duplicate key 'id' (first at line 2)");

	/* The same key in two different maps is fine. */
	{
		struct ytree *t = parse("a: {k: 1}\nb: {k: 2}\n", &e);
		CU_ASSERT_PTR_NOT_NULL(t);
		ytree_free(t);
	}
}

static void test_nul_byte(void)
{
	static const char buf[] = "a: 1\nb: x\0y\n";
	struct ytree *t = (struct ytree *)1;
	struct plumb_err e;
	int rc;

	plumb_err_clear(&e);
	rc = ytree_parse("bin.yaml", buf, sizeof(buf) - 1, &t, &e);
	EXPECT_INT(rc, -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(t);
	EXPECT_ERR(e, PLUMB_EINPUT, 2, 5, "binary data (NUL byte) in a YAML file");
	EXPECT_STR(e.file, "bin.yaml");

	/* A NUL as the very first byte. */
	rc = ytree_parse("bin.yaml", "\0", 1, &t, &e);
	EXPECT_INT(rc, -PLUMB_EINPUT);
	EXPECT_INT(e.line, 1);
	EXPECT_INT(e.col, 1);
}

static void test_syntax_and_aliases(void)
{
	struct plumb_err e;
	struct ytree *t;

	CU_ASSERT_PTR_NULL(parse("a: [1, 2\nb: 3\n", &e));
	EXPECT_INT(e.code, PLUMB_EINPUT);
	EXPECT_INT(strncmp(e.msg, "YAML syntax: ", 13), 0);
	EXPECT_INT(e.line >= 1, 1);

	/* the caret is on the alias */
	CU_ASSERT_PTR_NULL(parse("a: &x [1, *x]\n", &e));
	EXPECT_ERR(e, PLUMB_EINPUT, 1, 11, "alias refers to the node that contains it");
	CU_ASSERT_PTR_NULL(parse("a: *nowhere\n", &e));
	EXPECT_ERR(e, PLUMB_EINPUT, 1, 4, "YAML syntax: found undefined alias");

	/* an anchor may be redefined; an alias takes the latest */
	t = parse("a: &x 1\nb: &x 2\nc: *x\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_STR(ymap_get(t->root, "c")->str, "2");
	ytree_free(t);
	/* a scalar anchor used as a key */
	t = parse("- &k name\n- {*k : v}\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_STR(ymap_get(t->root->vals[1], "name")->str, "v");
	ytree_free(t);

	/* one document per file */
	CU_ASSERT_PTR_NULL(parse("a: 1\n---\nb: 2\n", &e));
	EXPECT_ERR(e, PLUMB_EINPUT, 2, 1,
		   "a second YAML document ('---'); a file holds one document");
	t = parse("---\na: 1\n...\n", &e);
	CU_ASSERT_PTR_NOT_NULL(t);
	ytree_free(t);

	/* A shared alias is one node, visited as often as it is used. */
	t = parse("a: &x {k: v}\nb: *x\nc: *x\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_EQUAL(ymap_get(t->root, "b"), ymap_get(t->root, "a"));
	CU_ASSERT_PTR_EQUAL(ymap_get(t->root, "c"), ymap_get(t->root, "a"));
	ytree_free(t);

	CU_ASSERT_PTR_NULL(parse("? [a]\n: 1\n", &e));
	EXPECT_ERR(e, PLUMB_EINPUT, 1, 3, "mapping keys must be plain scalars");
}

static void test_getters(void)
{
	static const char text[] =
		"n: abc\n"            /* 1 */
		"big: 99999999999999999999999\n"
		"r: 7\n"
		"d: 1e999\n"
		"nan: .nan\n"         /* 5 */
		"f: 2.5\n"
		"b: maybe\n"
		"yes: on\n"
		"l: [1]\n"
		"m: {x: 1}\n"         /* 10 */
		"size: lots\n"
		"gig: 128G\n"
		"e: swich\n"
		"far: zzzzzz\n"
		"s: hello world\n"    /* 15 */
		"tiny: 1e-308\n"
		"zero: 1e-400\n";
	static const char *const kinds[] = { "root_port", "switch", "gpu", NULL };
	struct plumb_err e;
	struct ytree *t = parse(text, &e);
	const struct ynode *r;
	long l = -7;
	double d = -7;
	int b = -7, idx = -7;
	uint64_t sz = 0;
	char buf[8];

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	r = t->root;

	EXPECT_INT(yget_int(t, ymap_get(r, "n"), "sockets", 1, 8, &l, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 1, 4, "'sockets' must be a whole number, got 'abc'");
	EXPECT_INT(l, -7);
	EXPECT_INT(yget_int(t, ymap_get(r, "big"), "seed", 0, 100, &l, &e), -PLUMB_EINPUT);
	EXPECT_INT(e.line, 2);
	EXPECT_INT(yget_int(t, ymap_get(r, "r"), "gen", 1, 6, &l, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 3, 4, "'gen' must be between 1 and 6, got 7");
	EXPECT_INT(yget_int(t, ymap_get(r, "r"), "gen", 1, 7, &l, &e), 0);
	EXPECT_INT(l, 7);

	EXPECT_INT(yget_double(t, ymap_get(r, "d"), "bw", 0, 1e9, &d, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 4, 4, "'bw' must be a finite number, got '1e999'");
	EXPECT_INT(yget_double(t, ymap_get(r, "nan"), "bw", 0, 1e9, &d, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 5, 6, "'bw' must be a finite number, got '.nan'");
	EXPECT_INT(yget_double(t, ymap_get(r, "f"), "bw", 3, 4, &d, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 6, 4, "'bw' must be between 3 and 4, got 2.5");
	EXPECT_INT(yget_double(t, ymap_get(r, "f"), "bw", 0, 4, &d, &e), 0);
	CU_ASSERT_DOUBLE_EQUAL(d, 2.5, 1e-12);
	/* underflow is a tiny finite number, not "not finite" */
	EXPECT_INT(yget_double(t, ymap_get(r, "tiny"), "eps", 0, 1, &d, &e), 0);
	CU_ASSERT(d > 0 && d < 1e-307);
	EXPECT_INT(yget_double(t, ymap_get(r, "zero"), "eps", 0, 1, &d, &e), 0);
	CU_ASSERT(d >= 0 && d < 1e-320);

	EXPECT_INT(yget_bool(t, ymap_get(r, "b"), "acs", &b, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 7, 4, "'acs' must be true or false, got 'maybe'");
	EXPECT_INT(yget_bool(t, ymap_get(r, "yes"), "acs", &b, &e), 0);
	EXPECT_INT(b, 1);

	EXPECT_INT(yget_str(t, ymap_get(r, "l"), "name", buf, sizeof(buf), &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 9, 4, "'name' must be a single value, not a list");
	EXPECT_INT(yget_int(t, ymap_get(r, "m"), "sockets", 1, 8, &l, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 10, 4, "'sockets' must be a single value, not a mapping");
	EXPECT_INT(yexpect(t, ymap_get(r, "n"), Y_MAP, "host", &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 1, 4, "'host' must be a mapping, not a single value");
	EXPECT_INT(yexpect(t, ymap_get(r, "m"), Y_SEQ, "pcie", &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 10, 4, "'pcie' must be a list, not a mapping");
	EXPECT_INT(yexpect(t, ymap_get(r, "m"), Y_MAP, "host", &e), 0);

	EXPECT_INT(yget_str(t, ymap_get(r, "s"), "name", buf, sizeof(buf), &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 15, 4, "'name' is too long (at most 7 characters)");
	EXPECT_INT(yget_str(t, ymap_get(r, "n"), "name", buf, sizeof(buf), &e), 0);
	EXPECT_STR(buf, "abc");

	EXPECT_INT(yget_size(t, ymap_get(r, "size"), "mmio64_window", &sz, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 11, 7,
		   "'mmio64_window' must be a positive size such as 64M, 128G or 1.5T, got 'lots'");
	EXPECT_INT(yget_size(t, ymap_get(r, "gig"), "guest_ram", &sz, &e), 0);
	EXPECT_U64(sz, 128ull << 30);

	EXPECT_INT(yget_enum(t, ymap_get(r, "e"), "kind", kinds, &idx, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 13, 4, "unknown kind 'swich' (did you mean 'switch'?)");
	EXPECT_INT(yget_enum(t, ymap_get(r, "far"), "kind", kinds, &idx, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 14, 6,
		   "unknown kind 'zzzzzz' (expected one of: root_port, switch, gpu)");
	EXPECT_INT(idx, -7);

	ytree_free(t);
}

static void test_check_keys(void)
{
	static const char *const allowed[] = { "plumb_scenario", "host", "pcie", NULL };
	struct plumb_err e;
	struct ytree *t;

	t = parse("plumb_scenario: 1\npcei: []\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_INT(ymap_check_keys(t, t->root, "scenario", allowed, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 2, 1, "unknown key 'pcei' in scenario (did you mean 'pcie'?)");
	ytree_free(t);

	t = parse("host: {}\n  # c\nvirtualisation_mode: vm\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_INT(ymap_check_keys(t, t->root, "scenario", allowed, &e), -PLUMB_EINPUT);
	EXPECT_ERR(e, PLUMB_EINPUT, 3, 1, "unknown key 'virtualisation_mode' in scenario");
	ytree_free(t);

	t = parse("host: {}\npcie: []\n", &e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	EXPECT_INT(ymap_check_keys(t, t->root, "scenario", allowed, &e), 0);
	ytree_free(t);
}

/* Write n bytes of a valid YAML comment file to path; 0 on success. */
static int write_filler(const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	char line[64];
	size_t done = 0;

	if (!f)
		return -1;
	memset(line, 'x', sizeof(line));
	line[0] = '#';
	line[sizeof(line) - 1] = '\n';
	while (done + sizeof(line) <= n) {
		if (fwrite(line, 1, sizeof(line), f) != sizeof(line))
			break;
		done += sizeof(line);
	}
	while (done < n && fputc('\n', f) != EOF)
		done++;
	return fclose(f) == 0 && done == n ? 0 : -1;
}

static void test_input_limit(void)
{
	char path[] = "/tmp/plumb-ytree-XXXXXX";
	struct ytree *t = (struct ytree *)1;
	struct plumb_err e;
	int fd = mkstemp(path), rc;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_FATAL(write_filler(path, (size_t)PLUMB_MAX_INPUT + 1) == 0);
	plumb_err_clear(&e);
	rc = ytree_load(path, &t, &e);
	EXPECT_INT(rc, -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(t);
	EXPECT_INT(e.code, PLUMB_EINPUT);
	EXPECT_STR(e.msg, "file is larger than the 16 MiB input limit");
	EXPECT_STR(e.file, path);
	EXPECT_INT(e.line, 0);

	/* Well under the limit, the same kind of file loads (and is empty). */
	CU_ASSERT_FATAL(write_filler(path, 1u << 20) == 0);
	rc = ytree_load(path, &t, &e);
	EXPECT_INT(rc, 0);
	if (rc == 0) {
		CU_ASSERT_PTR_NULL(t->root);
		ytree_free(t);
	}
	remove(path);

	rc = ytree_load("/nonexistent/plumb/x.yaml", &t, &e);
	EXPECT_INT(rc, -PLUMB_EIO);
	EXPECT_INT(e.code, PLUMB_EIO);
	EXPECT_STR(e.msg, "cannot read: No such file or directory");
}

/* Nesting is refused at the 65th level, as the text is read: a million
 * levels cost what a hundred do (the whole document used to be built
 * before the check: 100,000 levels took over a minute). */
static void test_depth(void)
{
	size_t n = 1000000, i;
	char *buf = malloc(2 * n + 8);
	struct ytree *t = (struct ytree *)1;
	struct plumb_err e;
	struct timespec t0, t1;
	double dt;
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	memcpy(buf, "x: ", 3);
	for (i = 0; i < n; i++) {
		buf[3 + i] = '[';
		buf[3 + n + i] = ']';
	}
	buf[3 + 2 * n] = '\n';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	plumb_err_clear(&e);
	rc = ytree_parse("deep.yaml", buf, 2 * n + 4, &t, &e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dt = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	EXPECT_INT(rc, -PLUMB_EINPUT);
	CU_ASSERT_PTR_NULL(t);
	/* the root map is level 1, the first '[' level 2 */
	EXPECT_ERR(e, PLUMB_EINPUT, 1, 4 + 63, "nesting deeper than 64 levels");
	if (dt >= 1.0)
		printf("\n  10^6 nested levels took %.2f s, expected under 1 s\n", dt);
	CU_ASSERT(dt < 1.0);

	/* exactly 64 levels load, block or flow */
	{
		char deep[64 * 70 + 16];
		size_t o = 0;
		int lv;
		for (lv = 0; lv < 63; lv++) {   /* 63 maps and a scalar */
			memset(deep + o, ' ', (size_t)lv * 2);
			o += (size_t)lv * 2;
			o += (size_t)sprintf(deep + o, "k:\n");
		}
		deep[o - 1] = ' ';
		o += (size_t)sprintf(deep + o, "v\n");
		t = parse(deep, &e);
		CU_ASSERT_PTR_NOT_NULL(t);
		ytree_free(t);
		t = parse("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
			  "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n", &e);
		CU_ASSERT_PTR_NOT_NULL(t);
		ytree_free(t);
		CU_ASSERT_PTR_NULL(parse("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1"
					 "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n", &e));
		EXPECT_ERR(e, PLUMB_EINPUT, 1, 65, "nesting deeper than 64 levels");
	}
	free(buf);
}

void suite_ytree(void)
{
	CU_pSuite s = CU_add_suite("ytree", NULL, NULL);
	CU_add_test(s, "parse_size units and rejects", test_parse_size);
	CU_add_test(s, "str_distance", test_str_distance);
	CU_add_test(s, "tree shape, positions, empty document", test_tree_shape);
	CU_add_test(s, "duplicate keys with line numbers", test_duplicate_key);
	CU_add_test(s, "NUL byte rejected with its position", test_nul_byte);
	CU_add_test(s, "syntax errors, alias cycles, shared aliases", test_syntax_and_aliases);
	CU_add_test(s, "typed getters: messages and positions", test_getters);
	CU_add_test(s, "ymap_check_keys suggestion", test_check_keys);
	CU_add_test(s, "16 MiB input limit, missing file", test_input_limit);
	CU_add_test(s, "nesting refused while parsing, in linear time", test_depth);
}
