/*
 * main.c - plumb's thin entry point: find the subcommand in the table and
 * run it. Help is generated from the table (docs/cli.md).
 */
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "err.h"

const struct plumb_cmd plumb_commands[] = {
	{ "topo", cmd_topo, "topology views: topo -m, P2P status, IOMMU groups, NCCL transports, BARs",
	  cmd_topo_usage },
	{ "import", cmd_import, "write a scenario skeleton from `nvidia-smi topo -m` or `lspci` output",
	  cmd_import_usage },
	{ NULL, NULL, NULL, NULL }
};

const struct plumb_cmd *plumb_cmd_find(const char *name)
{
	const struct plumb_cmd *c;
	for (c = plumb_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fputs("plumb: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'plumb %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return PLUMB_EUSAGE;
}

int cmd_wants_help(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}

static void main_help(FILE *f)
{
	const struct plumb_cmd *c;
	fputs("usage: plumb COMMAND [ARGS...]\n\n"
	      "plumb simulates the plumbing between GPUs (PCIe, IOMMU, VMs, NUMA, NVLink).\n\n"
	      "Commands:\n", f);
	for (c = plumb_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fputs("\nRun 'plumb COMMAND --help' for a command's options.\n"
	      "Exit status: 0 ok, 2 usage error, 3 invalid input, 4 I/O error, 5 runtime error.\n"
	      "Example: plumb topo scenarios/proxmox-vm-8x-rtxpro6000.yaml\n", f);
}

int main(int argc, char **argv)
{
	const struct plumb_cmd *c;

	setlocale(LC_ALL, "C");
	gsl_set_error_handler_off();
	if (argc < 2) {
		main_help(stdout);
		return PLUMB_OK;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (c = plumb_cmd_find(argv[2]))) {
			fputs(c->usage, stdout);
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
		return PLUMB_OK;
	}
	return c->run(argc - 1, argv + 1);
}
