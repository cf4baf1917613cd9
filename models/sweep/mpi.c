/*
 * mpi.c - a sweep across MPI ranks (sweep.h swp_run_mpi); built only with
 * `make MPI=1` (PLUMB_MPI).
 *
 * Rank 0 runs the ordinary runner (run.c): its worker threads evaluate
 * points and its main thread writes rows in point order. Between rows the
 * writer polls MPI: a request from rank k carries the rows of k's last
 * chunk (none at first) and is answered with the next chunk of point
 * indices, or an empty chunk when every point has been handed out (k then
 * stops). Chunks shrink as the sweep ends (remaining / (4 x ranks), at
 * least 1, at most 64), so ranks finish together. Only main threads call
 * MPI (MPI_THREAD_FUNNELED).
 *
 * Messages: REQ = n rows, each (index, length, bytes); WORK = indices;
 * ERR = a struct plumb_err. Every rank reads the grid itself; each has its
 * own step cache.
 */
#ifdef PLUMB_MPI

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "sweep_int.h"

enum { T_REQ = 1, T_WORK = 2, T_ERR = 3 };
#define MAXCHUNK 64

struct master {
	int size;
	int *pending;           /* rank waits for work */
	int *stopped;
	int nstopped;
	int failed;
};

static void put64(unsigned char **p, uint64_t v)
{
	memcpy(*p, &v, 8);
	*p += 8;
}

static uint64_t get64(const unsigned char **p)
{
	uint64_t v;
	memcpy(&v, *p, 8);
	*p += 8;
	return v;
}

/* Answer rank k: a chunk, an empty chunk (stop), or nothing yet. */
static void serve(struct master *m, struct swp_runner *r, int k)
{
	uint64_t idx[MAXCHUNK], left = 0;
	int n = 0, want;
	if (m->failed || (left = swp_runner_left(r)) == 0) {
		MPI_Send(idx, 0, MPI_UINT64_T, k, T_WORK, MPI_COMM_WORLD);
		m->pending[k] = 0;
		m->stopped[k] = 1;
		m->nstopped++;
		return;
	}
	want = (int)(left / (uint64_t)(4 * m->size));
	want = want < 1 ? 1 : want > MAXCHUNK ? MAXCHUNK : want;
	n = swp_runner_take(r, idx, want, 0);
	if (n == 0) {
		m->pending[k] = 1;      /* window full, or old rows only: ask again later */
		if (swp_runner_left(r) == 0)
			serve(m, r, k);
		return;
	}
	m->pending[k] = 0;
	MPI_Send(idx, n, MPI_UINT64_T, k, T_WORK, MPI_COMM_WORLD);
}

/* Take one message from any rank, if there is one. */
static int receive(struct master *m, struct swp_runner *r, int block, struct plumb_err *err)
{
	MPI_Status stt;
	int flag = 1, len, k;
	unsigned char *buf;
	const unsigned char *p;
	uint64_t n, i;

	if (block)
		MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &stt);
	else
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &stt);
	if (!flag)
		return 0;
	MPI_Get_count(&stt, MPI_BYTE, &len);
	k = stt.MPI_SOURCE;
	if (!(buf = malloc((size_t)len + 1)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	MPI_Recv(buf, len, MPI_BYTE, k, stt.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (stt.MPI_TAG == T_ERR) {
		struct plumb_err e;
		memcpy(&e, buf, sizeof(e) <= (size_t)len ? sizeof(e) : (size_t)len);
		free(buf);
		m->stopped[k] = 1;
		m->nstopped++;
		m->failed = 1;
		swp_runner_fail(r, &e);
		*err = e;
		return -plumb_err_status(err);
	}
	p = buf;
	n = get64(&p);
	for (i = 0; i < n; i++) {
		uint64_t idx = get64(&p), l = get64(&p);
		char *row = malloc((size_t)l + 1);
		if (!row) {
			free(buf);
			return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		}
		memcpy(row, p, (size_t)l);
		row[l] = '\0';
		p += l;
		swp_runner_put(r, idx, row);
	}
	free(buf);
	serve(m, r, k);
	return 1;
}

static int poll_master(void *ctx, struct swp_runner *r, struct plumb_err *err)
{
	struct master *m = ctx;
	int k, rc;
	for (k = 1; k < m->size; k++)
		if (m->pending[k])
			serve(m, r, k);
	while ((rc = receive(m, r, 0, err)) > 0)
		;
	return rc;
}

static int run_master(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
		      int size, struct swp_run_stats *st, struct plumb_err *err)
{
	struct master m;
	int rc, k;

	memset(&m, 0, sizeof(m));
	m.size = size;
	m.pending = calloc((size_t)size, sizeof(int));
	m.stopped = calloc((size_t)size, sizeof(int));
	if (!m.pending || !m.stopped) {
		free(m.pending);
		free(m.stopped);
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	}
	rc = swp_run_with(g, fmt, o, poll_master, &m, 1, st, err);
	/* Every other rank stops: pending ones now, busy ones at their next request. */
	m.failed = 1;
	for (k = 1; k < size; k++)
		if (m.pending[k])
			serve(&m, NULL, k);
	while (m.nstopped < size - 1) {
		MPI_Status stt;
		int len;
		char *buf;
		MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &stt);
		MPI_Get_count(&stt, MPI_BYTE, &len);
		buf = malloc((size_t)len + 1);
		MPI_Recv(buf, len, MPI_BYTE, stt.MPI_SOURCE, stt.MPI_TAG, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		free(buf);
		if (stt.MPI_TAG == T_ERR) {
			m.stopped[stt.MPI_SOURCE] = 1;
			m.nstopped++;
			continue;
		}
		serve(&m, NULL, stt.MPI_SOURCE);
	}
	free(m.pending);
	free(m.stopped);
	return rc;
}

static int run_worker(const struct swp_grid *g, enum swp_format fmt, int jobs,
		      struct plumb_err *err)
{
	struct swp_eval *e = swp_eval_new(g, fmt);
	uint64_t idx[MAXCHUNK], zero = 0;
	char *rows[MAXCHUNK];
	int rc = 0;

	if (!e) {
		plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
		MPI_Send(err, (int)sizeof(*err), MPI_BYTE, 0, T_ERR, MPI_COMM_WORLD);
		return -PLUMB_ERUNTIME;
	}
	MPI_Send(&zero, 8, MPI_BYTE, 0, T_REQ, MPI_COMM_WORLD);
	for (;;) {
		MPI_Status stt;
		int n, i;
		size_t len = 8;
		unsigned char *buf, *p;

		MPI_Recv(idx, MAXCHUNK, MPI_UINT64_T, 0, T_WORK, MPI_COMM_WORLD, &stt);
		MPI_Get_count(&stt, MPI_UINT64_T, &n);
		if (n == 0)
			break;
		if ((rc = swp_eval_many(e, idx, n, jobs, rows, err)) < 0) {
			MPI_Send(err, (int)sizeof(*err), MPI_BYTE, 0, T_ERR, MPI_COMM_WORLD);
			break;
		}
		for (i = 0; i < n; i++)
			len += 16 + strlen(rows[i]);
		if (!(buf = malloc(len))) {
			rc = plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
			MPI_Send(err, (int)sizeof(*err), MPI_BYTE, 0, T_ERR, MPI_COMM_WORLD);
			for (i = 0; i < n; i++)
				free(rows[i]);
			break;
		}
		p = buf;
		put64(&p, (uint64_t)n);
		for (i = 0; i < n; i++) {
			size_t l = strlen(rows[i]);
			put64(&p, idx[i]);
			put64(&p, (uint64_t)l);
			memcpy(p, rows[i], l);
			p += l;
			free(rows[i]);
		}
		MPI_Send(buf, (int)len, MPI_BYTE, 0, T_REQ, MPI_COMM_WORLD);
		free(buf);
	}
	swp_eval_free(e);
	return rc;
}

int swp_run_mpi(const struct swp_grid *g, enum swp_format fmt, const struct swp_run_opts *o,
		struct swp_run_stats *st, struct plumb_err *err)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(st, 0, sizeof(*st));
	if (rank == 0)
		return run_master(g, fmt, o, size, st, err);
	return run_worker(g, fmt, o->jobs, err);
}

#else
/* Without PLUMB_MPI this file is empty; ISO C wants a declaration. */
typedef int swp_mpi_unused;
#endif
