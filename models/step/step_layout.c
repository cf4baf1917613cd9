/*
 * step_layout.c - a layout's name parsed (step_layout_parse) and a stage's
 * program built (step_prog_add, step_prog_release), step.h.
 */
#include "step.h"

#include <stdlib.h>
#include <string.h>

#include "step_int.h"

int step_layout_parse(const char *s, struct step_layout *l, struct plumb_err *err)
{
	char *end;
	long a, b;

	memset(l, 0, sizeof(*l));
	if (strlen(s) > STEP_LAYOUT_MAX)
		return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
				     "layout '%.40s...' is longer than %d characters", s,
				     STEP_LAYOUT_MAX);
	snprintf(l->name, sizeof(l->name), "%s", s);
	l->dp = 1;
	if (!strncmp(s, "dp", 2)) {
		/* dpN then the layout of one replica (none: one GPU each) */
		int rc;
		a = strtol(s + 2, &end, 10);
		if (end == s + 2 || a < 1 || a > SCN_MAX_GPUS || !strncmp(end, "dp", 2))
			goto bad;
		if ((rc = step_layout_parse(*end ? end : "tp1", l, err)) < 0) {
			if (!err || strstr(err->msg, "unknown layout"))
				goto bad;       /* named whole */
			return rc;
		}
		snprintf(l->name, sizeof(l->name), "%s", s);
		l->dp = (int)a;
		if ((long)l->dp * l->gpus > SCN_MAX_GPUS)
			goto bad;
		return 0;
	}
	if (!strncmp(s, "tp", 2)) {
		a = strtol(s + 2, &end, 10);
		if (end == s + 2 || a < 1 || a > SCN_MAX_GPUS)
			goto bad;
		l->tp = (int)a;
		l->pp = 1;
		if (*end == '\0') {
			l->kind = LAY_TP;
		} else if (!strncmp(end, "pp", 2)) {
			const char *q = end + 2;
			b = strtol(q, &end, 10);
			if (end == q || *end || b < 1 || b > STEP_MAX_STAGES)
				goto bad;
			l->kind = LAY_TPPP;
			l->pp = (int)b;
		} else if (!strcmp(end, "ep")) {
			l->kind = LAY_TPEP;
			l->ep = l->tp;
		} else if (!strncmp(end, "dcp", 3)) {
			const char *q = end + 3;
			b = strtol(q, &end, 10);
			if (end == q || *end || b < 2)
				goto bad;
			if (b != l->tp)
				return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
						     "layout '%s': decode context parallel over part of "
						     "the tensor-parallel group is not modelled (use tp%ddcp%d)",
						     s, l->tp, l->tp);
			l->kind = LAY_TP;
			l->dcp = (int)b;
		} else {
			goto bad;
		}
		l->gpus = l->tp * l->pp;
		if (!l->dcp)
			l->dcp = 1;
		return 0;
	}
	if (!strncmp(s, "ep", 2)) {
		a = strtol(s + 2, &end, 10);
		if (end == s + 2 || *end || a < 1 || a > SCN_MAX_GPUS)
			goto bad;
		l->kind = LAY_EP;
		l->tp = 1;
		l->pp = 1;
		l->ep = (int)a;
		l->dcp = 1;
		l->gpus = (int)a;
		return 0;
	}
bad:
	return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
			     "unknown layout '%s' (expected tpN, tpNppM, epN, tpNep or tpNdcpN, each optionally after dpN replicas, or dpN alone, e.g. tp8, tp4pp2, ep8, tp8ep, tp8dcp8, dp4tp2, dp8)",
			     s);
}

int step_prog_add(struct step_prog *p, enum step_op_kind k, double seconds, double bytes,
		  int tag, struct plumb_err *err)
{
	if (p->nops == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		struct step_op *n = realloc(p->ops, (size_t)cap * sizeof(*n));
		if (!n)
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		p->ops = n;
		p->cap = cap;
	}
	p->ops[p->nops].kind = k;
	p->ops[p->nops].seconds = seconds;
	p->ops[p->nops].bytes = bytes;
	p->ops[p->nops].tag = tag;
	p->nops++;
	return 0;
}

void step_prog_release(struct step_prog *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

