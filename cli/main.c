/*
 * main.c - plumb's thin entry point: find the subcommand in the table and
 * run it. Help is generated from the table (docs/cli.md).
 */
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "err.h"

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
	fputs("\nRun 'plumb COMMAND --help' for a command's options.\n"
	      "Exit status: 0 ok, 2 usage error, 3 invalid input, 4 I/O error, 5 runtime error.\n"
	      "Example: plumb topo scenarios/proxmox-vm-8x-rtxpro6000.yaml\n", f);
}

int main(int argc, char **argv)
{
	const struct plumb_cmd *c;

	setlocale(LC_ALL, "C");
	gsl_set_error_handler_off();
	if (argc < 2)
		return cmd_default();
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
