/*
 * main.c - plumb's thin entry point: find the subcommand in the table and
 * run it. Help is generated from the table (docs/cli.md).
 */
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "cmd.h"
#include "err.h"
#include "scn.h"

static const char common_help[] =
	"\nEvery command also takes:\n"
	"  --calib FILE   constants fitted by `plumb calibrate` override the scenario's;\n"
	"                 predictions carry a 90% interval from the fit's covariance and\n"
	"                 its residual spread (model error)\n";

/*
 * Take `--calib FILE` (or --calib=FILE) out of argv, before any `--`; load
 * it and lay its constants over every scenario. Returns the new argc, or
 * -status on error.
 */
static int take_calib(int argc, char **argv, struct calib_file *c)
{
	const char *path = NULL;
	struct plumb_err err;
	int i, j;

	for (i = 1; i < argc; i++) {
		int drop = 0;
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--calib")) {
			if (i + 1 >= argc)
				return -cmd_usage_error(argv[1], "option --calib needs a value");
			path = argv[i + 1];
			drop = 2;
		} else if (!strncmp(argv[i], "--calib=", 8)) {
			path = argv[i] + 8;
			drop = 1;
		}
		if (drop) {
			for (j = i; j + drop < argc; j++)
				argv[j] = argv[j + drop];
			argc -= drop;
			argv[argc] = NULL;
			i--;
		}
	}
	if (!path)
		return argc;
	plumb_err_clear(&err);
	if (calib_load(path, c, &err) < 0) {
		plumb_err_print(&err);
		return -plumb_err_status(&err);
	}
	{
		struct plumb_consts k;
		consts_defaults(&k);
		calib_apply(c, &k);
		scn_set_overlay(&k);
	}
	scn_set_load_hook(calib_on_load, c);
	cmd_set_calib(c);
	return argc;
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
 * (--gpus, --nccl-p2p-level) once per --and. Stops at "--".
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

int main(int argc, char **argv)
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
		puts("plumb 0.1");
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
	if ((argc = take_calib(argc, argv, &calib)) < 0)
		return -argc;
	return c->run(argc - 1, argv + 1);
}
