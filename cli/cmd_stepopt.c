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

int cmd_stepopt_parse(const char *cmd, struct cmd_stepopt *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v;
	long n;
	if (!strcmp(a, "--eager")) {
		o->eager = 1;
		return 1;
	}
	if (strcmp(a, "--model") && strcmp(a, "--weights") && strcmp(a, "--kv") &&
	    strcmp(a, "--layout") && strcmp(a, "--batch") && strcmp(a, "--context") &&
	    strcmp(a, "--microbatches") && strcmp(a, "--nccl-p2p-level"))
		return 0;
	if (*i + 1 >= argc)
		return cmd_usage_error(cmd, "option %s needs a value", a);
	v = argv[++*i];
	if (!strcmp(a, "--model")) {
		o->model = v;
	} else if (!strcmp(a, "--weights")) {
		o->weights = v;
	} else if (!strcmp(a, "--kv")) {
		o->kv = v;
	} else if (!strcmp(a, "--layout")) {
		struct step_layout l;
		struct plumb_err e;
		if (step_layout_parse(v, &l, &e) < 0)
			return cmd_usage_error(cmd, "%s", e.msg);
		o->layout = v;
	} else if (!strcmp(a, "--batch")) {
		if (num(v, 1, 100000, &n) < 0)
			return cmd_usage_error(cmd, "--batch needs a number of sequences, not '%s'", v);
		o->batch = (int)n;
	} else if (!strcmp(a, "--context")) {
		if (num(v, 0, 100000000, &n) < 0)
			return cmd_usage_error(cmd, "--context needs a token count, not '%s'", v);
		o->context = n;
	} else if (!strcmp(a, "--microbatches")) {
		if (num(v, 1, 256, &n) < 0)
			return cmd_usage_error(cmd, "--microbatches needs 1-256, not '%s'", v);
		o->micro = (int)n;
	} else {
		if ((o->level = topo_nccl_path_parse(v)) < 0)
			return cmd_usage_error(cmd, "unknown NCCL_P2P_LEVEL '%s'", v);
	}
	return 1;
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
