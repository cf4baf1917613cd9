/*
 * fuzz_sweep.c - the sweep grid parser (models/sweep/grid.c, swp_grid_parse)
 * on any text; a grid that loads is checked (swp_grid_check) and its first
 * and last points are expanded into scenario variants and loaded. The grid
 * is named scenarios/grids/fuzz.yaml, so the scenario files it names resolve
 * as the bundled grids' do (run from the repository root); inputs naming
 * /dev, /proc or /sys are skipped.
 */
#include "fuzz.h"

#include "scn.h"
#include "sweep.h"

static void load_point(const struct swp_grid *g, uint64_t i)
{
	static struct swp_point p;
	struct scenario *s = NULL;
	struct plumb_err err;

	swp_grid_point(g, i, &p);
	swp_variant_load(g, &p, &s, &err);
	scn_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct swp_grid *g = NULL;
	struct plumb_err err;
	char *text;

	fuzz_quiet_stdin();
	if (fuzz_names_special_file(data, size))
		return 0;
	text = fuzz_text(data, size);
	if (swp_grid_parse("scenarios/grids/fuzz.yaml", text, &g, &err) == 0 &&
	    swp_grid_check(g, &err) == 0 && g->npoints > 0) {
		load_point(g, 0);
		load_point(g, g->npoints - 1);
	}
	swp_grid_free(g);
	free(text);
	return 0;
}
