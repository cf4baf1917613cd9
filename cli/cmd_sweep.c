/*
 * cmd_sweep.c - `plumb sweep GRID`: `plumb predict` over a grid of
 * scenarios, keys, models, layouts and loads (models/sweep, docs/sweep.md).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef PLUMB_MPI
#include <mpi.h>
#endif

#include "cmd.h"
#include "sweep.h"

const char cmd_sweep_usage[] =
	"usage: plumb sweep GRID.yaml [-o FILE] [options]\n"
	"\n"
	"Predict every point of a grid: the cartesian product of its axes (any\n"
	"scenario key by path, whole scenario files, model, weights, layout,\n"
	"concurrency, context, input, output, constants, free inputs such as\n"
	"price_usd). One row per point, in grid order, with every axis value and\n"
	"every column of `plumb predict --format csv`. The grid format is in\n"
	"docs/sweep.md; examples in scenarios/grids/.\n"
	"\n"
	"Options:\n"
	"  -o FILE              write to FILE (default: standard output); rows already\n"
	"                       in FILE or FILE.partial are kept and not recomputed\n"
	"  --format csv|json    output format (default csv)\n"
	"  -j N                 worker threads (default: the number of online CPUs;\n"
	"                       1 per rank under mpirun); output is the same for any N\n"
	"  --fresh              ignore rows already in FILE (recompute everything)\n"
	"  --check              check the grid and every value, print the point count\n"
	"                       and the columns, run nothing\n"
	"  --stats              print points/s, steps simulated and peak memory to stderr\n"
	"  --no-progress        no progress bar (it is shown only when stderr is a terminal)\n"
	"  --csv-raw            write CSV cells from the grid as given; by default one a\n"
	"                       spreadsheet would run as a formula (it starts with =, +,\n"
	"                       -, @, TAB or CR and is not a number) gets a leading\n"
	"                       apostrophe (resume with the same setting)\n"
	"  -h, --help           this help\n"
	"\n"
	"Under `mpirun -n N` (a build with `make MPI=1`) rank 0 hands out chunks of\n"
	"points to the other ranks and writes the file; the output is the same bytes.\n"
	"Grids of more than 10,000,000 points are refused.\n"
	"Exit status: 0 ok, 2 usage, 3 invalid grid or scenario, 4 I/O error, 5 runtime error.\n"
	"Example: plumb sweep scenarios/grids/four-boxes-glm5.yaml -o four-boxes.csv\n";

struct sopts {
	const char *grid, *outpath, *format;
	int jobs, fresh, check, stats, noprogress, csv_raw;
};

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'F' },
	{ "fresh", no_argument, NULL, 'f' },
	{ "check", no_argument, NULL, 'c' },
	{ "stats", no_argument, NULL, 's' },
	{ "no-progress", no_argument, NULL, 'n' },
	{ "csv-raw", no_argument, NULL, 'r' },
	{ NULL, 0, NULL, 0 }
};

static int parse_args(int argc, char **argv, struct sopts *o)
{
	int i, opt;
	memset(o, 0, sizeof(*o));
	o->outpath = "-";
	o->format = "csv";
	cmd_getopt_start();
	while ((opt = cmd_getopt("sweep", argc, argv, "o:j:", longopts)) != -1) {
		const char *v = optarg;
		switch (opt) {
		case 'o':
			o->outpath = v;
			break;
		case 'F':
			if (strcmp(v, "csv") && strcmp(v, "json"))
				return cmd_usage_error("sweep", "--format must be csv or json, not '%s'", v);
			o->format = v;
			break;
		case 'j': {
			char *end;
			long n = strtol(v, &end, 10);
			if (end == v || *end || n < 1 || n > 1024)
				return cmd_usage_error("sweep", "-j needs a thread count 1-1024, not '%s'", v);
			o->jobs = (int)n;
			break;
		}
		case 'f':
			o->fresh = 1;
			break;
		case 'c':
			o->check = 1;
			break;
		case 's':
			o->stats = 1;
			break;
		case 'n':
			o->noprogress = 1;
			break;
		case 'r':
			o->csv_raw = 1;
			break;
		default:
			return -opt;
		}
	}
	for (i = optind; i < argc; i++) {
		if (o->grid)
			return cmd_usage_error("sweep", "one GRID file");
		o->grid = argv[i];
	}
	if (!o->grid)
		return cmd_usage_error("sweep", "missing GRID file");
	return 0;
}

static void print_check(const struct swp_grid *g)
{
	struct swp_eval *e = swp_eval_new(g, SWP_CSV);
	char *h = e ? swp_header(e) : NULL;
	int a;
	printf("%s: %llu points", g->file, (unsigned long long)g->npoints);
	for (a = 0; a < g->naxes; a++)
		printf("%s%s %zu", a ? " x " : " = ", g->names[g->axes[a].name].name, g->axes[a].nitems);
	printf("\nscenario files: %d\ncolumns: %s", g->nbases, h ? h : "\n");
	free(h);
	swp_eval_free(e);
}

static long peak_rss_kib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_maxrss;
}

int cmd_sweep(int argc, char **argv)
{
	struct plumb_err err;
	struct swp_grid *g = NULL;
	struct swp_run_opts ro;
	struct swp_run_stats st;
	struct sopts o;
	enum swp_format fmt;
	int rc, rank = 0, size = 1;

	if ((rc = parse_args(argc, argv, &o)))
		return rc;
	fmt = !strcmp(o.format, "json") ? SWP_JSON : SWP_CSV;
#ifdef PLUMB_MPI
	{
		int provided, inited;
		MPI_Initialized(&inited);
		if (!inited)
			MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &size);
	}
#endif
	plumb_err_clear(&err);
	if ((rc = swp_grid_load(o.grid, &g, &err)) == 0) {
		g->csv_raw = o.csv_raw;
		rc = swp_grid_check(g, &err);
	}
#ifdef PLUMB_MPI
	if (size > 1) {
		/* Every rank reads the grid; all go on only if all could. */
		int worst;
		MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (worst < 0 && rc == 0) {
			rc = worst;
			plumb_err_set(&err, -worst, NULL, 0, 0,
				      "another rank could not read the grid or its scenario files (are they on every node?)");
		}
	}
#endif
	if (rc < 0)
		goto fail;
	if (o.check) {
		if (rank == 0)
			print_check(g);
		goto done;
	}
	memset(&ro, 0, sizeof(ro));
	ro.outpath = o.outpath;
	ro.jobs = o.jobs;
	if (!ro.jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		ro.jobs = size > 1 ? 1 : n < 1 ? 1 : n > 64 ? 64 : (int)n;
	}
	ro.progress = !o.noprogress && rank == 0 && isatty(STDERR_FILENO);
	ro.resume = !o.fresh;
#ifdef PLUMB_MPI
	if (size > 1)
		rc = swp_run_mpi(g, fmt, &ro, &st, &err);
	else
#endif
		rc = swp_run(g, fmt, &ro, &st, &err);
	if (rc < 0)
		goto fail;
	if (o.stats && rank == 0)
		fprintf(stderr,
			"sweep: %llu points (%llu computed, %llu from the old output, %llu old rows kept) in %.3f s: %.1f points/s; "
			"steps simulated %llu, cache hits %llu of %llu; peak RSS %ld KiB; %d threads x %d ranks\n",
			(unsigned long long)st.points, (unsigned long long)st.computed,
			(unsigned long long)st.reused, (unsigned long long)st.kept, st.wall_s,
			st.wall_s > 0 ? (double)st.computed / st.wall_s : 0,
			(unsigned long long)st.cache.misses, (unsigned long long)st.cache.hits,
			(unsigned long long)st.cache.lookups, peak_rss_kib(), ro.jobs, size);
done:
	swp_grid_free(g);
#ifdef PLUMB_MPI
	MPI_Finalize();
#endif
	return PLUMB_OK;
fail:
	if (rank == 0)
		plumb_err_print(&err);
	swp_grid_free(g);
#ifdef PLUMB_MPI
	MPI_Finalize();
#endif
	return plumb_err_status(&err);
}
