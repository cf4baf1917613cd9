/*
 * main.c - plumb's thin entry point: find the subcommand in the table and
 * run it. Help is generated from the table (docs/cli.md).
 */
#include <gsl/gsl_errno.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "cmd.h"
#include "err.h"
#include "out.h"
#include "scn.h"

static const char common_help[] =
	"\nEvery command also takes:\n"
	"  --calib FILE   constants fitted by `plumb calibrate` override the scenario's;\n"
	"                 predictions carry a 90% interval from the fit's covariance and\n"
	"                 its residual spread (model error)\n"
	"  --gpu-catalog FILE  GPU models of a catalog file (the format of\n"
	"                 scenarios/catalog/gpus.yaml) that scenarios may name besides\n"
	"                 the built-in ones\n";

/*
 * Take option `name VALUE` (or name=VALUE) out of argv, before any `--`:
 * *argc shrinks. Returns the value, NULL when absent; *status is set to a
 * usage error's when the value is missing.
 */
static const char *take_opt(int *argc, char **argv, const char *name, int *status)
{
	const char *val = NULL;
	size_t n = strlen(name);
	int i, j;

	for (i = 1; i < *argc; i++) {
		int drop = 0;
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], name)) {
			if (i + 1 >= *argc) {
				*status = cmd_usage_error(argv[1], "option %s needs a value", name);
				return NULL;
			}
			val = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], name, n) && argv[i][n] == '=') {
			val = argv[i] + n + 1;
			drop = 1;
		}
		if (drop) {
			for (j = i; j + drop < *argc; j++)
				argv[j] = argv[j + drop];
			*argc -= drop;
			argv[*argc] = NULL;
			i--;
		}
	}
	return val;
}

/*
 * Take option `name FILE` out of argv and hand FILE to load(FILE, arg, err).
 * Returns the new argc, or -status when the value is missing or load fails
 * (its error printed).
 */
static int take_file(int argc, char **argv, const char *name,
		     int (*load)(const char *path, void *arg, struct plumb_err *err), void *arg)
{
	struct plumb_err err;
	int status = 0;
	const char *path = take_opt(&argc, argv, name, &status);
	if (status)
		return -status;
	if (!path)
		return argc;
	plumb_err_clear(&err);
	if (load(path, arg, &err) < 0) {
		plumb_err_print(&err);
		return -plumb_err_status(&err);
	}
	return argc;
}

/* --gpu-catalog FILE: its GPU models under every scenario. */
static int load_gpu_catalog(const char *path, void *arg, struct plumb_err *err)
{
	(void)arg;
	return scn_set_gpu_catalog(path, err);
}

/* --calib FILE: its constants laid over every scenario. */
static int load_calib(const char *path, void *arg, struct plumb_err *err)
{
	struct calib_file *c = arg;
	struct plumb_consts k;
	int rc;
	if ((rc = calib_load(path, c, err)) < 0)
		return rc;
	consts_defaults(&k);
	calib_apply(c, &k);
	scn_set_overlay(&k);
	scn_set_load_hook(calib_on_load, c);
	cmd_set_calib(c);
	return 0;
}

static void main_help(FILE *f)
{
	const struct plumb_cmd *c;
	fputs("usage: plumb COMMAND [ARGS...]\n"
	      "       plumb              (the seed comparison: GLM-5 on the Proxmox VM, bare metal\n"
	      "                           and switch chassis; run from the plumb directory)\n\n"
	      "plumb simulates the plumbing between GPUs (PCIe, IOMMU, VMs, NUMA, NVLink).\n\n"
	      "Commands:\n", f);
	for (c = plumb_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fputs(common_help, f);
	fputs("\nRun 'plumb COMMAND --help' for a command's options.\n"
	      "Exit status: 0 ok, 2 usage error, 3 invalid input, 4 I/O error, 5 runtime error.\n"
	      "Example: plumb topo scenarios/proxmox-vm-8x-rtxpro6000.yaml\n", f);
}

/* An option name: "--word..." or "-x" (a value such as "-1" or "-" is not). */
static int is_option(const char *a)
{
	return (a[0] == '-' && a[1] == '-' && a[2] >= 'a' && a[2] <= 'z') ||
	       (a[0] == '-' && ((a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z')) &&
		!a[2]);
}

/* Length of option a's name: up to '=' in "--name=value". */
static size_t option_len(const char *a)
{
	const char *eq = strchr(a, '=');
	return eq ? (size_t)(eq - a) : strlen(a);
}

/*
 * What every command refuses alike, before its own parsing: an empty
 * argument (`--layout ''` is not the default layout) and an option given
 * twice (the last would silently win). Repeatable: calibrate's --data,
 * --and and --pin, render's --scenario; calibrate's per-scenario options
 * (--gpus, --nccl-p2p-level, --leave-out) once per --and. Stops at "--".
 */
static int check_args(const char *cmd, int argc, char **argv)
{
	static const char *const repeatable[] = { "--data", "--and", "--pin", "--scenario", NULL };
	int i, j, k, from = 2;

	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!a[0])
			return i > 2 && is_option(argv[i - 1])
				? cmd_usage_error(cmd, "option %s needs a value, not an empty one", argv[i - 1])
				: cmd_usage_error(cmd, "empty argument");
		if (!is_option(a))
			continue;
		if (!strcmp(a, "--and"))
			from = i;   /* a new scenario's options */
		for (k = 0; repeatable[k] && strcmp(a, repeatable[k]); k++)
			;
		if (repeatable[k])
			continue;
		if (a[option_len(a)] == '=' && !a[option_len(a) + 1])
			return cmd_usage_error(cmd, "option %.*s needs a value, not an empty one",
					       (int)option_len(a), a);
		for (j = from; j < i; j++)
			if (is_option(argv[j]) && option_len(argv[j]) == option_len(a) &&
			    !strncmp(argv[j], a, option_len(a)))
				return cmd_usage_error(cmd, "option %.*s given twice",
						       (int)option_len(a), a);
	}
	return 0;
}

static int run(int argc, char **argv);

/* Every command's bytes on stdout reach it, or exit 4 (docs/cli.md). */
int main(int argc, char **argv)
{
	struct plumb_err err;
	int rc;
#ifdef __GLIBC__
	/* A step builds and frees op lists of a few hundred kB each, tens of
	 * thousands of times in a serving run: glibc would hand each to mmap
	 * or trim the heap after it, and the pages would fault in again every
	 * step (a fifth of a KV-bound run's CPU). Freed memory stays in the
	 * heap for the next step instead. */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	rc = run(argc, argv);
	if (out_stdout_close(&err) < 0) {
		if (rc == PLUMB_OK)
			plumb_err_print(&err);
		return rc == PLUMB_OK ? PLUMB_EIO : rc;
	}
	return rc;
}

static int run(int argc, char **argv)
{
	static struct calib_file calib;
	const struct plumb_cmd *c;

	setlocale(LC_ALL, "C");
	gsl_set_error_handler_off();
	if (argc < 2)
		return cmd_default();
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (c = plumb_cmd_find(argv[2]))) {
			fputs(c->usage, stdout);
			fputs(common_help, stdout);
			return PLUMB_OK;
		}
		main_help(stdout);
		return PLUMB_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts(PLUMB_VERSION_STRING);
		return PLUMB_OK;
	}
	c = plumb_cmd_find(argv[1]);
	if (!c)
		return cmd_usage_error(NULL, "unknown command '%s'", argv[1]);
	if (cmd_wants_help(argc - 1, argv + 1)) {
		fputs(c->usage, stdout);
		fputs(common_help, stdout);
		return PLUMB_OK;
	}
	if (check_args(argv[1], argc, argv))
		return PLUMB_EUSAGE;
	if ((argc = take_file(argc, argv, "--gpu-catalog", load_gpu_catalog, NULL)) < 0 ||
	    (argc = take_file(argc, argv, "--calib", load_calib, &calib)) < 0)
		return -argc;
	return c->run(argc - 1, argv + 1);
}
