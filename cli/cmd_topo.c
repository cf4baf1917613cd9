/*
 * cmd_topo.c - `plumb topo SCENARIO`: the topology views of a scenario.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bar.h"
#include "cmd.h"
#include "out.h"
#include "report.h"
#include "scn.h"
#include "topo.h"

const char cmd_topo_usage[] =
	"usage: plumb topo SCENARIO [options]\n"
	"\n"
	"Print what `nvidia-smi topo -m` and `nvidia-smi topo -p2p r` would show on\n"
	"the machine a scenario describes (host, and guest for a VM), why each pair\n"
	"without P2P has its status, the IOMMU groups (and what disabling ACS\n"
	"merges), NCCL's transport per GPU pair, and for a VM whether every GPU's\n"
	"BARs fit the MMIO windows with and without pci=realloc.\n"
	"\n"
	"Options:\n"
	"  --view host|guest|both   which side to print (default: both for a VM)\n"
	"  --format text|json|nccl-xml|matrix\n"
	"                           text (default); json (keys: gpus, topo_matrix,\n"
	"                           p2p_matrix, iommu_groups, nccl_transport,\n"
	"                           bar_check); nccl-xml (an NCCL_TOPO_FILE with the\n"
	"                           host's NUMA layout); matrix (topo -m block only)\n"
	"  --acs on|off             force ACS on or off on every port and switch\n"
	"  --nccl-p2p-level L       NCCL_P2P_LEVEL: LOC NVL NVB PIX PXB PHB SYS or 0-5\n"
	"  --nccl-p2p-disable       NCCL_P2P_DISABLE=1\n"
	"  --nccl-shm-disable       NCCL_SHM_DISABLE=1 (non-P2P pairs use NET)\n"
	"  -o FILE                  write to FILE (atomically) instead of stdout\n"
	"  -h, --help               this help\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid scenario, 4 I/O error.\n"
	"Example: plumb topo scenarios/proxmox-vm-8x-rtxpro6000.yaml --view guest\n";

enum fmt { F_TEXT, F_JSON, F_XML, F_MATRIX };

static void section(FILE *f, const char *title)
{
	fprintf(f, "\n== %s ==\n", title);
}

static void print_text(FILE *f, const struct scenario *s, int want_host, int want_guest,
		       const struct topo_view *host, const struct topo_view *guest,
		       const struct topo_view *acs_on, const struct topo_view *acs_off,
		       const struct bar_result *without,
		       const struct bar_result *with)
{
	const struct topo_view *run = guest ? guest : host;
	/* AMD boxes are named as AMD's tools name them: amd-smi topology's
	 * link types in nvidia-smi's matrix layout, RCCL for the library */
	const char *smi = s->xgmi ? "amd-smi topology" : "nvidia-smi topo -m";
	const char *lib = s->xgmi ? "RCCL" : "NCCL";
	char title[96];

	fprintf(f, "plumb topo: %s (%d GPU%s, %s)\n", s->name[0] ? s->name : s->path,
		s->ngpus, s->ngpus == 1 ? "" : "s",
		s->vm.mode == SCN_VM ? (s->vm.chipset == SCN_Q35
					? (s->vm.pcie_passthrough ? "VM, q35 with PCIe passthrough"
								  : "VM, q35 without pcie=1")
					: "VM, i440fx") : "bare metal");
	if (want_host) {
		snprintf(title, sizeof(title), "%s (host)", smi);
		section(f, title);
		rep_topo_matrix(f, host, 1);
		section(f, s->xgmi ? "P2P status (host)" : "nvidia-smi topo -p2p r (host)");
		rep_p2p_matrix(f, host, 0);
		section(f, "P2P reasons (host)");
		rep_p2p_reasons(f, host);
	}
	if (want_guest && guest) {
		snprintf(title, sizeof(title), "%s (guest)", smi);
		section(f, title);
		rep_topo_matrix(f, guest, 1);
		section(f, s->xgmi ? "P2P status (guest)" : "nvidia-smi topo -p2p r (guest)");
		rep_p2p_matrix(f, guest, 1);
		section(f, "P2P reasons (guest)");
		rep_p2p_reasons(f, guest);
	}
	section(f, "IOMMU groups");
	rep_iommu(f, host, acs_on, acs_off);
	snprintf(title, sizeof(title), "%s transport (%s)", lib, guest && want_guest ? "guest" : "host");
	section(f, title);
	rep_transport(f, want_guest && guest ? guest : host);
	if (want_guest && without && with) {
		section(f, "BAR / MMIO placement (guest)");
		rep_bars(f, s, without, with);
	}
	section(f, "Findings");
	if (want_guest)
		rep_findings(f, host, guest, without, with);
	else
		rep_findings(f, host, NULL, NULL, NULL);
	(void)run;
}

static const struct option longopts[] = {
	{ "view", required_argument, NULL, 'v' },
	{ "format", required_argument, NULL, 'f' },
	{ "acs", required_argument, NULL, 'a' },
	{ "nccl-p2p-level", required_argument, NULL, 'l' },
	{ "nccl-p2p-disable", no_argument, NULL, 'P' },
	{ "nccl-shm-disable", no_argument, NULL, 'S' },
	{ NULL, 0, NULL, 0 }
};

int cmd_topo(int argc, char **argv)
{
	struct topo_opts o;
	struct plumb_err err;
	struct scenario *s = NULL;
	struct topo_view *host = NULL, *guest = NULL, *acs_off = NULL, *acs_on = NULL;
	struct bar_result *without = NULL, *with = NULL;
	struct outfile out;
	const char *path = NULL, *outpath = "-", *view = NULL;
	enum fmt fmt = F_TEXT;
	int i, c, rc, want_host, want_guest, out_open_ok = 0;
	struct bar_result bars[2];

	topo_opts_init(&o);
	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((c = cmd_getopt("topo", argc, argv, "o:", longopts)) != -1) {
		const char *val = optarg;
		switch (c) {
		case 'v':
			if (strcmp(val, "host") && strcmp(val, "guest") && strcmp(val, "both"))
				return cmd_usage_error("topo", "--view must be host, guest or both, not '%s'", val);
			view = val;
			break;
		case 'f':
			if (!strcmp(val, "text")) fmt = F_TEXT;
			else if (!strcmp(val, "json")) fmt = F_JSON;
			else if (!strcmp(val, "nccl-xml")) fmt = F_XML;
			else if (!strcmp(val, "matrix")) fmt = F_MATRIX;
			else
				return cmd_usage_error("topo", "--format must be text, json, nccl-xml or matrix, not '%s'", val);
			break;
		case 'a':
			if (!strcmp(val, "on")) o.acs_override = 1;
			else if (!strcmp(val, "off")) o.acs_override = 0;
			else
				return cmd_usage_error("topo", "--acs must be on or off, not '%s'", val);
			break;
		case 'l':
			o.nccl_p2p_level = topo_nccl_path_parse(val);
			if (o.nccl_p2p_level < 0)
				return cmd_usage_error("topo", "unknown NCCL_P2P_LEVEL '%s' (LOC, NVL, NVB, PIX, PXB, PHB, SYS or 0-5)", val);
			break;
		case 'o':
			outpath = val;
			break;
		case 'P':
			o.nccl_p2p_level = NP_LOC;
			break;
		case 'S':
			o.nccl_shm_disable = 1;
			break;
		default:
			return -c;
		}
	}
	for (i = optind; i < argc; i++) {
		if (!path)
			path = argv[i];
		else
			return cmd_usage_error("topo", "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cmd_usage_error("topo", "missing SCENARIO file");

	if ((rc = scn_load(path, &s, &err)) < 0)
		goto fail;
	if (view && strcmp(view, "host") && s->vm.mode != SCN_VM) {
		plumb_err_set(&err, PLUMB_EUSAGE, NULL, 0, 0,
			      "--view %s: scenario '%s' is bare metal and has no guest", view, s->name);
		goto fail;
	}
	want_guest = s->vm.mode == SCN_VM && (!view || strcmp(view, "host"));
	want_host = !view || strcmp(view, "guest") || s->vm.mode != SCN_VM;
	if (!view && s->vm.mode == SCN_VM && fmt != F_TEXT)
		want_host = 0;   /* machine formats describe the side NCCL runs on */
	if ((rc = topo_build(s, TOPO_HOST, &o, &host, &err)) < 0)
		goto fail;
	if (fmt == F_TEXT) {
		/* the IOMMU groups with ACS off and on everywhere: text only */
		struct topo_opts off = o;
		off.acs_override = 0;
		if ((rc = topo_build(s, TOPO_HOST, &off, &acs_off, &err)) < 0)
			goto fail;
		off.acs_override = 1;
		if ((rc = topo_build(s, TOPO_HOST, &off, &acs_on, &err)) < 0)
			goto fail;
	}
	if (s->vm.mode == SCN_VM) {
		if ((rc = topo_build(s, TOPO_GUEST, &o, &guest, &err)) < 0)
			goto fail;
		without = &bars[0];
		with = &bars[1];
		if ((rc = bar_fit(s, 0, without, &err)) < 0 || (rc = bar_fit(s, 1, with, &err)) < 0)
			goto fail;
	}
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	out_open_ok = 1;
	switch (fmt) {
	case F_TEXT:
		print_text(out.f, s, want_host, want_guest, host, guest, acs_on, acs_off, without, with);
		break;
	case F_MATRIX:
		rep_topo_matrix(out.f, want_guest ? guest : host, 0);
		break;
	case F_JSON:
		if ((rc = rep_json(out.f, want_guest ? guest : host, host, without, with,
				   &err)) < 0)
			goto fail;
		break;
	case F_XML:
		rep_nccl_xml(out.f, want_guest ? guest : host, host);
		break;
	}
	if ((rc = out_commit(&out, &err)) < 0) {
		out_open_ok = 0;
		goto fail;
	}
	topo_free(host);
	topo_free(guest);
	topo_free(acs_off);
	topo_free(acs_on);
	scn_free(s);
	return PLUMB_OK;
fail:
	if (out_open_ok)
		out_abort(&out);
	plumb_err_print(&err);
	topo_free(host);
	topo_free(guest);
	topo_free(acs_off);
	topo_free(acs_on);
	scn_free(s);
	return plumb_err_status(&err);
}
