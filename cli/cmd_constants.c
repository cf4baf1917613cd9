/*
 * cmd_constants.c - `plumb constants [SCENARIO]`: the model's named
 * constants, their values (defaults, or a scenario's), units and the
 * source of each value in force: the global default's citation, the GPU
 * catalog entry's (with the GPU and what the value rests on), the
 * scenario's `constants:` line, or the calibration given with --calib.
 * `--gpus` lists the GPU catalog's per-GPU values instead.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "cmd.h"
#include "consts.h"
#include "jout.h"
#include "out.h"
#include "scn.h"
#include "yout.h"

const char cmd_constants_usage[] =
	"usage: plumb constants [SCENARIO] [--format table|markdown|yaml|json] [-o FILE]\n"
	"       plumb constants --gpus [SCENARIO] [--format table|markdown|json] [-o FILE]\n"
	"\n"
	"List every named constant of the model with its scope (gpu: the GPU and its\n"
	"kernel library; engine: the serving engine; nccl: NCCL's tuning model; box:\n"
	"the machine; vm: a virtual machine's host path), value, unit, plausible\n"
	"range, hard bounds, where the value comes from and its source. Without a\n"
	"SCENARIO every value is the global default. With one, the source is that\n"
	"of the value in force: the scenario's 'constants:' block (FILE:LINE:COL,\n"
	"marked *), a calibration given with --calib (marked *), the GPU catalog's\n"
	"entry for its GPU model (marked c, with the GPU, 'measured', 'fitted' or\n"
	"'assumed' and the entry's citation), or the global default (a default the\n"
	"catalog states as assumed on that GPU says so and why). A value outside\n"
	"its plausible range is flagged. For the step model's constants a scenario\n"
	"leaves open the range the defaults' interval draws them over is shown:\n"
	"the plausible range, or a per-GPU measurement's spread.\n"
	"--format yaml prints a 'constants:' block to paste into a scenario; comment\n"
	"lines before it say which values are set, the catalog's, or implausible.\n"
	"--format json prints the same as the table, one object per constant.\n"
	"--gpus lists the GPU catalog's per-GPU constants (the bundled catalog, with\n"
	"--gpu-catalog's models; with a SCENARIO its catalog): GPU, constant, value,\n"
	"basis, draw range, source and where the catalog states it.\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error.\n";

/* Where the value of one constant in force comes from. */
struct korigin {
	const char *from;       /* "default", "catalog", "scenario", "calibration" */
	const char *basis;      /* a catalog value's: measured, fitted, assumed, or "" */
	const char *gpu;        /* the catalog entry's id, or NULL */
	char where[600];        /* FILE:LINE[:COL] or the calibration file, or "" */
	char source[1024];      /* the citation, or what set it */
	double dlo, dhi;        /* the defaults' draw range; 0, 0: not drawn */
};

static void origin(const struct scenario *s, const struct plumb_consts *k, int i,
		   struct korigin *o)
{
	const struct plumb_const_def *d = &plumb_const_defs[i];
	const struct scn_gpu_model *g = s && s->k_model >= 0 ? &s->catalog->gpus[s->k_model] : NULL;
	const struct scn_gpu_ksrc *ks = scn_gpu_ksrc_find(g, i);
	const struct calib_file *cf = cmd_calib();

	memset(o, 0, sizeof(*o));
	o->from = "default";
	o->basis = "";
	if (k->set[i] && s && s->k_line[i] > 0) {
		o->from = "scenario";
		snprintf(o->where, sizeof(o->where), "%s:%d:%d", s->path, s->k_line[i], s->k_col[i]);
		snprintf(o->source, sizeof(o->source), "the scenario's constants: block, %s",
			 o->where);
	} else if (k->set[i]) {
		o->from = "calibration";
		snprintf(o->where, sizeof(o->where), "%s", cf ? cf->path : "");
		snprintf(o->source, sizeof(o->source), "fitted by plumb calibrate%s%s",
			 cf ? ", " : "", cf ? cf->path : "");
	} else if (s && s->k_catalog[i] && g) {
		o->from = "catalog";
		o->gpu = g->id;
		if (ks) {
			o->basis = consts_basis_name(ks->basis);
			snprintf(o->where, sizeof(o->where), "%s:%d:%d", g->cat_file, ks->line, ks->col);
			snprintf(o->source, sizeof(o->source), "%s, %s: %s (%s)", g->id, o->basis,
				 ks->source, o->where);
		} else {
			snprintf(o->where, sizeof(o->where), "%s", g->cat_file);
			snprintf(o->source, sizeof(o->source), "%s: the catalog entry's value, no "
				 "source of its own (its comments in %s)", g->id, g->cat_file);
		}
	} else if (ks && ks->basis == BASIS_ASSUMED) {
		o->basis = "assumed";
		o->gpu = g->id;
		snprintf(o->where, sizeof(o->where), "%s:%d:%d", g->cat_file, ks->line, ks->col);
		snprintf(o->source, sizeof(o->source), "%s, assumed: %s (%s); the default: %s",
			 g->id, ks->source, o->where, d->source);
	} else {
		snprintf(o->source, sizeof(o->source), "%s", d->source);
	}
	if (cmd_step_const(i) && !k->set[i])
		consts_draw_range(k, i, &o->dlo, &o->dhi);
}

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
 * after each value would say (set by the scenario or a calibration, the
 * catalog's and on what basis, assumed on this GPU, implausible) is said
 * in comment lines before it; the table and json give the citations.
 */
static int write_yaml(FILE *f, const struct scenario *s, const struct plumb_consts *k,
		      const char *path, struct plumb_err *err)
{
	static const char *const bases[] = { "measured", "fitted", "assumed", "" };
	unsigned char scn[K_NCONSTS], cal[K_NCONSTS], cat[4][K_NCONSTS], asm_[K_NCONSTS],
		      odd[K_NCONSTS];
	const char *gpu = s && s->k_model >= 0 ? s->catalog->gpus[s->k_model].id : "";
	char label[160];
	struct korigin o;
	struct yout y;
	int i, b, n = 0;

	memset(cat, 0, sizeof(cat));
	for (i = 0; i < K_NCONSTS; i++) {
		origin(s, k, i, &o);
		scn[i] = !strcmp(o.from, "scenario");
		cal[i] = !strcmp(o.from, "calibration");
		for (b = 0; b < 4; b++)
			cat[b][i] = !strcmp(o.from, "catalog") && !strcmp(o.basis, bases[b]);
		asm_[i] = !strcmp(o.from, "default") && !strcmp(o.basis, "assumed");
		odd[i] = !consts_plausible(i, k->v[i]);
	}
	fputs("# A 'constants:' block to paste into a scenario (plumb constants).\n", f);
	n += comment_list(f, "Set by the scenario", scn);
	n += comment_list(f, "Set by the calibration (--calib)", cal);
	for (b = 0; b < 4; b++) {
		snprintf(label, sizeof(label), "The GPU catalog's for %s%s%s", gpu,
			 bases[b][0] ? ", " : " (no source of their own)", bases[b]);
		n += comment_list(f, label, cat[b]);
	}
	fputs(n ? "# Every other value is its default.\n" : "# Every value is its default.\n", f);
	snprintf(label, sizeof(label), "Defaults the GPU catalog states as assumed on %s", gpu);
	comment_list(f, label, asm_);
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

/* A [lo, hi] pair, or null when lo and hi are 0 (not drawn). */
static json_t *jpair(double lo, double hi)
{
	json_t *a;
	if (lo == 0 && hi == 0)
		return json_null();
	a = json_array();
	jout_push(a, jout_real(lo, 9));
	jout_push(a, jout_real(hi, 9));
	return a;
}

/* "from, basis" of o for a table cell: "catalog measured", "default". */
static const char *from_cell(const struct korigin *o, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s", o->from, o->basis[0] ? " " : "", o->basis);
	return buf;
}

static int write_consts(FILE *f, const char *fmt, const struct scenario *s,
			const struct plumb_consts *k, const char *path, struct plumb_err *err)
{
	json_t *arr = NULL;
	char cell[64], draws[64];
	int i;

	if (!strcmp(fmt, "json"))
		arr = json_array();
	else if (!strcmp(fmt, "markdown"))
		fputs("| constant | scope | value | unit | plausible | bounds | from | draws | source |\n"
		      "|---|---|---|---|---|---|---|---|---|\n", f);
	for (i = 0; i < K_NCONSTS; i++) {
		const struct plumb_const_def *d = &plumb_const_defs[i];
		const char *mark = k->set[i] ? "*" : s && s->k_catalog[i] ? "c" : " ";
		int odd = !consts_plausible(i, k->v[i]);
		struct korigin o;

		origin(s, k, i, &o);
		from_cell(&o, cell, sizeof(cell));
		if (o.dlo > 0)
			snprintf(draws, sizeof(draws), "%g - %g", o.dlo, o.dhi);
		else
			snprintf(draws, sizeof(draws), "-");
		if (arr) {
			json_t *e = json_object();
			jout_set(e, "name", jout_str(d->name));
			jout_set(e, "scope", jout_str(consts_scope_name(d->scope)));
			jout_set(e, "value", jout_real(k->v[i], 9));
			jout_set(e, "unit", jout_str(d->unit));
			jout_set(e, "plausible", jpair(d->plo, d->phi));
			jout_set(e, "bounds", jpair(d->lo, d->hi));
			jout_set(e, "implausible", json_boolean(odd));
			jout_set(e, "from", jout_str(o.from));
			jout_set(e, "basis", jout_str(o.basis));
			jout_set(e, "gpu", o.gpu ? jout_str(o.gpu) : json_null());
			jout_set(e, "where", o.where[0] ? jout_str(o.where) : json_null());
			jout_set(e, "draws", jpair(o.dlo, o.dhi));
			jout_set(e, "source", jout_str(o.source));
			jout_push(arr, e);
		} else if (!strcmp(fmt, "markdown")) {
			fprintf(f, "| `%s` | %s | %.6g%s%s | %s | %g - %g | %g - %g | %s | %s | %s |\n",
				d->name, consts_scope_name(d->scope), k->v[i],
				mark[0] != ' ' ? " " : "", mark[0] != ' ' ? mark : "", d->unit, d->plo,
				d->phi, d->lo, d->hi, cell, draws, o.source);
			if (odd)
				fprintf(f, "| | | (implausible) | | | | | | |\n");
		} else {
			fprintf(f, "%-24s %-6s %12.6g%s %-9s %-18s%s%s%s%s%s\n", d->name,
				consts_scope_name(d->scope), k->v[i], mark, d->unit, cell,
				odd ? "OUTSIDE ITS PLAUSIBLE RANGE; " : "", o.source,
				o.dlo > 0 ? " [draws " : "", o.dlo > 0 ? draws : "",
				o.dlo > 0 ? "]" : "");
		}
	}
	if (arr) {
		json_t *doc = json_object();
		const char *gpu = s && s->k_model >= 0 ? s->catalog->gpus[s->k_model].id : NULL;
		int rc;
		jout_set(doc, "scenario", s ? jout_str(s->path) : json_null());
		jout_set(doc, "gpu", gpu ? jout_str(gpu) : json_null());
		jout_set(doc, "calibration", cmd_calib() ? jout_str(cmd_calib()->path) : json_null());
		jout_set(doc, "constants", arr);
		rc = jout_write(f, doc, 2, err);
		json_decref(doc);
		if (rc < 0)
			return rc;
	}
	(void)path;
	return 0;
}

/*
 * --gpus: every constant each catalog entry gives, with its basis, the
 * range the defaults' draws take for it and its source; one row per entry
 * without constants ("global defaults").
 */
static int write_gpus(FILE *f, const char *fmt, const struct scn_catalog *c,
		      struct plumb_err *err)
{
	json_t *arr = NULL;
	int gi, i;

	if (!strcmp(fmt, "json"))
		arr = json_array();
	else if (!strcmp(fmt, "markdown"))
		fputs("| GPU | constant | value | basis | draws | source | where |\n"
		      "|---|---|---|---|---|---|---|\n", f);
	for (gi = 0; gi < c->n; gi++) {
		const struct scn_gpu_model *g = &c->gpus[gi];
		int rows = 0;
		for (i = 0; i < K_NCONSTS; i++) {
			const struct plumb_const_def *d = &plumb_const_defs[i];
			const struct scn_gpu_ksrc *ks = scn_gpu_ksrc_find(g, i);
			const char *basis = ks ? consts_basis_name(ks->basis) : "given";
			double v = g->k.set[i] ? g->k.v[i] : d->def, lo = 0, hi = 0;
			char where[600], val[64], draws[64];
			if (!g->k.set[i] && !ks)
				continue;
			rows++;
			if (ks && ks->lo > 0) {
				lo = ks->lo;
				hi = ks->hi;
			} else if (cmd_step_const(i)) {
				lo = d->plo;
				hi = d->phi;
			}
			snprintf(where, sizeof(where), ks ? "%s:%d:%d" : "%s", g->cat_file,
				 ks ? ks->line : 0, ks ? ks->col : 0);
			snprintf(val, sizeof(val), g->k.set[i] ? "%.6g" : "%.6g (default)", v);
			snprintf(draws, sizeof(draws), lo > 0 ? "%g - %g" : "-", lo, hi);
			if (arr) {
				json_t *e = json_object();
				jout_set(e, "gpu", jout_str(g->id));
				jout_set(e, "name", jout_str(d->name));
				jout_set(e, "value", jout_real(v, 9));
				jout_set(e, "default", json_boolean(!g->k.set[i]));
				jout_set(e, "basis", jout_str(basis));
				jout_set(e, "draws", jpair(lo, hi));
				jout_set(e, "source", jout_str(ks ? ks->source : ""));
				jout_set(e, "where", jout_str(where));
				jout_push(arr, e);
			} else if (!strcmp(fmt, "markdown")) {
				fprintf(f, "| `%s` | `%s` | %s | %s | %s | %s | %s |\n", g->id, d->name, val,
					basis, draws, ks ? ks->source : "the entry's comment", where);
			} else {
				fprintf(f, "%-14s %-22s %-16s %-9s %-17s %s (%s)\n", g->id, d->name, val,
					basis, draws, ks ? ks->source : "the entry's comment", where);
			}
		}
		if (rows || arr)
			continue;
		if (!strcmp(fmt, "markdown"))
			fprintf(f, "| `%s` | every one | the global default | assumed | plausible | "
				"no kernel measurement in the catalog | %s |\n", g->id, g->cat_file);
		else
			fprintf(f, "%-14s %-22s %-16s %-9s %-17s no kernel measurement in the catalog "
				"(%s)\n", g->id, "every one", "global default", "assumed", "plausible",
				g->cat_file);
	}
	if (arr) {
		json_t *doc = json_object();
		int rc;
		jout_set(doc, "gpu_constants", arr);
		rc = jout_write(f, doc, 2, err);
		json_decref(doc);
		return rc;
	}
	return 0;
}

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "gpus", no_argument, NULL, 'g' },
	{ NULL, 0, NULL, 0 }
};

int cmd_constants(int argc, char **argv)
{
	struct plumb_err err;
	struct scenario *s = NULL;
	struct plumb_consts k;
	struct outfile out;
	const char *path = NULL, *outpath = "-", *fmt = "table";
	int i, c, rc, gpus = 0;

	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((c = cmd_getopt("constants", argc, argv, "o:", longopts)) != -1) {
		if (c == 'o')
			outpath = optarg;
		else if (c == 'f')
			fmt = optarg;
		else if (c == 'g')
			gpus = 1;
		else
			return -c;
	}
	for (i = optind; i < argc; i++) {
		if (!path)
			path = argv[i];
		else
			return cmd_usage_error("constants", "unexpected argument '%s'", argv[i]);
	}
	if (strcmp(fmt, "table") && strcmp(fmt, "markdown") && strcmp(fmt, "yaml") &&
	    strcmp(fmt, "json"))
		return cmd_usage_error("constants", "--format must be table, markdown, yaml or json, "
				       "not '%s'", fmt);
	if (gpus && !strcmp(fmt, "yaml"))
		return cmd_usage_error("constants", "--gpus prints table, markdown or json, not yaml");
	consts_defaults(&k);
	if (path) {
		if ((rc = scn_load(path, &s, &err)) < 0)
			goto fail;
		k = s->k;
	}
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	if (gpus) {
		const struct scn_catalog *cat = s ? s->catalog : scn_catalog_run(&err);
		rc = cat ? write_gpus(out.f, fmt, cat, &err) : -PLUMB_ERUNTIME;
	} else if (!strcmp(fmt, "yaml")) {
		rc = write_yaml(out.f, s, &k, outpath, &err);
	} else {
		rc = write_consts(out.f, fmt, s, &k, outpath, &err);
	}
	if (rc < 0) {
		out_abort(&out);
		goto fail;
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
