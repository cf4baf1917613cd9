/*
 * bench_closed.c - CPU cost of one closed-form collective against its
 * ranks (scripts/bench-closed.sh, docs/perf-cluster.md).
 *
 *   build/bench-closed SCENARIO ...
 *
 * For each scenario, of N GPUs, the ring all-reduce over all of them with
 * protocol LL at K = 100 x 1024 / N distinct sizes (4 KiB and up, 16 bytes
 * apart: each a new tuner question, none answered from the cache), timed
 * with clock() in this process after one untimed call (which builds the
 * scenario's view and routes, kept for the process). Prints CSV: gpus, evals, cpu_seconds, us_per_eval; then a row
 * `fit` with the exponent b of us_per_eval = a N^b (least squares on
 * logs). Stops with status 5 when a collective took the flow model, so
 * every figure is the closed form's.
 * Exit status: 0 ok, 2 usage, 3 invalid scenario, 5 runtime error.
 */
#include "coll.h"
#include "scn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct plumb_err err;
	struct topo_opts o;
	struct coll_spec c;
	struct coll_result r;
	int i, k, n, rc = 0, m = 0;
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-closed SCENARIO ...\n");
		return 2;
	}
	topo_opts_init(&o);
	printf("gpus,evals,cpu_seconds,us_per_eval\n");
	for (i = 1; i < argc && rc == 0; i++) {
		struct scenario *s = NULL;
		int evals, *gpus;
		clock_t t0;
		double cpu;

		plumb_err_clear(&err);
		if (scn_load(argv[i], &s, &err) < 0) {
			fprintf(stderr, "bench-closed: %s:%d:%d: %s\n", err.file, err.line, err.col,
				err.msg);
			return 3;
		}
		n = s->ngpus;
		if (n < 2 || !(gpus = malloc((size_t)n * sizeof(*gpus)))) {
			scn_free(s);
			return 5;
		}
		for (k = 0; k < n; k++)
			gpus[k] = k;
		memset(&c, 0, sizeof(c));
		c.op = COLL_ALLREDUCE;
		c.gpus = gpus;
		c.n = n;
		c.algo = ALGO_RING;
		c.proto = PROTO_LL;
		evals = 100 * 1024 / n;
		c.bytes = 1024;          /* untimed: builds the view and routes */
		if (coll_time(s, &o, &c, &r, &err) < 0)
			rc = 5;
		t0 = clock();
		for (k = 0; k < evals && rc == 0; k++) {
			c.bytes = 4096 + 16.0 * k;
			if (coll_time(s, &o, &c, &r, &err) < 0 || !r.closed) {
				fprintf(stderr, "bench-closed: %d GPUs, %g B: %s\n", n, c.bytes,
					r.closed ? err.msg : "took the flow model");
				rc = 5;
			}
		}
		cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
		free(gpus);
		scn_free(s);
		if (rc)
			break;
		printf("%d,%d,%.3f,%.1f\n", n, evals, cpu, cpu / evals * 1e6);
		if (cpu > 0) {
			double x = log(n), y = log(cpu / evals);
			sx += x;
			sy += y;
			sxx += x * x;
			sxy += x * y;
			m++;
		}
	}
	if (rc == 0 && m >= 2)
		printf("fit,,,%.2f\n", (m * sxy - sx * sy) / (m * sxx - sx * sx));
	return rc;
}
