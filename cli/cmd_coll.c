/*
 * cmd_coll.c - `plumb coll SCENARIO`: an nccl-tests style sweep of one
 * collective, simulated on the scenario.
 */
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "coll.h"
#include "out.h"
#include "scn.h"
#include "ytree.h"

const char cmd_coll_usage[] =
	"usage: plumb coll SCENARIO [options]\n"
	"\n"
	"Simulate an NCCL collective on the scenario's fabric over a range of sizes\n"
	"and print the table nccl-tests prints (size, count, type, redop, root, time,\n"
	"algbw, busbw), so it can be put beside all_reduce_perf and friends.\n"
	"\n"
	"Options:\n"
	"  --op OP                allreduce (default), allgather, reducescatter,\n"
	"                         broadcast, alltoall, sendrecv (nccl-tests names too)\n"
	"  --gpus LIST            GPUs taking part: 0-7, 0,1,6,7 (default: all)\n"
	"  -b, --minbytes SIZE    smallest size (default 8)\n"
	"  -e, --maxbytes SIZE    largest size (default 128M)\n"
	"  -f, --stepfactor N     multiply the size by N each row (default 2)\n"
	"  --algo ring|tree|oneshot|twoshot|auto  algorithm (default auto: the ring,\n"
	"                         NCCL's choice in one node, or the engine's one-shot or\n"
	"                         two-shot all-reduce where the scenario's serving section\n"
	"                         has custom_allreduce: oneshot, twoshot or auto and it is\n"
	"                         faster; oneshot, twoshot: that kernel alone)\n"
	"  --proto LL|LL128|Simple|auto   protocol (default auto)\n"
	"  --nccl-p2p-level L     NCCL_P2P_LEVEL (LOC NVL NVB PIX PXB PHB SYS, or 0-5)\n"
	"  --nccl-p2p-disable     NCCL_P2P_DISABLE=1\n"
	"  --root R               broadcast root rank (default 0)\n"
	"  --verbose              add the algorithm, protocol and transports to each row,\n"
	"                         and which model gave the time: path=closed (the closed\n"
	"                         form, where the collective's links each carry one pair's\n"
	"                         sends) or path=flow (the flow model, and why)\n"
	"  --flow                 always simulate the flows (the closed form's check)\n"
	"  -o FILE                write to FILE (atomically) instead of stdout\n"
	"  --calib FILE           constants from `plumb calibrate`; each row ends with\n"
	"                         '# 90%: LO-HI us', the time's interval over 32 runs with\n"
	"                         constants drawn from the fit's covariance (fixed seed)\n"
	"  -h, --help             this help\n"
	"\n"
	"Sizes follow nccl-tests: the total buffer size per rank (8, 64K, 128M, ...);\n"
	"count is size / 4 (float), busbw = algbw x the op's factor (all-reduce 2(n-1)/n).\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error, 5 runtime error.\n"
	"Example: plumb coll scenarios/proxmox-vm-8x-rtxpro6000.yaml --op allreduce --gpus 0-7 -b 8 -e 256M -f 2\n";

/* One draw of the --calib interval: the collective's time. */
struct draw {
	const struct scenario *s;
	const struct topo_opts *o;
	const struct coll_spec *c;
};

static int draw_time(void *arg, double *value, struct plumb_err *err)
{
	const struct draw *d = arg;
	struct coll_result r;
	int rc = coll_time(d->s, d->o, d->c, &r, err);
	*value = r.seconds;
	return rc < 0 ? rc : 1;
}

static const struct option longopts[] = {
	{ "op", required_argument, NULL, 'O' },
	{ "gpus", required_argument, NULL, 'G' },
	{ "minbytes", required_argument, NULL, 'b' },
	{ "maxbytes", required_argument, NULL, 'e' },
	{ "stepfactor", required_argument, NULL, 'f' },
	{ "algo", required_argument, NULL, 'A' },
	{ "proto", required_argument, NULL, 'P' },
	{ "nccl-p2p-level", required_argument, NULL, 'L' },
	{ "root", required_argument, NULL, 'R' },
	{ "nccl-p2p-disable", no_argument, NULL, 'D' },
	{ "verbose", no_argument, NULL, 'V' },
	{ "flow", no_argument, NULL, 'F' },
	{ NULL, 0, NULL, 0 }
};

int cmd_coll(int argc, char **argv)
{
	struct plumb_err err;
	struct scenario *s = NULL;
	struct topo_opts o;
	struct coll_spec c;
	struct outfile out;
	const char *path = NULL, *outpath = "-", *gpus = NULL;
	uint64_t minb = 8, maxb = 128ull << 20;
	long factor = 2;
	int i, opt, rc, opened = 0, verbose = 0, op = COLL_ALLREDUCE, *ranks = NULL;
	double sum_busbw = 0;
	int rows = 0;

	plumb_err_clear(&err);
	topo_opts_init(&o);
	memset(&c, 0, sizeof(c));
	c.algo = ALGO_AUTO;
	c.proto = PROTO_AUTO;
	cmd_getopt_start();
	while ((opt = cmd_getopt("coll", argc, argv, "b:e:f:o:", longopts)) != -1) {
		const char *val = optarg;
		char a[32];
		switch (opt) {
		case 'O':
			if ((op = coll_op_parse(val)) < 0)
				return cmd_usage_error("coll", "unknown --op '%s'", val);
			break;
		case 'G':
			gpus = val;
			break;
		case 'b':
			if (parse_size(val, &minb) < 0)
				return cmd_usage_error("coll", "%s needs a size such as 8 or 64K, not '%s'",
						       cmd_optname(argv, a, sizeof(a)), val);
			break;
		case 'e':
			if (parse_size(val, &maxb) < 0)
				return cmd_usage_error("coll", "%s needs a size such as 128M, not '%s'",
						       cmd_optname(argv, a, sizeof(a)), val);
			break;
		case 'f': {
			char *end;
			factor = strtol(val, &end, 10);
			if (*end || factor < 2 || factor > 1024)
				return cmd_usage_error("coll", "%s needs a whole number from 2 to 1024, not '%s'",
						       cmd_optname(argv, a, sizeof(a)), val);
			break;
		}
		case 'A':
			if (!strcmp(val, "ring")) c.algo = ALGO_RING;
			else if (!strcmp(val, "tree")) c.algo = ALGO_TREE;
			else if (!strcmp(val, "oneshot")) c.algo = ALGO_ONESHOT;
			else if (!strcmp(val, "twoshot")) c.algo = ALGO_TWOSHOT;
			else if (!strcmp(val, "auto")) c.algo = ALGO_AUTO;
			else
				return cmd_usage_error("coll", "--algo must be ring, tree, oneshot, twoshot or auto, not '%s'", val);
			break;
		case 'P':
			if (!strcmp(val, "LL")) c.proto = PROTO_LL;
			else if (!strcmp(val, "LL128")) c.proto = PROTO_LL128;
			else if (!strcmp(val, "Simple")) c.proto = PROTO_SIMPLE;
			else if (!strcmp(val, "auto")) c.proto = PROTO_AUTO;
			else
				return cmd_usage_error("coll", "--proto must be LL, LL128, Simple or auto, not '%s'", val);
			break;
		case 'L':
			if ((o.nccl_p2p_level = topo_nccl_path_parse(val)) < 0)
				return cmd_usage_error("coll", "unknown NCCL_P2P_LEVEL '%s'", val);
			break;
		case 'R': {
			char *end;
			c.root = (int)strtol(val, &end, 10);
			if (*end || c.root < 0)
				return cmd_usage_error("coll", "--root needs a rank, not '%s'", val);
			break;
		}
		case 'o':
			outpath = val;
			break;
		case 'D':
			o.nccl_p2p_level = NP_LOC;
			break;
		case 'V':
			verbose = 1;
			break;
		case 'F':
			c.flow = 1;
			break;
		default:
			return -opt;
		}
	}
	for (i = optind; i < argc; i++) {
		if (!path)
			path = argv[i];
		else
			return cmd_usage_error("coll", "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cmd_usage_error("coll", "missing SCENARIO file");
	if (minb > maxb)
		return cmd_usage_error("coll", "-b is larger than -e");
	if ((rc = scn_load(path, &s, &err)) < 0)
		goto fail;
	c.op = (enum coll_op)op;
	c.custom = coll_custom_of(s);
	if (!(ranks = malloc((size_t)s->ngpus * sizeof(*ranks)))) {
		plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	c.gpus = ranks;
	if (gpus) {
		c.n = scn_gpu_list_parse(gpus, ranks, s->ngpus);
		if (c.n < 1) {
			plumb_err_set(&err, PLUMB_EUSAGE, NULL, 0, 0,
				      "--gpus '%s': give distinct GPU indices or ranges below %d, e.g. 0-%d",
				      gpus, s->ngpus, s->ngpus - 1);
			goto fail;
		}
	} else {
		c.n = s->ngpus;
		for (i = 0; i < c.n; i++)
			ranks[i] = i;
	}
	if (c.root >= c.n) {
		plumb_err_set(&err, PLUMB_EUSAGE, NULL, 0, 0, "--root %d: only %d ranks", c.root, c.n);
		goto fail;
	}
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	opened = 1;
	fprintf(out.f, "# plumb coll: %s_perf simulated on %s, %d GPUs:", coll_op_name(c.op),
		s->name[0] ? s->name : s->path, c.n);
	for (i = 0; i < c.n; i++)
		fprintf(out.f, " %d", c.gpus[i]);
	fprintf(out.f, "\n# minBytes %llu maxBytes %llu step: %ld(factor)\n#\n",
		(unsigned long long)minb, (unsigned long long)maxb, factor);
	if (s->nhosts > 1) {
		/* several hosts: each rank's host and device, as nccl-tests lists them */
		fprintf(out.f, "# Using devices (%d hosts, %s %g Gb/s per NIC port)\n", s->nhosts,
			s->net.kind == SCN_NET_IB ? "InfiniBand" : "RoCE", s->net.port_gbps);
		for (i = 0; i < c.n; i++) {
			const struct scn_node *g = &s->nodes[s->gpu_node[c.gpus[i]]];
			fprintf(out.f, "#  Rank %2d on %10s device %2d %s\n", i, s->hosts[g->host].name,
				c.gpus[i] - s->hosts[g->host].first_gpu,
				s->catalog->gpus[g->gpu_model].name);
		}
		fputs("#\n", out.f);
	}
	fputs("#                                                              out-of-place                       in-place          \n"
	      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
	      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n",
	      out.f);
	for (;;) {
		struct coll_result r;
		uint64_t size = minb;
		static const char *const redop = "sum";
		double algbw, busbw;
		c.bytes = (double)size;
		if ((rc = coll_time(s, &o, &c, &r, &err)) < 0)
			goto fail;
		algbw = r.seconds > 0 ? c.bytes / r.seconds / 1e9 : 0;
		busbw = algbw * r.busbw_factor;
		fprintf(out.f, "%12llu  %12llu     float  %6s  %6d  %7.2f  %6.2f  %6.2f     N/A  %7.2f  %6.2f  %6.2f     N/A",
			(unsigned long long)size, (unsigned long long)(size / 4),
			c.op == COLL_BROADCAST || c.op == COLL_ALLGATHER || c.op == COLL_ALLTOALL ||
			c.op == COLL_SENDRECV ? "none" : redop,
			c.op == COLL_BROADCAST ? c.root : -1,
			r.seconds * 1e6, algbw, busbw, r.seconds * 1e6, algbw, busbw);
		if (verbose)
			fprintf(out.f, "  # %s/%s p2p=%d shm=%d", coll_algo_name(r.algo),
				coll_proto_name(r.proto), r.p2p_hops, r.shm_hops);
		if (verbose && r.net_hops)
			fprintf(out.f, " net=%d", r.net_hops);
		if (verbose)
			fprintf(out.f, " path=%s%s%s",
				r.closed == 2 ? "closed-shared" : r.closed ? "closed" : "flow", r.why ? ": " : "",
				r.why ? r.why : "");
		if (cmd_calib()) {
			struct draw d = { s, &o, &c };
			double lo, hi;
			if ((rc = cmd_calib_interval_for(coll_op_name(c.op), &s->k, CMD_CALIB_DRAWS,
							 draw_time, &d, &lo, &hi, &err)) < 0)
				goto fail;
			if (!isnan(lo))
				fprintf(out.f, "  # 90%%: %.2f-%.2f us", lo * 1e6, hi * 1e6);
		}
		fputc('\n', out.f);
		sum_busbw += busbw;
		rows++;
		if (minb > maxb / (uint64_t)factor || minb * (uint64_t)factor > maxb)
			break;
		minb *= (uint64_t)factor;
	}
	fprintf(out.f, "# Avg bus bandwidth    : %g\n#\n", rows ? sum_busbw / rows : 0.0);
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	free(ranks);
	scn_free(s);
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	plumb_err_print(&err);
	free(ranks);
	scn_free(s);
	return plumb_err_status(&err);
}
