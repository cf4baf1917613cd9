/*
 * cmd.h - the subcommand table. Each command lives in cli/cmd_<name>.c and
 * has the signature below: argv[0] is the command name; it returns the
 * process exit status (enum plumb_rc). Help text comes from the table and
 * from each command's own usage string (printed by --help).
 */
#ifndef PLUMB_CMD_H
#define PLUMB_CMD_H

#include <stddef.h>
#include <stdio.h>

struct plumb_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;   /* one line for `plumb --help` */
	const char *usage;     /* full text for `plumb NAME --help` */
};

extern const struct plumb_cmd plumb_commands[];

/* The entry for name, or NULL. */
const struct plumb_cmd *plumb_cmd_find(const char *name);

/* Print "plumb: error: MSG" and the hint to run --help; returns PLUMB_EUSAGE. */
int cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct calib_file;
/*
 * The calibration given with --calib FILE (any command; main.c takes the
 * option out of argv and puts its constants over every scenario loaded),
 * or NULL. Commands that predict use its covariance for intervals.
 */
const struct calib_file *cmd_calib(void);
void cmd_set_calib(const struct calib_file *c);

/* Monte Carlo draws for intervals from a calibration: --draws N, default
 * 32; a fixed seed so the same inputs give the same interval. */
#define CMD_CALIB_DRAWS 32

struct cost_opts;
/* --price-usd and the other money options of predict, compare, plan and
 * report, option a with value v into c (0 given: a stated zero, -1): 0
 * parsed, -1 not one of them, else a usage error's exit status. */
int cmd_money_option(const char *cmd, const char *a, const char *v, struct cost_opts *c);

/* What `plumb --version` prints. */
#define PLUMB_VERSION_STRING "plumb 0.1"
#define CMD_CALIB_SEED 20261130UL

struct plumb_consts;
struct plumb_err;
/*
 * The 90% interval of a prediction under the --calib calibration: `draws`
 * times, k (the constants the prediction reads) is drawn from the
 * calibration's covariance and fn(arg, &value, err) is run; fn returns
 * < 0 on error, 0 for no value (the point does not fit), 1 for a value.
 * Each value is multiplied by exp(sd z), z a standard normal draw and sd
 * the calibration's model error of the data block the value depends on
 * (model_error:, else residual_sd: so few points and constants do not
 * give a needle-thin interval).
 * *lo and *hi get the 5th and 95th percentile, NAN without a calibration
 * with covariance or spread, or without values. k is restored. Same inputs, same
 * interval: the seed is CMD_CALIB_SEED.
 */
int cmd_calib_interval(struct plumb_consts *k, int draws,
		       int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
		       double *lo, double *hi, struct plumb_err *err);
/* The same with the model error of data block `block` (calib_model_error:
 * "decode" for steps and serving runs, a collective's op name for it);
 * cmd_calib_interval is block "decode". */
int cmd_calib_interval_for(const char *block, struct plumb_consts *k, int draws,
			   int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
			   double *lo, double *hi, struct plumb_err *err);

/*
 * Without a calibration: the interval the documented defaults give. Each
 * constant of the step model (kernel classes' minimum durations and memory
 * efficiencies, flops_eff, the graph launch gap) that k leaves open is
 * drawn over its draw range (consts_draw_range: the plausible range, or a
 * per-GPU measurement's spread from the GPU catalog), log-uniformly between
 * its value and each end with half the draws on each side (so the value
 * is the median; a value near one end gives a lopsided interval); constants a
 * scenario sets stay. *lo, *hi as cmd_calib_interval (NAN when nothing is
 * left at its default). Same inputs, same interval.
 */
int cmd_defaults_interval(struct plumb_consts *k, int draws,
			  int (*fn)(void *arg, double *value, struct plumb_err *err), void *arg,
			  double *lo, double *hi, struct plumb_err *err);

/*
 * The draws behind those intervals: the constants of each draw, out[d], and
 * mult[d], the draw's model-error factor that multiplies its value: with
 * --calib the calibration's, else (when defaults is 1) the documented
 * defaults'. The same seed for every point, so draw d of one box and draw d
 * of another share their drawn constants: the ratio of two points draw by
 * draw is a paired speed-up. The caller evaluates the draws, in any order.
 * 1 when filled, 0 when there is no interval, < 0 on error.
 */
int cmd_interval_consts(const struct plumb_consts *k, int draws, int defaults,
			struct plumb_consts *out, double *mult, struct plumb_err *err);

/* Is constant i one of the step model's constants the defaults' interval
 * draws when a scenario leaves it open? */
int cmd_step_const(int i);

/* The 5th and 95th percentile of the values of vals[0..draws) that are not
 * NAN (NAN, NAN without any). */
void cmd_draws_interval(const double *vals, int draws, double *lo, double *hi);

/* True when argv has -h or --help. */
int cmd_wants_help(int argc, char **argv);

struct option;
/*
 * The one option parser: getopt_long(3) over argv[0..argc) (argv[0] the
 * command's name) with plumb's messages, so "--name VALUE" and
 * "--name=VALUE" both work. Call cmd_getopt_start() first, then
 * cmd_getopt() until it returns -1; positional arguments are then
 * argv[optind..argc) (GNU getopt moves them after the options; "--" ends
 * the options). Returns the option's val with optarg set, -1 after the
 * last option, or PLUMB_EUSAGE negated after printing "unknown option 'X'"
 * or "option X needs a value" for command cmd. shortopts need not start
 * with ':' (it is added); starting with '-' they keep every argument in
 * its place, a positional one returned as option 1 with optarg set.
 */
void cmd_getopt_start(void);
int cmd_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* The option cmd_getopt() just returned as the user typed its name ("-b",
 * "--minbytes"), without a value, into buf (n bytes); returns buf. */
const char *cmd_optname(char **argv, char *buf, size_t n);

int cmd_topo(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_xfer(int argc, char **argv);
int cmd_coll(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_constants(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plan(int argc, char **argv);
/* Bare `plumb`: the seed comparison. */
int cmd_default(void);
int cmd_bench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_report(int argc, char **argv);

extern const char cmd_topo_usage[];
extern const char cmd_import_usage[];
extern const char cmd_xfer_usage[];
extern const char cmd_coll_usage[];
extern const char cmd_validate_usage[];
extern const char cmd_constants_usage[];
extern const char cmd_predict_usage[];
extern const char cmd_compare_usage[];
extern const char cmd_sweep_usage[];
extern const char cmd_plan_usage[];
extern const char cmd_bench_usage[];
extern const char cmd_calibrate_usage[];
extern const char cmd_render_usage[];
extern const char cmd_trace_usage[];
extern const char cmd_report_usage[];

#endif
