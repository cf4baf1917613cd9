/*
 * cmd_render.c - `plumb render`: pictures of a scenario (topology, matrix),
 * of one decode step (timeline), of tok/s against concurrency (throughput)
 * and of a validation set (fit), as PNG, SVG or PDF.
 */
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_stepopt.h"
#include "predict_run.h"
#include "render.h"

const char cmd_render_usage[] =
	"usage: plumb render SCENARIO --what KIND -o FILE [options]\n"
	"\n"
	"Draw a picture; the format comes from FILE's extension: .png, .svg or .pdf.\n"
	"KIND is one of:\n"
	"  topology    the PCIe tree: sockets, host memory, root complexes, root ports,\n"
	"              switches, GPUs, NICs, NVLink; links labelled with generation and\n"
	"              width; IOMMU groups outlined; for a VM the guest's view beside the\n"
	"              host's\n"
	"  matrix      the topo -m matrix with P2P status and NCCL transport per pair\n"
	"  timeline    one decode step per GPU: compute, communication, idle (Gantt)\n"
	"  throughput  total tok/s against concurrency for the scenario and every\n"
	"              --scenario, for each --layout\n"
	"  bars        a VM's 64-bit MMIO space with every GPU's large BARs, as the\n"
	"              firmware places them and after pci=realloc\n"
	"  fit         measured against predicted for a validation case list (--cases;\n"
	"              SCENARIO is not needed); with --calib FILE, against the fitted\n"
	"              constants\n"
	"\n"
	"Options:\n"
	"  --what KIND            what to draw (required)\n"
	"  -o FILE                the picture (required; written atomically)\n"
	"  --view host|guest|both topology and matrix: which side (default: both for a\n"
	"                         VM, host otherwise)\n"
	"  --path A:B             topology: highlight a transfer from GPU A to GPU B, solid\n"
	"                         for P2P, dashed for a host bounce through host memory\n"
	"  --acs on|off           force ACS on every root port and switch\n"
	CMD_STEPOPT_HELP
	"  --layout L,...         throughput: several layouts\n"
	"  --scenario FILE        throughput: another box (repeat for more)\n"
	"  --concurrency C,...    throughput: clients (default 1,2,4,8,16,32,64)\n"
	"  --input N, --output N  throughput: prompt and generated tokens (default 1024)\n"
	"  --draws N              throughput: Monte Carlo draws of the 90% interval drawn\n"
	"                         as a band (default 32 with --calib; without it, the\n"
	"                         interval of the defaults' plausible ranges, only when\n"
	"                         --draws is given)\n"
	"  --cases FILE           fit: the case list (as for plumb validate)\n"
	"  -h, --help             this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input, 4 I/O error, 5 runtime error.\n"
	"Example: plumb render scenarios/proxmox-vm-8x-rtxpro6000.yaml --what topology \\\n"
	"           --path 0:5 -o vm.png\n";

#define MAXSCN 8
#define MAXLAY 8

struct ropts {
	const char *what, *outpath, *cases, *layouts;
	const char *paths[MAXSCN];
	int npaths;
	struct rdr_topo_opts topo;
	struct cmd_stepopt step;
	int conc[RDR_MAX_PTS], nconc;
	long input, output;
	int draws, draws_given;     /* --draws: the throughput interval */
};

static int parse_list(const char *s, int *out, int max)
{
	int n = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v < 1 || v > 100000 || n >= max)
			return -1;
		out[n++] = (int)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

enum { R_WHAT = 0x200, R_VIEW, R_PATH, R_ACS, R_SCENARIO, R_CASES, R_CONC, R_INPUT, R_OUTPUT,
       R_DRAWS };

static const struct option longopts[] = {
	{ "what", required_argument, NULL, R_WHAT },
	{ "view", required_argument, NULL, R_VIEW },
	{ "path", required_argument, NULL, R_PATH },
	{ "acs", required_argument, NULL, R_ACS },
	{ "scenario", required_argument, NULL, R_SCENARIO },
	{ "cases", required_argument, NULL, R_CASES },
	{ "concurrency", required_argument, NULL, R_CONC },
	{ "input", required_argument, NULL, R_INPUT },
	{ "output", required_argument, NULL, R_OUTPUT },
	{ "draws", required_argument, NULL, R_DRAWS },
	CMD_STEPOPT_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

static int parse(int argc, char **argv, struct ropts *o)
{
	static const char *cmd = "render";
	int opt, rc;
	memset(o, 0, sizeof(*o));
	rdr_topo_opts_init(&o->topo);
	cmd_stepopt_init(&o->step);
	o->input = o->output = 1024;
	o->draws = CMD_CALIB_DRAWS;
	cmd_getopt_start();
	/* "-": arguments in their order, so the positional SCENARIO and the
	 * --scenario ones keep theirs */
	while ((opt = cmd_getopt(cmd, argc, argv, "-o:", longopts)) != -1) {
		const char *v = optarg;
		char name[64];
		if (opt < 0)
			return -opt;
		switch (opt) {
		case R_WHAT:
			if (strcmp(v, "topology") && strcmp(v, "matrix") && strcmp(v, "timeline") &&
			    strcmp(v, "throughput") && strcmp(v, "fit") && strcmp(v, "bars"))
				return cmd_usage_error(cmd, "--what must be topology, matrix, timeline, "
							    "throughput, bars or fit, not '%s'", v);
			o->what = v;
			break;
		case 'o':
			o->outpath = v;
			break;
		case R_VIEW:
			if (!strcmp(v, "host"))
				o->topo.view = RDR_VIEW_HOST;
			else if (!strcmp(v, "guest"))
				o->topo.view = RDR_VIEW_GUEST;
			else if (!strcmp(v, "both"))
				o->topo.view = RDR_VIEW_BOTH;
			else
				return cmd_usage_error(cmd, "--view must be host, guest or both, not '%s'", v);
			break;
		case R_PATH: {
			char *end;
			long x = strtol(v, &end, 10), y;
			if (end == v || *end != ':')
				return cmd_usage_error(cmd, "--path needs two GPUs like 0:5, not '%s'", v);
			v = end + 1;
			y = strtol(v, &end, 10);
			if (end == v || *end || x < 0 || y < 0 || x >= SCN_MAX_GPUS || y >= SCN_MAX_GPUS)
				return cmd_usage_error(cmd, "--path needs two GPUs like 0:5");
			o->topo.path_a = (int)x;
			o->topo.path_b = (int)y;
			break;
		}
		case R_ACS:
			if (strcmp(v, "on") && strcmp(v, "off"))
				return cmd_usage_error(cmd, "--acs must be on or off, not '%s'", v);
			o->topo.topo.acs_override = !strcmp(v, "on");
			break;
		case R_SCENARIO:
			if (o->npaths >= MAXSCN)
				return cmd_usage_error(cmd, "at most %d scenarios", MAXSCN);
			o->paths[o->npaths++] = v;
			break;
		case R_CASES:
			o->cases = v;
			break;
		case R_CONC:
			if ((o->nconc = parse_list(v, o->conc, RDR_MAX_PTS)) < 0)
				return cmd_usage_error(cmd, "--concurrency needs numbers like 1,2,4, not '%s'", v);
			break;
		case R_DRAWS: {
			char *end;
			long d = strtol(v, &end, 10);
			if (end == v || *end || d < 0 || d > 10000)
				return cmd_usage_error(cmd, "--draws needs 0-10000, not '%s'", v);
			o->draws = (int)d;
			o->draws_given = 1;
			break;
		}
		case R_INPUT:
		case R_OUTPUT: {
			char *end;
			long n = strtol(v, &end, 10);
			if (end == v || *end || n < 1 || n > 10000000)
				return cmd_usage_error(cmd, "%s needs a token count, not '%s'",
						       cmd_optname(argv, name, sizeof(name)), v);
			*(opt == R_INPUT ? &o->input : &o->output) = n;
			break;
		}
		case 1:
			if (o->npaths >= MAXSCN)
				return cmd_usage_error(cmd, "at most %d scenarios", MAXSCN);
			/* the positional SCENARIO comes first */
			memmove(o->paths + 1, o->paths, (size_t)o->npaths * sizeof(o->paths[0]));
			o->paths[0] = v;
			o->npaths++;
			break;
		default:
			if (opt == CMD_STEPOPT_VAL + 3 && v && strchr(v, ',')) {
				/* a comma list (several layouts): throughput only */
				o->layouts = v;
				break;
			}
			if ((rc = cmd_stepopt_take(cmd, &o->step, opt, v)) != 1)
				return rc ? PLUMB_EUSAGE : cmd_usage_error(cmd, "unknown option");
			break;
		}
	}
	if (!o->what)
		return cmd_usage_error(cmd, "missing --what (topology, matrix, timeline, throughput, bars or fit)");
	if (!o->outpath)
		return cmd_usage_error(cmd, "missing -o FILE (.png, .svg or .pdf)");
	if (rdr_format_of(o->outpath) < 0)
		return cmd_usage_error(cmd, "cannot tell the picture format of '%s' (use .png, .svg or .pdf)",
				       o->outpath);
	if (!strcmp(o->what, "fit")) {
		if (!o->cases)
			return cmd_usage_error(cmd, "--what fit needs --cases FILE");
	} else if (!o->npaths) {
		return cmd_usage_error(cmd, "missing SCENARIO file");
	}
	if (o->layouts && strcmp(o->what, "throughput"))
		return cmd_usage_error(cmd, "several layouts only for --what throughput");
	if (o->npaths > 1 && strcmp(o->what, "throughput"))
		return cmd_usage_error(cmd, "one SCENARIO (several only for --what throughput)");
	if (o->draws_given && strcmp(o->what, "throughput"))
		return cmd_usage_error(cmd, "--draws goes with --what throughput");
	if (o->topo.path_a >= 0 && strcmp(o->what, "topology"))
		return cmd_usage_error(cmd, "--path goes with --what topology");
	/* --nccl-p2p-level also decides the transports topology and matrix show */
	o->topo.topo.nccl_p2p_level = o->step.level;
	if (!o->nconc) {
		static const int def[] = { 1, 2, 4, 8, 16, 32, 64 };
		memcpy(o->conc, def, sizeof(def));
		o->nconc = 7;
	}
	return 0;
}

static int timeline(const struct ropts *o, const struct scenario *s, struct plumb_err *err)
{
	struct pred_cfg c;
	struct pred_step_info info;
	struct rdr_timeline t;
	struct step_span *spans = NULL;
	int rc, n = 0, cap = 1 << 14;
	double sec;

	if ((rc = cmd_stepopt_cfg(&o->step, s, &c, err)) < 0 ||
	    (rc = pred_check_fit(&c, o->step.batch, o->step.context, err)) < 0)
		return rc;
	for (;;) {
		free(spans);
		if (!(spans = malloc((size_t)cap * sizeof(*spans))))
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		if ((rc = pred_step_spans(&c, SERVE_DECODE, o->step.batch, o->step.context, 1, spans,
					  cap, &n, &info, err)) < 0)
			goto out;
		if (n <= cap)
			break;
		cap = n;
	}
	sec = info.run.seconds;
	memset(&t, 0, sizeof(t));
	snprintf(t.title, sizeof(t.title), "%s: one decode step of %s, %s", s->name, c.m->name,
		 c.lay.name);
	snprintf(t.subtitle, sizeof(t.subtitle),
		 "batch %d%s, %ld cached tokens each; step %.3f ms (%.1f tok/s per sequence); "
		 "compute %.0f%%, communication %.0f%%, idle %.0f%% per GPU on average",
		 o->step.batch, c.lay.dp > 1 ? " per replica" : "", o->step.context, sec * 1e3, 1 / sec, 100 * info.compute_s / sec,
		 100 * info.comm_s / sec, 100 * info.idle_s / sec);
	t.ngpus = info.run.ngpus;
	t.seconds = sec;
	t.spans = spans;
	t.nspans = n;
	t.stages = c.lay.pp;
	t.micro = c.micro > 0 ? c.micro : c.lay.pp;
	t.batch = o->step.batch;
	rc = rdr_timeline(o->outpath, &t, err);
out:
	free(spans);
	return rc;
}

/*
 * c for one series of the throughput chart: the step options with layout
 * lay; the scenario's engine drafts with the model's MTP layer when its
 * serving block says so, as `plumb predict` does without --mtp.
 */
static int series_cfg(const struct ropts *o, const struct scenario *s, const char *lay,
		      struct pred_cfg *c, struct plumb_err *err)
{
	struct cmd_stepopt so = o->step;
	int rc;
	so.layout = lay;
	if ((rc = cmd_stepopt_cfg(&so, s, c, err)) < 0)
		return rc;
	if (s->serving.mtp_draft > 0 && c->m->mtp_layers > 0) {
		c->draft = s->serving.mtp_draft;
		c->accept = s->serving.mtp_accept;
		c->naccept = s->serving.mtp_naccept;
		memcpy(c->accept_pos, s->serving.mtp_accept_pos, sizeof(c->accept_pos));
	}
	return 0;
}

/* One point: closed-loop total tok/s at concurrency conc (NAN when the
 * model does not fit), the serving run `plumb predict` makes. */
struct tpoint {
	const struct ropts *o;
	const struct scenario *s;
	const char *lay;
	int conc;
};

static int tpoint_run(void *arg, double *value, struct plumb_err *err)
{
	const struct tpoint *t = arg;
	struct pred_cfg c;
	struct serve_params sp;
	struct serve_result sr;
	struct plumb_err fe;
	int rc;
	*value = NAN;
	if ((rc = series_cfg(t->o, t->s, t->lay, &c, err)) < 0)
		return rc;
	plumb_err_clear(&fe);
	if (pred_check_fit(&c, 1, t->o->input + t->o->output, &fe) < 0)
		return 0;
	pred_serve_params(&c, t->conc, t->o->input, t->o->output, 0, &sp);
	if ((rc = pred_serve_replicas(&c, t->conc, &sp, pred_serve_step, &c, &sr, err)) < 0)
		return rc;
	*value = sr.tok_s_total;
	return 1;
}

static int throughput(const struct ropts *o, struct scenario **s, int ns, struct plumb_err *err)
{
	struct rdr_series *ser;
	/* the layouts whole (a list of any length, never cut); more than
	 * MAXLAY curves are refused, not dropped */
	char *lays[MAXLAY], *buf, *tok, *save = NULL, title[256], one[32];
	int nl = 0, li, si, k, rc = 0, n = 0;
	const char *model_name = o->step.model;

	if (!(buf = strdup(o->layouts ? o->layouts : o->step.layout ? o->step.layout : "")))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct step_layout l;
		if (nl == MAXLAY) {
			free(buf);
			return plumb_err_set(err, PLUMB_EUSAGE, NULL, 0, 0,
					     "--layout: at most %d layouts in one chart", MAXLAY);
		}
		if (step_layout_parse(tok, &l, err) < 0) {
			free(buf);
			return -PLUMB_EUSAGE;
		}
		lays[nl++] = tok;
	}
	if (!nl) {
		snprintf(one, sizeof(one), "tp%d", s[0]->ngpus);
		lays[nl++] = one;
	}
	ser = calloc((size_t)(nl * ns), sizeof(*ser));
	if (!ser) {
		free(buf);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	for (si = 0; si < ns; si++)
		for (li = 0; li < nl; li++) {
			struct rdr_series *r = &ser[n++];
			struct pred_cfg c;
			struct plumb_err fe;
			snprintf(r->label, sizeof(r->label), "%s, %s", s[si]->name, lays[li]);
			r->color = si;
			r->dash = li;
			plumb_err_clear(&fe);
			if ((rc = series_cfg(o, s[si], lays[li], &c, err)) < 0)
				goto out;
			model_name = c.m->name;
			if (pred_check_fit(&c, 1, o->input + o->output, &fe) < 0)
				snprintf(r->label, sizeof(r->label), "%s, %s (does not fit)", s[si]->name,
					 lays[li]);
			for (k = 0; k < o->nconc; k++) {
				struct tpoint t = { o, s[si], lays[li], o->conc[k] };
				r->x[r->n] = o->conc[k];
				if ((rc = tpoint_run(&t, &r->y[r->n], err)) < 0)
					goto out;
				/* the 90% interval: from --calib, or the defaults' with --draws */
				if (rc == 1 && cmd_calib())
					rc = cmd_calib_interval(&s[si]->k, o->draws, tpoint_run, &t,
								&r->lo[r->n], &r->hi[r->n], err);
				else if (rc == 1 && o->draws_given)
					rc = cmd_defaults_interval(&s[si]->k, o->draws, tpoint_run, &t,
								   &r->lo[r->n], &r->hi[r->n], err);
				if (rc < 0)
					goto out;
				r->n++;
			}
			rc = 0;
		}
	snprintf(title, sizeof(title), "%s %s: total tok/s against concurrency (input %ld, output %ld)",
		 model_name, o->step.weights ? o->step.weights : llm_default_weights(o->step.model),
		 o->input, o->output);
	rc = rdr_throughput(o->outpath, title, "concurrent requests (closed loop)", ser, n, err);
out:
	free(ser);
	free(buf);
	return rc;
}

static int fit(const struct ropts *o, struct plumb_err *err)
{
	struct val_set *v = NULL;
	char title[600];
	int rc;
	if ((rc = val_load(o->cases, &v, err)) < 0)
		return rc;
	if ((rc = val_predict(v, -1, err)) == 0) {
		snprintf(title, sizeof(title), "Measured against %s: %s",
			 cmd_calib() ? "fitted (constants from --calib)" : "predicted", o->cases);
		rc = rdr_fit(o->outpath, title, v, err);
	}
	val_free(v);
	return rc;
}

int cmd_render(int argc, char **argv)
{
	struct ropts o;
	struct plumb_err err;
	struct scenario *s[MAXSCN] = { NULL };
	int rc, i;

	if ((rc = parse(argc, argv, &o)) != 0)
		return rc;
	plumb_err_clear(&err);
	for (i = 0; i < o.npaths; i++)
		if ((rc = scn_load(o.paths[i], &s[i], &err)) < 0)
			goto out;
	if (!strcmp(o.what, "topology"))
		rc = rdr_topology(o.outpath, s[0], &o.topo, &err);
	else if (!strcmp(o.what, "matrix"))
		rc = rdr_matrix(o.outpath, s[0], &o.topo, &err);
	else if (!strcmp(o.what, "timeline"))
		rc = timeline(&o, s[0], &err);
	else if (!strcmp(o.what, "throughput"))
		rc = throughput(&o, s, o.npaths, &err);
	else if (!strcmp(o.what, "bars"))
		rc = rdr_bars(o.outpath, s[0], &err);
	else
		rc = fit(&o, &err);
out:
	rdr_release_fonts();
	for (i = 0; i < o.npaths; i++)
		scn_free(s[i]);
	if (rc < 0) {
		plumb_err_print(&err);
		return plumb_err_status(&err);
	}
	return PLUMB_OK;
}
