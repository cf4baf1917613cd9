/*
 * cmd_import.c - `plumb import topo-m|lspci|hwloc|nccl-topo|rocm-smi FILE`: write a scenario skeleton
 * rebuilt from real tool output (io/import.h does the work).
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "err.h"
#include "import.h"
#include "out.h"
#include "scn.h"
#include "ytree.h"

const char cmd_import_usage[] =
	"usage: plumb import topo-m FILE [-o OUT] [--gpu-model ID] [--name NAME]\n"
	"       plumb import lspci FILE [-o OUT] [--gpu-model ID] [--sockets N] [--name NAME]\n"
	"       plumb import hwloc|nccl-topo FILE.xml [-o OUT] [--gpu-model ID] [--name NAME]\n"
	"       plumb import rocm-smi FILE --gpu-model ID [-o OUT] [--name NAME]\n"
	"\n"
	"Write a scenario skeleton (YAML) rebuilt from real tool output.\n"
	"\n"
	"  topo-m   FILE holds `nvidia-smi topo -m` output; the PCIe tree is rebuilt\n"
	"           so that it gives the same GPU/NIC matrix; NV# cells become\n"
	"           an nvlink section.\n"
	"  lspci    FILE holds `lspci -tv`, `lspci -t` or `lspci -vvv` output (the\n"
	"           format is detected); switches are folded into one node each and\n"
	"           subtrees without a GPU or NIC are dropped.\n"
	"  hwloc    FILE is hwloc's XML (`lstopo --of xml`): packages become sockets,\n"
	"           host bridges root complexes, switches one node each; NVLink\n"
	"           from its NVLinkBandwidth matrix.\n"
	"  nccl-topo FILE is NCCL's topology XML (NCCL_TOPO_DUMP_FILE output, or an\n"
	"           NCCL_TOPO_FILE): <cpu> NUMA nodes, <pci> switches, <gpu>\n"
	"           <nvlink> and <nic> elements.\n"
	"  rocm-smi FILE holds `rocm-smi --showtopo` or `amd-smi topology` output\n"
	"           (detected; `amd-smi` is accepted as the kind too): XGMI cells\n"
	"           become an xgmi section (a mesh when every pair has one), PCIE\n"
	"           pairs NODE or SYS by hops and NUMA node, one root complex per\n"
	"           GPU; --gpu-model is required (neither tool names the model).\n"
	"\n"
	"  FILE               input file, \"-\" for standard input (at most 16 MiB)\n"
	"  -o, --output OUT   output file (default \"-\", standard output); written\n"
	"                     atomically\n"
	"  --gpu-model ID     catalog id for GPUs the input does not name, or names\n"
	"                     but the catalog lacks (default: topo-m writes\n"
	"                     set-gpu-model, which does not load until set; lspci\n"
	"                     rtx-pro-6000 for unnamed GPUs; an error for unknown\n"
	"                     ones); GPU names\n"
	"                     and PCI ids resolve in scenarios/catalog/gpus.yaml\n"
	"                     and --gpu-catalog FILE\n"
	"  --sockets N        lspci: number of CPU sockets (1-8); by default taken\n"
	"                     from the NUMA nodes (-vvv) or guessed (-tv, -t)\n"
	"  --name NAME        scenario name (default: imported-<file base name>)\n"
	"\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input, 4 I/O error.\n";

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "gpu-model", required_argument, NULL, 'g' },
	{ "name", required_argument, NULL, 'n' },
	{ "sockets", required_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 }
};

/* Print the usage error for a --gpu-model the catalog does not hold; 1 then. */
static int unknown_gpu_model(const char *id)
{
	struct plumb_err err;
	const struct scn_catalog *cat = scn_catalog_run(&err);
	int i, best = -1, bestd = 4;

	if (!cat || scn_catalog_find(cat, id) >= 0)
		return 0;
	for (i = 0; i < cat->n; i++) {
		int d = str_distance(id, cat->gpus[i].id);
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	if (best >= 0)
		cmd_usage_error("import", "unknown --gpu-model '%s' (did you mean '%s'?)", id,
				cat->gpus[best].id);
	else
		cmd_usage_error("import", "unknown --gpu-model '%s' (the ids are in "
				"scenarios/catalog/gpus.yaml)", id);
	return 1;
}

static int valid_id(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) ||
		      *s == '-' || *s == '_'))
			return 0;
	return 1;
}

int cmd_import(int argc, char **argv)
{
	struct imp_opts o;
	struct plumb_err err;
	struct outfile out;
	struct imp_scn *s = NULL;
	const char *kind = NULL, *file = NULL, *outpath = "-", *v;
	char *buf = NULL;
	size_t len;
	int i, rc, opt;

	if (cmd_wants_help(argc, argv)) {
		fputs(cmd_import_usage, stdout);
		return PLUMB_OK;
	}
	memset(&o, 0, sizeof(o));
	plumb_err_clear(&err);
	cmd_getopt_start();
	while ((opt = cmd_getopt("import", argc, argv, "o:", longopts)) != -1) {
		v = optarg;
		switch (opt) {
		case 'o':
			outpath = v;
			break;
		case 'g':
			if (!valid_id(v))
				return cmd_usage_error("import", "--gpu-model needs a catalog id "
						       "like rtx-pro-6000");
			if (unknown_gpu_model(v))
				return PLUMB_EUSAGE;
			o.gpu_model = v;
			break;
		case 'n':
			o.name = v;
			break;
		case 's': {
			char *end;
			long n = strtol(v, &end, 10);
			if (!*v || *end || n < 1 || n > 8)
				return cmd_usage_error("import", "--sockets needs a number from 1 to 8");
			o.sockets = (int)n;
			break;
		}
		default:
			return -opt;
		}
	}
	for (i = optind; i < argc; i++) {
		if (!kind)
			kind = argv[i];
		else if (!file)
			file = argv[i];
		else
			return cmd_usage_error("import", "unexpected argument '%s'", argv[i]);
	}
	if (!kind)
		return cmd_usage_error("import", "missing input kind (topo-m, lspci, hwloc, nccl-topo or "
				       "rocm-smi)");
	if (strcmp(kind, "amd-smi") == 0)
		kind = "rocm-smi";
	if (strcmp(kind, "topo-m") != 0 && strcmp(kind, "lspci") != 0 &&
	    strcmp(kind, "hwloc") != 0 && strcmp(kind, "nccl-topo") != 0 &&
	    strcmp(kind, "rocm-smi") != 0)
		return cmd_usage_error("import", "unknown input kind '%s' (expected topo-m, lspci, "
				       "hwloc, nccl-topo, rocm-smi or amd-smi)", kind);
	if (strcmp(kind, "rocm-smi") == 0 && !o.gpu_model)
		return cmd_usage_error("import", "rocm-smi and amd-smi topology do not name the GPU "
				       "model: give --gpu-model ID (mi300x, mi325x, mi355x, ...)");
	if (!file)
		return cmd_usage_error("import", "missing input FILE (\"-\" for standard input)");
	if (o.sockets && strcmp(kind, "lspci") != 0)
		return cmd_usage_error("import", "--sockets applies to lspci input only");
	o.src = strcmp(file, "-") == 0 ? "<stdin>" : file;
	if (!(o.catalog = scn_catalog_run(&err))) {
		rc = -PLUMB_ERUNTIME;
		goto fail;
	}

	if ((rc = imp_read_input(file, &buf, &len, &err)) < 0)
		goto fail;
	if (!(s = imp_scn_new())) {
		rc = plumb_err_set(&err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		goto fail;
	}
	rc = strcmp(kind, "topo-m") == 0    ? imp_topom_parse(buf, len, &o, s, &err)
	   : strcmp(kind, "hwloc") == 0     ? imp_hwloc_parse(buf, len, &o, s, &err)
	   : strcmp(kind, "nccl-topo") == 0 ? imp_nccl_parse(buf, len, &o, s, &err)
	   : strcmp(kind, "rocm-smi") == 0  ? imp_rocmsmi_parse(buf, len, &o, s, &err)
					    : imp_lspci_parse(buf, len, &o, s, &err);
	if (rc < 0)
		goto fail;
	if ((rc = out_open(&out, outpath, &err)) < 0)
		goto fail;
	if ((rc = imp_write_yaml(out.f, s, outpath, &err)) < 0) {
		out_abort(&out);
		goto fail;
	}
	if ((rc = out_commit(&out, &err)) < 0)
		goto fail;
	imp_scn_free(s);
	free(buf);
	return PLUMB_OK;
fail:
	imp_scn_free(s);
	free(buf);
	plumb_err_print(&err);
	return plumb_err_status(&err);
}
