/*
 * study_page.c - the report as a whole: running the prediction and the
 * comparison's table into the temporary directory, each box's topology
 * (findings and picture), the assumptions and the calibration, the page's
 * frame, and study_write, which puts them together (study.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consts.h"
#include "out.h"
#include "render.h"
#include "study_int.h"

static void esc(FILE *f, const char *s)
{
	out_xml(f, s);
}

/* "PCIe VM, q35 ..." as plumb topo says it. */
static const char *platform(const struct scenario *s)
{
	if (s->vm.mode != SCN_VM)
		return "bare metal";
	if (s->vm.chipset == SCN_Q35)
		return s->vm.pcie_passthrough ? "VM, q35 with PCIe passthrough" : "VM, q35 without pcie=1";
	return "VM, i440fx";
}

static int boxes(FILE *f, struct study *st, struct study_tmp *t, struct plumb_err *err)
{
	int j, rc;
	fputs("<h2>The boxes</h2>\n", f);
	for (j = 0; j < st->ns; j++) {
		const struct scenario *s = st->s[j];
		struct rdr_topo_opts to;
		static char topo[] = "topo", dash_o[] = "-o";
		char name[48], pre[32], *txt, *p, *end, *svg, *tf, *argv[5];
		int v, drawn = rdr_topo_drawn_gpus(s);
		fputs("<h3>", f);
		esc(f, s->name);
		fprintf(f, "</h3>\n<p>%d GPU%s (", s->ngpus, s->ngpus == 1 ? "" : "s");
		esc(f, s->ngpus ? s->nodes[s->gpu_node[0]].model : "");
		fprintf(f, "), %s; file <code>", platform(s));
		esc(f, s->path);
		fputs("</code>.", f);
		if (s->description[0]) {
			fputc(' ', f);
			esc(f, s->description);
		}
		fputs("</p>\n", f);
		snprintf(name, sizeof(name), "topo-%d.txt", j);
		if (!(tf = study_tmp_file(t, name, err)))
			return -PLUMB_ERUNTIME;
		argv[0] = topo;
		argv[1] = st->o->paths[j];
		argv[2] = dash_o;
		argv[3] = tf;
		argv[4] = NULL;
		if ((rc = st->o->cmd.topo(4, argv)) != 0)
			return plumb_err_set(err, rc, s->path, 0, 0, "the topology report failed "
					     "(its error is above)") ;
		if (!(txt = study_slurp(tf)))
			return plumb_err_set(err, PLUMB_EIO, tf, 0, 0, "cannot read the topology report back");
		if ((p = strstr(txt, "== Findings ==\n"))) {
			p += strlen("== Findings ==\n");
			fputs("<ul class=\"find\">\n", f);
			while (*p) {
				int more;
				end = strchr(p, '\n');
				if (!end)
					end = p + strlen(p);
				more = *end != 0;
				*end = 0;
				if (!strncmp(p, "- ", 2)) {
					fputs("<li>", f);
					esc(f, p + 2);
					fputs("</li>\n", f);
				}
				p = end + more;
			}
			fputs("</ul>\n", f);
		}
		free(txt);
		/* a VM: the host's tree and the guest's, each at the page's width */
		for (v = 0; v < (s->vm.mode == SCN_VM ? 2 : 1); v++) {
			snprintf(name, sizeof(name), "topo-%d-%d.svg", j, v);
			if (!(svg = study_tmp_file(t, name, err)))
				return -PLUMB_ERUNTIME;
			rdr_topo_opts_init(&to);
			to.view = s->vm.mode != SCN_VM ? RDR_VIEW_DEFAULT : v ? RDR_VIEW_GUEST : RDR_VIEW_HOST;
			if (drawn > 1) {
				/* the farthest pair's route the picture shows, with
				 * what it costs */
				to.path_a = 0;
				to.path_b = drawn - 1;
			}
			if ((rc = rdr_topology(svg, s, &to, err)) < 0)
				return rc;
			snprintf(pre, sizeof(pre), "topo%d%d-", j, v);
			fputs("<figure>\n", f);
			if ((rc = study_inline_svg(f, svg, pre, v ? "PCIe topology, the guest's view" :
					     "PCIe topology", err)) < 0)
				return rc;
			fputs("<figcaption>", f);
			if (drawn > 1)
				fprintf(f, "Highlighted: a transfer from GPU0 to GPU%d, the way it goes "
					"and what it costs. ", drawn - 1);
			if (drawn < s->ngpus)
				fprintf(f, "The picture draws the first hosts in full (GPUs 0&ndash;%d of "
					"%d) and names the others in one frame. ", drawn - 1, s->ngpus);
			if (s->vm.mode != SCN_VM)
				fputs("The PCIe tree on bare metal: sockets, root complexes, switches and GPUs "
				      "with each link's generation and width; dashed outlines are IOMMU "
				      "groups.", f);
			else if (!v)
				fputs("The physical machine under the VM: sockets, root complexes and GPUs "
				      "with each link's generation and width; dashed outlines are IOMMU "
				      "groups.", f);
			else
				fputs("What the VM shows its GPUs: the tree the hypervisor builds. NCCL and "
				      "nvidia-smi in the guest see only this.", f);
			fputs("</figcaption>\n</figure>\n", f);
		}
	}
	return 0;
}

static void assumptions(FILE *f, const struct study *st, const struct study_opts *o)
{
	json_t *mi = json_object_get(st->doc, "model_info");
	int j, i, xi;
	fputs("<h2>Assumptions</h2>\n<ul>\n<li>Model: ", f);
	esc(f, study_str(mi, "name"));
	fprintf(f, ", %.0fB parameters (%.0fB active per token), %s weights, %s KV cache.</li>\n",
		study_num(mi, "params_total") / 1e9, study_num(mi, "params_active") / 1e9,
		study_str(st->doc, "weights"), study_str(st->doc, "kv"));
	fputs("<li>Load: closed loop of ", f);
	for (xi = 0; xi < st->nx; xi++)
		fprintf(f, "%s%d", xi ? ", " : "", st->xs[xi]);
	fputs(" concurrent requests, each ", f);
	esc(f, o->input);
	fputs(" prompt tokens and ", f);
	esc(f, o->output);
	fputs(" generated tokens, ", f);
	esc(f, o->context);
	fputs(" of them already cached; layouts ", f);
	for (i = 0; i < st->nlayouts; i++)
		fprintf(f, "%s%s", i ? ", " : "", st->layouts[i]);
	fputs(".</li>\n", f);
	if (o->npass) {
		fputs("<li>Options: <code>", f);
		for (i = 0; i < o->npass; i++) {
			if (i)
				fputc(' ', f);
			esc(f, o->pass[i]);
		}
		fputs("</code>.</li>\n", f);
	}
	for (j = 0; j < st->ns; j++) {
		const struct scenario *s = st->s[j];
		int nset = 0;
		fputs("<li>", f);
		esc(f, s->name);
		{
			/* the stack the prediction assumed (predict's JSON), else
			 * the scenario's own section */
			json_t *es = json_array_get(json_object_get(st->doc, "engine_stacks"),
						    (size_t)j);
			if (json_is_string(es)) {
				fputs(": engine ", f);
				esc(f, json_string_value(es));
			} else {
				fprintf(f, ": engine %s, CUDA graphs %s",
					scn_engine_name(s->serving.engine),
					s->serving.cuda_graphs ? "on" : "off");
			}
		}
		if (s->nccl_level >= 0)
			fprintf(f, ", NCCL_P2P_LEVEL=%s", topo_nccl_path_str(s->nccl_level));
		if (s->serving.mtp_draft > 0)
			fprintf(f, ", %d MTP draft token%s", s->serving.mtp_draft,
				s->serving.mtp_draft == 1 ? "" : "s");
		fputs("; constants set (the rest are the defaults of <code>plumb constants</code>): ", f);
		for (i = 0; i < K_NCONSTS; i++)
			if (s->k.set[i]) {
				fprintf(f, "%s<code>%s</code> = %g %s", nset++ ? ", " : "",
					plumb_const_defs[i].name, s->k.v[i], plumb_const_defs[i].unit);
			}
		if (!nset)
			fputs("none", f);
		fputs(".</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void calibration(FILE *f, const struct study *st, const struct study_opts *o)
{
	const struct calib_file *c = o->calib;
	int i;
	fputs("<h2>Calibration</h2>\n", f);
	if (!c) {
		fputs("<p>None: every constant a scenario does not set has its documented default "
		      "(<code>plumb constants</code> lists each with its source).", f);
		if (st->interval)
			fputs(" The ranges come from drawing the step constants left at their defaults "
			      "over their plausible ranges; a calibration to your own measurements "
			      "(<code>plumb calibrate</code>, then <code>--calib FILE</code>) narrows "
			      "them.", f);
		fputs("</p>\n", f);
		return;
	}
	fputs("<p>Constants fitted by <code>plumb calibrate</code>, file <code>", f);
	esc(f, c->path);
	fputs("</code>", f);
	if (c->npoints)
		fprintf(f, ", on %d measured points", c->npoints);
	if (c->nscn) {
		fputs(" of ", f);
		for (i = 0; i < c->nscn; i++) {
			fputs(i ? ", " : "", f);
			esc(f, c->scn[i].name);
		}
	}
	if (c->sd > 0)
		fprintf(f, "; residual spread %.1f%%", 100 * c->sd);
	fputs(".</p>\n<div class=\"wide\"><table>\n<thead><tr><th class=\"l\">constant</th>"
	      "<th>value</th><th class=\"l\">unit</th><th class=\"l\">for</th></tr></thead>\n<tbody>\n",
	      f);
	for (i = 0; i < c->n; i++) {
		const struct plumb_const_def *d = &plumb_const_defs[c->idx[i]];
		fprintf(f, "<tr><td class=\"l\"><code>%s</code></td><td>%g</td><td class=\"l\">%s</td>"
			"<td class=\"l\">", d->name, c->value[i], d->unit);
		esc(f, c->grp[i] < 0 ? "every box" : c->scn[c->grp[i]].name);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
}

static const char css[] =
	"body{font-family:\"DejaVu Sans\",Verdana,sans-serif;max-width:1100px;margin:0 auto;"
	"padding:12px 24px;color:#222;line-height:1.45}\n"
	"h1{font-size:1.55em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:1px solid #ccc;"
	"padding-bottom:3px;margin-top:1.8em}h3{font-size:1.05em}\n"
	"figure{margin:1em 0}figure svg{display:block;width:100%;height:auto}"
	"figcaption{font-size:.9em;color:#444}\n"
	".wide{max-width:100%}table{border-collapse:collapse;font-size:.85em;width:100%}"
	"th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;vertical-align:top;"
	"overflow-wrap:anywhere}th{background:#f2f2f2}.l{text-align:left}.n{white-space:nowrap}\n"
	".answer{background:#f4f8fd;border-left:4px solid #1f77b4;padding:2px 16px 8px}"
	".answer h2{border:0;margin-top:.6em}\n"
	".note{color:#555;font-size:.9em}.rng{color:#666}code{overflow-wrap:anywhere}"
	"p,li{overflow-wrap:anywhere}\n"
	".dep{margin:.2em 0}.d1{margin-left:1.5em}.d2{margin-left:3em;color:#444}\n"
	".lead{font-size:1.15em;background:#f4f8fd;border-left:4px solid #1f77b4;padding:8px 16px}"
	"td.ok{color:#1a7f37}td.miss{color:#b42318}footer{margin-top:2em;border-top:1px solid #ccc}\n";

static int write_page(const struct study_opts *o, struct study *st, const char *depends,
		      struct study_tmp *t, struct plumb_err *err)
{
	struct outfile out;
	char *svg = study_tmp_file(t, "throughput.svg", err);
	json_t *mi = json_object_get(st->doc, "model_info");
	int j, rc;
	FILE *f;

	if (!svg)
		return -PLUMB_ERUNTIME;
	if ((rc = out_open(&out, o->out, err)) < 0)
		return rc;
	f = out.f;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
	esc(f, study_str(mi, "name"));
	fputs(": ", f);
	for (j = 0; j < st->ns; j++) {
		fputs(j ? (j + 1 == st->ns ? " and " : ", ") : "", f);
		esc(f, st->s[j]->name);
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	esc(f, study_str(mi, "name"));
	fputs(st->ns > 1 ? " on " : " on ", f);
	for (j = 0; j < st->ns; j++) {
		fputs(j ? (j + 1 == st->ns ? " and " : ", ") : "", f);
		esc(f, st->s[j]->name);
	}
	fputs("</h1>\n<p class=\"note\">Predicted decode throughput from a simulation of the "
	      "boxes' PCIe, NVLink, NUMA and virtualisation plumbing (plumb). Every number below is "
	      "a prediction, not a measurement.</p>\n", f);
	study_lead(f, st);
	study_answer(f, st);
	if ((rc = study_figure_tput(f, st, svg, err)) < 0)
		goto fail;
	if ((rc = study_table(f, st, err)) < 0)
		goto fail;
	study_latency(f, st);
	study_money(f, st);
	if ((rc = study_diagnosis(f, st, depends, t, err)) < 0)
		goto fail;
	if ((rc = boxes(f, st, t, err)) < 0)
		goto fail;
	assumptions(f, st, o);
	calibration(f, st, o);
	study_footer(f, o);
	fputs("</body>\n</html>\n", f);
	return out_commit(&out, err);
fail:
	out_abort(&out);
	return rc;
}


/*
 * Without --layout, when a box has several hosts of the same GPU count G:
 * predict's default (tp over each box's GPUs, smallest first) and dpHtpG for
 * each such box of H hosts, as one "--layout" value (caller frees). NULL
 * when no box has several hosts (predict's default stands) or out of
 * memory (*oom set).
 */
/* 1 when item is one of the comma-separated items of list. */
static int has_item(const char *list, const char *item)
{
	size_t n = strlen(item);
	const char *p = list;
	while ((p = strstr(p, item))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

static char *default_layouts(const struct study *st, int *oom)
{
	size_t cap = 32 * (size_t)st->ns + 1, len = 0;
	char *l = NULL, one[48];
	int i, h, g, multi = 0;
	*oom = 0;
	for (i = 0; i < st->ns; i++)
		multi |= st->s[i]->nhosts > 1;
	if (!multi || st->o->layout_given)
		return NULL;
	/* at most two items of under 32 bytes per box */
	if (!(l = malloc(2 * cap))) {
		*oom = 1;
		return NULL;
	}
	l[0] = 0;
	/* predict's default: each box's GPU count once, smallest first */
	for (g = 0;;) {
		int next = 0;
		for (i = 0; i < st->ns; i++)
			if (st->s[i]->ngpus > g && (!next || st->s[i]->ngpus < next))
				next = st->s[i]->ngpus;
		if (!next)
			break;
		g = next;
		len += (size_t)snprintf(l + len, 2 * cap - len, "%stp%d", len ? "," : "", g);
	}
	/* a copy per host on each box of several alike hosts */
	for (i = 0; i < st->ns; i++) {
		const struct scenario *s = st->s[i];
		g = s->nhosts > 1 ? s->hosts[0].ngpus : 0;
		for (h = 1; h < s->nhosts; h++)
			if (s->hosts[h].ngpus != g)
				g = 0;
		if (g < 1)
			continue;
		snprintf(one, sizeof(one), "dp%dtp%d", s->nhosts, g);
		if (has_item(l, one))
			continue;       /* from an earlier box */
		len += (size_t)snprintf(l + len, 2 * cap - len, ",%s", one);
	}
	return l;
}

/* Run compare (several boxes) or predict (one) into path with format fmt;
 * extra options appended last. Returns the command's exit status. */
static int run_pred(const struct study_opts *o, char *fmt, char *path, char **extra, int nextra)
{
	static char compare[] = "compare", predict[] = "predict", format[] = "--format",
		    dash_o[] = "-o";
	char **argv = malloc((size_t)(o->npaths + o->npass + nextra + 6) * sizeof(*argv));
	int argc = 0, i, rc;
	if (!argv) {
		fputs("plumb: error: out of memory\n", stderr);
		return PLUMB_ERUNTIME;
	}
	argv[argc++] = o->npaths > 1 ? compare : predict;
	for (i = 0; i < o->npaths; i++)
		argv[argc++] = o->paths[i];
	for (i = 0; i < o->npass; i++)
		argv[argc++] = o->pass[i];
	for (i = 0; i < nextra; i++)
		argv[argc++] = extra[i];
	argv[argc++] = format;
	argv[argc++] = fmt;
	argv[argc++] = dash_o;
	argv[argc++] = path;
	argv[argc] = NULL;
	rc = o->npaths > 1 ? o->cmd.compare(argc, argv) : o->cmd.predict(argc, argv);
	free(argv);
	return rc;
}

int study_write(const struct study_opts *o)
{
	struct plumb_err err;
	struct study_tmp t;
	struct study st;
	static char opt_draws[] = "--draws", json[] = "json", tab[] = "table", zero[] = "0",
		    breakdown[] = "--breakdown";
	static char opt_layout[] = "--layout";
	char *table_txt = NULL, *jpath, *tpath, draws[16], *extra[5], *lays = NULL;
	const char *depends = NULL;
	int rc, i, status = 0, nl = 0, oom;

	memset(&st, 0, sizeof(st));
	plumb_err_clear(&err);
	if ((rc = study_tmp_open(&t, &err)) < 0) {
		plumb_err_print(&err);
		return plumb_err_status(&err);
	}
	st.o = o;
	st.ns = o->npaths;
	if (!(st.s = calloc((size_t)o->npaths, sizeof(*st.s)))) {
		rc = plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < o->npaths; i++)
		if ((rc = scn_load(o->paths[i], &st.s[i], &err)) < 0)
			goto out;
	/* a cluster: layouts that fit it as well as predict's default */
	if ((lays = default_layouts(&st, &oom))) {
		extra[0] = opt_layout;
		extra[1] = lays;
		nl = 2;
	} else if (oom) {
		rc = plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto out;
	}
	/* the rows, with ranges unless --draws says otherwise */
	if (!(jpath = study_tmp_file(&t, "rows.json", &err))) {
		rc = -PLUMB_ERUNTIME;
		goto out;
	}
	snprintf(draws, sizeof(draws), "%d", o->calib_draws);
	extra[nl] = breakdown;
	extra[nl + 1] = opt_draws;
	extra[nl + 2] = draws;
	if ((status = run_pred(o, json, jpath, extra, nl + (o->draws_given ? 1 : 3))) != 0)
		goto quiet;
	if ((rc = study_read_rows(&st, jpath, &err)) < 0)
		goto out;
	if (!st.nrows || !st.nx || !st.nlayouts) {
		rc = plumb_err_set(&err, PLUMB_ERUNTIME, jpath, 0, 0, "the prediction has no rows");
		goto out;
	}
	/* several boxes: the table's "what the speed-up depends on" lines */
	if (o->npaths > 1) {
		extra[nl] = opt_draws;
		extra[nl + 1] = zero;
		if (!(tpath = study_tmp_file(&t, "table.txt", &err))) {
			rc = -PLUMB_ERUNTIME;
			goto out;
		}
		if ((status = run_pred(o, tab, tpath, extra, nl + 2)) != 0)
			goto quiet;
		if (!(table_txt = study_slurp(tpath))) {
			rc = plumb_err_set(&err, PLUMB_EIO, tpath, 0, 0, "cannot read the comparison back");
			goto out;
		}
		depends = strstr(table_txt, "\nWhat the speed-up");
		if (depends)
			depends++;
	}
	rc = write_page(o, &st, depends, &t, &err);
out:
	status = rc < 0 ? plumb_err_status(&err) : PLUMB_OK;
	if (rc < 0)
		plumb_err_print(&err);
quiet:
	/* a command run above printed its own error; status is its exit code */
	rdr_release_fonts();
	study_tmp_close(&t);
	free(table_txt);
	free(lays);
	study_study_release(&st);
	return status;
}
