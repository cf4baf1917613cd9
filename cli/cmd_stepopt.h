/*
 * cmd_stepopt.h - the options `plumb render --what timeline` and `plumb
 * trace` share to pick one decode step: model, weights, layout, batch,
 * context; and the pred_cfg they describe.
 */
#ifndef PLUMB_CMD_STEPOPT_H
#define PLUMB_CMD_STEPOPT_H

#include "predict.h"

struct cmd_stepopt {
	const char *model, *weights, *kv, *layout;  /* layout NULL: tp<all GPUs> */
	int batch;
	long context;
	int micro, eager, level;
};

#define CMD_STEPOPT_HELP \
	"  --model M              catalog model (default glm-5) or a model file\n" \
	"                         (Hugging Face config.json or its directory, YAML)\n" \
	"  --weights W            bf16, fp8, fp8t, nvfp4, mxfp4, int4, int4-gN or\n" \
	"                         checkpoint (default: a file's own, else nvfp4)\n" \
	"  --kv DTYPE             KV cache, bf16 or fp8 (default bf16)\n" \
	"  --layout L             tpN, tpNppM, epN, tpNep (default tp<all GPUs>)\n" \
	"  --batch B              sequences in the decode step (default 1)\n" \
	"  --context N            tokens in each sequence's KV cache (default 1024)\n" \
	"  --microbatches M       pipeline microbatches (default: the stage count)\n" \
	"  --eager                kernel launches without CUDA graphs\n" \
	"  --nccl-p2p-level L     NCCL_P2P_LEVEL (default: the scenario's, else NCCL's)\n"

void cmd_stepopt_init(struct cmd_stepopt *o);

/*
 * If argv[*i] is one of the options above, take it (and its value, moving
 * *i past it) and return 1; return 0 if it is not; on a bad value print the
 * usage error and return PLUMB_EUSAGE.
 */
int cmd_stepopt_parse(const char *cmd, struct cmd_stepopt *o, int argc, char **argv, int *i);

/*
 * The same options for getopt_long (cli/cmd.h cmd_getopt): put
 * CMD_STEPOPT_LONGOPTS in a command's struct option table and hand every
 * option cmd_getopt returns to cmd_stepopt_take(): 1 when it was one of
 * these (applied), 0 when not, PLUMB_EUSAGE after the message for a bad
 * value.
 */
#define CMD_STEPOPT_VAL 0x100
#define CMD_STEPOPT_LONGOPTS \
	{ "model", required_argument, NULL, CMD_STEPOPT_VAL + 0 }, \
	{ "weights", required_argument, NULL, CMD_STEPOPT_VAL + 1 }, \
	{ "kv", required_argument, NULL, CMD_STEPOPT_VAL + 2 }, \
	{ "layout", required_argument, NULL, CMD_STEPOPT_VAL + 3 }, \
	{ "batch", required_argument, NULL, CMD_STEPOPT_VAL + 4 }, \
	{ "context", required_argument, NULL, CMD_STEPOPT_VAL + 5 }, \
	{ "microbatches", required_argument, NULL, CMD_STEPOPT_VAL + 6 }, \
	{ "nccl-p2p-level", required_argument, NULL, CMD_STEPOPT_VAL + 7 }, \
	{ "eager", no_argument, NULL, CMD_STEPOPT_VAL + 8 }
int cmd_stepopt_take(const char *cmd, struct cmd_stepopt *o, int c, const char *val);

/* Fill c for scenario s (which must outlive c); whether the model fits is
 * the caller's check (pred_check_fit). Errors: EUSAGE, EINPUT. */
int cmd_stepopt_cfg(const struct cmd_stepopt *o, const struct scenario *s, struct pred_cfg *c,
		    struct plumb_err *err);

#endif
