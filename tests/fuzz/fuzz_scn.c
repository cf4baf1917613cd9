/*
 * fuzz_scn.c - the scenario loader (io/scn_load.c, io/ytree.c) on any text;
 * a scenario that loads also goes through the topology views, the BAR model
 * and every report, as `plumb topo` would print it.
 */
#include "fuzz.h"

#include "bar.h"
#include "report.h"
#include "scn.h"
#include "topo.h"

static void run_topo(const struct scenario *s)
{
	static struct bar_result bars[2];
	struct topo_view *host = NULL, *guest = NULL, *on = NULL, *off = NULL;
	struct topo_opts o, acs;
	struct plumb_err err;
	FILE *f = fuzz_sink();
	int vm = s->vm.mode == SCN_VM;

	topo_opts_init(&o);
	acs = o;
	if (topo_build(s, TOPO_HOST, &o, &host, &err) < 0)
		goto done;
	acs.acs_override = 1;
	if (topo_build(s, TOPO_HOST, &acs, &on, &err) < 0)
		goto done;
	acs.acs_override = 0;
	if (topo_build(s, TOPO_HOST, &acs, &off, &err) < 0)
		goto done;
	if (vm && (topo_build(s, TOPO_GUEST, &o, &guest, &err) < 0 ||
		   bar_fit(s, 0, &bars[0], &err) < 0 || bar_fit(s, 1, &bars[1], &err) < 0))
		goto done;
	rep_topo_matrix(f, host, 1);
	rep_p2p_matrix(f, vm ? guest : host, 1);
	rep_p2p_reasons(f, vm ? guest : host);
	rep_iommu(f, host, on, off);
	rep_transport(f, vm ? guest : host);
	if (vm)
		rep_bars(f, s, &bars[0], &bars[1]);
	rep_findings(f, host, guest, vm ? &bars[0] : NULL, vm ? &bars[1] : NULL);
	{
		struct plumb_err jerr;
		rep_json(f, vm ? guest : host, host, vm ? &bars[0] : NULL, vm ? &bars[1] : NULL,
			 &jerr);
	}
	rep_nccl_xml(f, vm ? guest : host, host);
done:
	topo_free(host);
	topo_free(guest);
	topo_free(on);
	topo_free(off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct scenario *s = NULL;
	struct plumb_err err;

	if (scn_parse("fuzz.yaml", text, &s, &err) == 0)
		run_topo(s);
	scn_free(s);
	free(text);
	return 0;
}
