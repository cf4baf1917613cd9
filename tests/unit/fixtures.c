/*
 * fixtures.c - what several unit-test files share (fixtures.h).
 */
#include "fixtures.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

const int fix_ranks[64] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
	48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
};

struct scenario *fix_load(const char *text)
{
	struct scenario *s = NULL;
	struct plumb_err e;
	plumb_err_clear(&e);
	if (scn_parse("inline.yaml", text, &s, &e) < 0)
		printf("\n  scenario failed: %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
	CU_ASSERT_PTR_NOT_NULL(s);
	return s;
}

static const char box[] =
	"plumb_scenario: 1\n"
	"host: {cpu_vendor: amd, sockets: 2, inter_socket: {kind: xgmi, bandwidth_gbs: %s}}\n"
	"pcie:\n"
	"  - {id: rc0, kind: root_complex, socket: 0}\n  - {id: r0, kind: root_port, parent: rc0}\n"
	"  - {id: g0, kind: gpu, parent: r0, model: rtx-pro-6000}\n"
	"  - {id: rc1, kind: root_complex, socket: 0}\n  - {id: r1, kind: root_port, parent: rc1}\n"
	"  - {id: g1, kind: gpu, parent: r1, model: rtx-pro-6000}\n"
	"  - {id: rc2, kind: root_complex, socket: 0}\n  - {id: r2, kind: root_port, parent: rc2}\n"
	"  - {id: g2, kind: gpu, parent: r2, model: rtx-pro-6000}\n"
	"  - {id: rc3, kind: root_complex, socket: 0}\n  - {id: r3, kind: root_port, parent: rc3}\n"
	"  - {id: g3, kind: gpu, parent: r3, model: rtx-pro-6000}\n"
	"  - {id: rc4, kind: root_complex, socket: 1}\n  - {id: r4, kind: root_port, parent: rc4}\n"
	"  - {id: g4, kind: gpu, parent: r4, model: rtx-pro-6000}\n"
	"  - {id: rc5, kind: root_complex, socket: 1}\n  - {id: r5, kind: root_port, parent: rc5}\n"
	"  - {id: g5, kind: gpu, parent: r5, model: rtx-pro-6000}\n"
	"  - {id: rc6, kind: root_complex, socket: 1}\n  - {id: r6, kind: root_port, parent: rc6}\n"
	"  - {id: g6, kind: gpu, parent: r6, model: rtx-pro-6000}\n"
	"  - {id: rc7, kind: root_complex, socket: 1}\n  - {id: r7, kind: root_port, parent: rc7}\n"
	"  - {id: g7, kind: gpu, parent: r7, model: rtx-pro-6000}\n"
	"%s";

struct scenario *fix_seed_box(const char *xsock, const char *extra)
{
	char text[4096];
	snprintf(text, sizeof(text), box, xsock, extra);
	return fix_load(text);
}

/* ---- collectives and serving ------------------------------------------ */

void fix_coll_spec(struct coll_spec *c, enum coll_op op, int n, double bytes, int algo,
		   int proto)
{
	memset(c, 0, sizeof(*c));
	c->op = op;
	c->n = n;
	c->gpus = fix_ranks;
	c->bytes = bytes;
	c->algo = algo;
	c->proto = proto;
}

int fix_serve_steps(void *ctx, const struct serve_shape *sh, double *s, struct plumb_err *err)
{
	(void)err;
	if (sh->kind != SERVE_DECODE && ctx && sh->tokens > *(long *)ctx)
		*(long *)ctx = sh->tokens;
	*s = sh->kind == SERVE_DECODE ? 10e-3 + 0.1e-3 * sh->batch
				      : 50e-3 * sh->batch + 0.1e-3 * sh->dbatch;
	return 0;
}

void fix_serve_params(struct serve_params *p, int concurrency, long output_len)
{
	serve_params_init(p);
	p->concurrency = concurrency;
	p->output_len = output_len;
	p->spread = 0;
}

/* ---- imported trees (tests of plumb import) ---------------------------- */

char *fix_imp_yaml(const struct imp_scn *s)
{
	char *text = NULL;
	size_t n = 0;
	struct plumb_err e;
	FILE *f = open_memstream(&text, &n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(imp_write_yaml(f, s, "mem", &e), 0);
	fclose(f);
	return text;
}

char *fix_imp_read(const char *path, size_t *len)
{
	struct plumb_err e;
	char *buf;

	if (imp_read_input(path, &buf, len, &e) < 0) {
		CU_FAIL("sample file missing");
		return NULL;
	}
	return buf;
}

void fix_imp_prefixes(fix_imp_parse_fn parse, const char *text, size_t len, size_t step)
{
	size_t cut;

	for (cut = 0; cut <= len; cut += step) {
		struct imp_scn *s = imp_scn_new();
		struct imp_opts o;
		struct plumb_err e;
		int rc;
		char *part = malloc(cut ? cut : 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(part);
		memcpy(part, text, cut);
		memset(&o, 0, sizeof(o));
		rc = parse(part, cut, &o, s, &e);
		free(part);
		CU_ASSERT(rc == 0 || rc == -PLUMB_EINPUT);
		imp_scn_free(s);
	}
}

void fix_imp_junk(fix_imp_parse_fn parse, const char *alphabet, size_t nalpha,
		  unsigned long seed)
{
	unsigned long x = seed;
	char junk[4096];
	int round;

	for (round = 0; round < 50; round++) {
		struct imp_scn *s = imp_scn_new();
		struct imp_opts o;
		struct plumb_err e;
		int rc;
		size_t i;
		for (i = 0; i < sizeof(junk); i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			junk[i] = alphabet[(x >> 33) % nalpha];
			if ((x >> 60) == 0)
				junk[i] = (char)(1 + (x >> 40) % 255);
		}
		memset(&o, 0, sizeof(o));
		rc = parse(junk, sizeof(junk), &o, s, &e);
		CU_ASSERT(rc == 0 || rc == -PLUMB_EINPUT);
		imp_scn_free(s);
	}
}

int fix_imp_count(const struct imp_scn *s, enum imp_kind k)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->nodes[i].kind == k;
	return n;
}

int fix_imp_gpu_node(const struct imp_scn *s, int g)
{
	int i, j, below;

	for (i = 0; i < s->n; i++) {
		if (s->nodes[i].kind != IMP_GPU)
			continue;
		for (below = 0, j = 0; j < s->n; j++)
			below += s->nodes[j].kind == IMP_GPU && s->nodes[j].order < s->nodes[i].order;
		if (below == g)
			return i;
	}
	return -1;
}

int fix_imp_root(const struct imp_scn *s, int i)
{
	while (s->nodes[i].parent >= 0)
		i = s->nodes[i].parent;
	return i;
}
