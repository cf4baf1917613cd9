/*
 * cmd_constants.c - `plumb constants [SCENARIO]`: the model's named
 * constants, their values (defaults, or a scenario's), units and sources.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "consts.h"
#include "out.h"
#include "scn.h"
#include "yout.h"

const char cmd_constants_usage[] =
	"usage: plumb constants [SCENARIO] [--format table|markdown|yaml] [-o FILE]\n"
	"\n"
	"List every named constant of the model with its scope (gpu: the GPU and its\n"
	"kernel library; engine: the serving engine; nccl: NCCL's tuning model; box:\n"
	"the machine; vm: a virtual machine's host path), value, unit, plausible\n"
	"range, hard bounds and the source of its default. With a SCENARIO, the\n"
	"values it sets in its 'constants:' block replace the defaults (marked *),\n"
	"and the GPU catalog's for its GPU model replace the rest (marked c);\n"
	"a value outside its plausible range is flagged.\n"
	"--format yaml prints a 'constants:' block to paste into a scenario; comment\n"
	"lines before it say which values are set, the catalog's, or implausible.\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error.\n";

/* "# LABEL: a, b." naming the constants whose which[] is set, wrapped
 * before 79 columns; nothing when there are none. Returns their count. */
static int comment_list(FILE *f, const char *label, const unsigned char *which)
{
	int i, n = 0, col = 0;
	for (i = 0; i < K_NCONSTS; i++) {
		const char *name = plumb_const_defs[i].name;
		if (!which[i])
			continue;
		if (!n++) {
			col = fprintf(f, "# %s:", label);
		} else if (col + 2 + (int)strlen(name) + 1 > 78) {
			fputs(",\n#  ", f);
			col = 3;
		} else {
			fputc(',', f);
			col++;
		}
		col += fprintf(f, " %s", name);
	}
	if (n)
		fputs(".\n", f);
	return n;
}

/*
 * The `constants:` block of k through libyaml's emitter, pasteable into a
 * scenario as it is. The emitter writes no comments, so what a comment
 * after each value would say (set, the catalog's, a default, implausible)
 * is said in comment lines before it.
 */
static int write_yaml(FILE *f, const struct plumb_consts *k, const unsigned char *cat,
		      const char *path, struct plumb_err *err)
{
	unsigned char set[K_NCONSTS], odd[K_NCONSTS];
	struct yout y;
	int i, nset, ncat;

	for (i = 0; i < K_NCONSTS; i++) {
		set[i] = k->set[i] != 0;
		odd[i] = !consts_plausible(i, k->v[i]);
	}
	fputs("# A 'constants:' block to paste into a scenario (plumb constants).\n", f);
	nset = comment_list(f, cmd_calib() ? "Set by the scenario or --calib" : "Set by the scenario",
			    set);
	ncat = comment_list(f, "The GPU catalog's for its GPU model", cat);
	fputs(nset + ncat ? "# Every other value is its default.\n" : "# Every value is its default.\n",
	      f);
	comment_list(f, "Outside its plausible range", odd);
	yout_begin(&y, f);
	yout_map(&y, YOUT_BLOCK);
	yout_scalar(&y, "constants", 0);
	yout_map(&y, YOUT_BLOCK);
	for (i = 0; i < K_NCONSTS; i++) {
		yout_scalar(&y, plumb_const_defs[i].name, 0);
		yout_fmt(&y, "%.6g", k->v[i]);
	}
	yout_map_end(&y);
	yout_map_end(&y);
	return yout_end(&y, path, err);
}

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 }
};

int cmd_constants(int argc, char **argv)
{
	struct plumb_err err;
	struct scenario *s = NULL;
	struct plumb_consts k;
	unsigned char cat[K_NCONSTS];
	struct outfile out;
	const char *path = NULL, *outpath = "-", *fmt = "table";
	int i, c, rc;

	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((c = cmd_getopt("constants", argc, argv, "o:", longopts)) != -1) {
		if (c == 'o')
			outpath = optarg;
		else if (c == 'f')
			fmt = optarg;
		else
			return -c;
	}
	for (i = optind; i < argc; i++) {
		if (!path)
			path = argv[i];
		else
			return cmd_usage_error("constants", "unexpected argument '%s'", argv[i]);
	}
	if (strcmp(fmt, "table") && strcmp(fmt, "markdown") && strcmp(fmt, "yaml"))
		return cmd_usage_error("constants", "--format must be table, markdown or yaml, not '%s'", fmt);
	consts_defaults(&k);
	memset(cat, 0, sizeof(cat));
	if (path) {
		if ((rc = scn_load(path, &s, &err)) < 0)
			goto fail;
		k = s->k;
		memcpy(cat, s->k_catalog, sizeof(cat));
	}
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	if (!strcmp(fmt, "yaml")) {
		for (i = 0; i < K_NCONSTS; i++)
			cat[i] = cat[i] && !k.set[i];    /* set wins, as in the table's marks */
		if ((rc = write_yaml(out.f, &k, cat, outpath, &err)) < 0) {
			out_abort(&out);
			goto fail;
		}
	} else {
		if (!strcmp(fmt, "markdown"))
			fputs("| constant | scope | value | unit | plausible | bounds | source of the default |\n"
			      "|---|---|---|---|---|---|---|\n", out.f);
		for (i = 0; i < K_NCONSTS; i++) {
			const struct plumb_const_def *d = &plumb_const_defs[i];
			int odd = !consts_plausible(i, k.v[i]);
			const char *mark = k.set[i] ? "*" : cat[i] ? "c" : " ";
			if (!strcmp(fmt, "markdown"))
				fprintf(out.f, "| `%s` | %s | %.6g%s%s | %s | %g - %g | %g - %g | %s |\n", d->name,
					consts_scope_name(d->scope), k.v[i], k.set[i] ? " *" : cat[i] ? " c" : "",
					odd ? " (implausible)" : "", d->unit, d->plo, d->phi, d->lo, d->hi,
					d->source);
			else
				fprintf(out.f, "%-24s %-6s %12.6g%s %-9s %-13s%s%s\n", d->name,
					consts_scope_name(d->scope), k.v[i], mark, d->unit,
					"", odd ? "OUTSIDE ITS PLAUSIBLE RANGE; " : "", d->source);
		}
	}
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	scn_free(s);
	return PLUMB_OK;
fail:
	plumb_err_print(&err);
	scn_free(s);
	return plumb_err_status(&err);
}
