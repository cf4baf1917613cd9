/*
 * cmd_stepopt.c - options naming one decode step (cmd_stepopt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_stepopt.h"

void cmd_stepopt_init(struct cmd_stepopt *o)
{
	memset(o, 0, sizeof(*o));
	o->model = "glm-5";
	o->weights = NULL;          /* llm_default_weights of the model */
	o->kv = "bf16";
	o->batch = 1;
	o->context = 1024;
	o->level = -1;
}

static int num(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The options, in the order of CMD_STEPOPT_LONGOPTS (val = CMD_STEPOPT_VAL + index). */
static const char *const names[] = {
	"--model", "--weights", "--kv", "--layout", "--batch", "--context", "--microbatches",
	"--nccl-p2p-level", "--eager", NULL
};
enum { O_MODEL, O_WEIGHTS, O_KV, O_LAYOUT, O_BATCH, O_CONTEXT, O_MICRO, O_LEVEL, O_EAGER };

/* Option k with value v (NULL for --eager): 1, or PLUMB_EUSAGE after the message. */
static int apply(const char *cmd, struct cmd_stepopt *o, int k, const char *v)
{
	long n;
	switch (k) {
	case O_EAGER:
		o->eager = 1;
		break;
	case O_MODEL:
		o->model = v;
		break;
	case O_WEIGHTS:
		o->weights = v;
		break;
	case O_KV:
		o->kv = v;
		break;
	case O_LAYOUT: {
		struct step_layout l;
		struct plumb_err e;
		if (step_layout_parse(v, &l, &e) < 0)
			return cmd_usage_error(cmd, "%s", e.msg);
		o->layout = v;
		break;
	}
	case O_BATCH:
		if (num(v, 1, 100000, &n) < 0)
			return cmd_usage_error(cmd, "--batch needs a number of sequences, not '%s'", v);
		o->batch = (int)n;
		break;
	case O_CONTEXT:
		if (num(v, 0, 100000000, &n) < 0)
			return cmd_usage_error(cmd, "--context needs a token count, not '%s'", v);
		o->context = n;
		break;
	case O_MICRO:
		if (num(v, 1, 256, &n) < 0)
			return cmd_usage_error(cmd, "--microbatches needs 1-256, not '%s'", v);
		o->micro = (int)n;
		break;
	default:
		if ((o->level = topo_nccl_path_parse(v)) < 0)
			return cmd_usage_error(cmd, "unknown NCCL_P2P_LEVEL '%s'", v);
		break;
	}
	return 1;
}

int cmd_stepopt_parse(const char *cmd, struct cmd_stepopt *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	int k;
	for (k = 0; names[k] && strcmp(a, names[k]); k++)
		;
	if (!names[k])
		return 0;
	if (k == O_EAGER)
		return apply(cmd, o, k, NULL);
	if (*i + 1 >= argc)
		return cmd_usage_error(cmd, "option %s needs a value", a);
	return apply(cmd, o, k, argv[++*i]);
}

int cmd_stepopt_take(const char *cmd, struct cmd_stepopt *o, int c, const char *val)
{
	if (c < CMD_STEPOPT_VAL || c > CMD_STEPOPT_VAL + O_EAGER)
		return 0;
	return apply(cmd, o, c - CMD_STEPOPT_VAL, val);
}

int cmd_stepopt_cfg(const struct cmd_stepopt *o, const struct scenario *s, struct pred_cfg *c,
		    struct plumb_err *err)
{
	char lay[32];
	int rc;
	if (o->layout)
		snprintf(lay, sizeof(lay), "%s", o->layout);
	else
		snprintf(lay, sizeof(lay), "tp%d", s->ngpus);
	pred_cfg_init(c);
	if ((rc = pred_cfg_setup(c, s, o->model, o->weights ? o->weights :
				 llm_default_weights(o->model), o->kv, lay, err)) < 0)
		return rc;
	c->topo.nccl_p2p_level = o->level;
	if (o->eager)
		c->cuda_graphs = 0;
	c->micro = o->micro;
	return 0;
}
