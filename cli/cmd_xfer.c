/*
 * cmd_xfer.c - `plumb xfer SCENARIO`: p2pBandwidthLatencyTest-style
 * matrices, or one transfer's time.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "out.h"
#include "p2ptest.h"
#include "scn.h"
#include "topo.h"
#include "xfer.h"
#include "ytree.h"

const char cmd_xfer_usage[] =
	"usage: plumb xfer SCENARIO [options]\n"
	"\n"
	"Simulate GPU-to-GPU copies on the scenario's fabric and print what CUDA's\n"
	"p2pBandwidthLatencyTest would show: the P2P connectivity matrix, uni- and\n"
	"bidirectional bandwidth with P2P disabled (staged through host memory) and\n"
	"enabled, and the latency of a 4-byte copy, so you can put it beside a real\n"
	"run. Inside a VM, \"enabled\" uses P2P only where the guest reports P2P OK.\n"
	"\n"
	"Options:\n"
	"  --from A --to B         one copy from GPU A to GPU B instead of the matrices\n"
	"  --bytes N               its size (64M, 1G, ...; default 40000000)\n"
	"  --method p2p|bounce     how it moves (default: p2p where allowed)\n"
	"  --bidir                 a copy B -> A at the same time\n"
	"  --acs on|off            force ACS on every root port and switch (P2P under a\n"
	"                          switch then goes through the root complex)\n"
	"  -o FILE                 write to FILE (atomically) instead of stdout\n"
	"  -h, --help              this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error, 5 runtime error.\n"
	"Example: plumb xfer scenarios/proxmox-vm-8x-rtxpro6000.yaml\n";

static int parse_gpu(const char *v, int *out)
{
	char *end;
	long l = strtol(v, &end, 10);
	if (end == v || *end || l < 0 || l >= SCN_MAX_GPUS)
		return -1;
	*out = (int)l;
	return 0;
}

static const struct option longopts[] = {
	{ "from", required_argument, NULL, 'F' },
	{ "to", required_argument, NULL, 'T' },
	{ "bytes", required_argument, NULL, 'B' },
	{ "method", required_argument, NULL, 'M' },
	{ "acs", required_argument, NULL, 'A' },
	{ "bidir", no_argument, NULL, 'D' },
	{ NULL, 0, NULL, 0 }
};

int cmd_xfer(int argc, char **argv)
{
	struct plumb_err err;
	struct scenario *s = NULL;
	struct p2pt_result *r = NULL;
	struct outfile out;
	const char *path = NULL, *outpath = "-";
	int i, c, rc, from = -1, to = -1, bidir = 0, method = -1, opened = 0, acs = -1;
	uint64_t bytes = 40000000;

	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((c = cmd_getopt("xfer", argc, argv, "o:", longopts)) != -1) {
		const char *val = optarg;
		switch (c) {
		case 'F':
			if (parse_gpu(val, &from) < 0)
				return cmd_usage_error("xfer", "--from needs a GPU index, not '%s'", val);
			break;
		case 'T':
			if (parse_gpu(val, &to) < 0)
				return cmd_usage_error("xfer", "--to needs a GPU index, not '%s'", val);
			break;
		case 'B':
			if (parse_size(val, &bytes) < 0)
				return cmd_usage_error("xfer", "--bytes needs a size such as 64M, not '%s'", val);
			break;
		case 'M':
			if (!strcmp(val, "p2p"))
				method = XFER_P2P;
			else if (!strcmp(val, "bounce"))
				method = XFER_BOUNCE;
			else
				return cmd_usage_error("xfer", "--method must be p2p or bounce, not '%s'", val);
			break;
		case 'A':
			if (strcmp(val, "on") && strcmp(val, "off"))
				return cmd_usage_error("xfer", "--acs must be on or off, not '%s'", val);
			acs = !strcmp(val, "on");
			break;
		case 'o':
			outpath = val;
			break;
		case 'D':
			bidir = 1;
			break;
		default:
			return -c;
		}
	}
	for (i = optind; i < argc; i++) {
		if (!path)
			path = argv[i];
		else
			return cmd_usage_error("xfer", "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cmd_usage_error("xfer", "missing SCENARIO file");
	if ((from < 0) != (to < 0))
		return cmd_usage_error("xfer", "--from and --to go together");
	if ((rc = scn_load(path, &s, &err)) < 0)
		goto fail;
	topo_apply_acs(s, acs);
	if (from >= s->ngpus || to >= s->ngpus) {
		plumb_err_set(&err, PLUMB_EUSAGE, NULL, 0, 0, "GPU %d does not exist: the scenario has %d GPUs",
			      from >= s->ngpus ? from : to, s->ngpus);
		goto fail;
	}
	if (from >= 0) {
		double t;
		enum xfer_method m;
		if ((rc = out_open(&out, outpath, &err)) < 0)
			goto fail;
		opened = 1;
		if (method < 0) {
			/* P2P where the running side allows it (connectivity of the test). */
			if ((rc = p2pt_can(s, from, to, &err)) < 0)
				goto fail;
			m = rc ? XFER_P2P : XFER_BOUNCE;
		} else {
			char why[640];
			m = (enum xfer_method)method;
			if (m == XFER_P2P && topo_p2p_forbidden(s, from, to, why, sizeof(why)) > 0)
				fprintf(stderr, "plumb xfer: warning: GPU%d -> GPU%d is %s; the driver "
					"would stage this copy through host memory (--method bounce), so this "
					"P2P figure is a what-if\n", from, to, why);
		}
		if ((rc = xfer_time(s, from, to, (double)bytes, m, bidir, &t, &err)) < 0)
			goto fail;
		fprintf(out.f, "GPU%d -> GPU%d%s: %llu bytes by %s in %.3f us = %.2f GB/s%s\n",
			from, to, bidir ? " (and back at once)" : "", (unsigned long long)bytes,
			s->nodes[s->gpu_node[from]].host != s->nodes[s->gpu_node[to]].host
				? "RDMA over the network" : m == XFER_P2P ? "P2P" : "host bounce", t * 1e6,
			(bidir ? 2.0 : 1.0) * (double)bytes / t / 1e9, bidir ? " total" : "");
	} else {
		r = calloc(1, sizeof(*r));
		if (!r) {
			plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			goto fail;
		}
		if ((rc = p2pt_run(s, r, &err)) < 0)
			goto fail;
		if ((rc = out_open(&out, outpath, &err)) < 0)
			goto fail;
		opened = 1;
		p2pt_print(out.f, s, r);
	}
	opened = 0;
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	free(r);
	scn_free(s);
	return PLUMB_OK;
fail:
	if (opened)
		out_abort(&out);
	plumb_err_print(&err);
	free(r);
	scn_free(s);
	return plumb_err_status(&err);
}
