/*
 * meas.h - measured data the calibration fits against, read from the text
 * real tools print (docs/data-formats.md describes every format).
 *
 *   meas_nccl_*  nccl-tests output (all_reduce_perf, all_gather_perf,
 *                reduce_scatter_perf, alltoall_perf, sendrecv_perf,
 *                broadcast_perf, ...): one or more runs, each a table of
 *                rows (size, count, type, redop, root, out-of-place and
 *                in-place time / algbw / busbw / #wrong)   io/meas_nccl.c
 *   meas_p2p_*   CUDA sample p2pBandwidthLatencyTest: the connectivity,
 *                bandwidth and latency matrices of one or more runs
 *                                                          io/meas_p2p.c
 *   meas_csv_*   plumb's own CSVs: collective timings, decode step times,
 *                serving throughput                        io/meas_csv.c
 *
 * Every parser reads a whole buffer (the text of one file) and returns a
 * heap object the caller frees with the matching _free(); _free(NULL) is a
 * no-op. On failure the out-pointer is NULL, err names file, line and
 * column, and the return value is -PLUMB_EINPUT (bad input), -PLUMB_EIO
 * (cannot read) or -PLUMB_ERUNTIME (out of memory). Inputs larger than
 * MEAS_MAX_INPUT bytes and inputs holding a NUL byte are refused. No parser
 * keeps a pointer into the caller's buffer, and none uses global state.
 *
 * Missing numbers ("N/A" in nccl-tests, an elided matrix cell) are NaN;
 * test with isnan().
 */
#ifndef PLUMB_MEAS_H
#define PLUMB_MEAS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define MEAS_MAX_INPUT (16u << 20)  /* largest input accepted, bytes */
#define MEAS_P2P_MAX_GPUS 128       /* largest matrix accepted */
/* Serving caps shared by the command line (plumb predict --concurrency,
 * --requests) and measured serving CSVs (concurrency, prompts), so a file
 * cannot ask the serving simulation for more than an option can.
 * Concurrency: published max-throughput runs reach 3,072 requests in flight
 * (validation/data/public-b200-dsr1fp4-trt-maxtput.csv); 4,096 leaves room.
 * The request-level simulation's cost grows faster than linearly with the
 * requests in flight (GLM-5 tp8 on the bare-metal box: 256 2.7 s, 512 13 s
 * on one core; docs/cli.md, "Limits"). */
#define MEAS_MAX_CONCURRENCY 4096
#define MEAS_MAX_REQUESTS 1000000

/* Where a run's op or GPU count came from. */
enum meas_src {
	MEAS_SRC_UNKNOWN = 0, /* nothing said it (ngpus is then 0) */
	MEAS_SRC_FILE,        /* the text itself */
	MEAS_SRC_HINT,        /* the caller's hint */
	MEAS_SRC_DEFAULT      /* op only: "allreduce" */
};

/* ---------------------------------------------------------------- nccl */

/* NCCL transports seen in "via P2P/...", "via SHM/...", "via NET/..." lines. */
enum {
	MEAS_TR_P2P = 1 << 0,
	MEAS_TR_SHM = 1 << 1,
	MEAS_TR_NET = 1 << 2,
	MEAS_TR_COLLNET = 1 << 3,
	MEAS_TR_NVLS = 1 << 4
};

struct meas_nccl_row {
	int line;               /* 1-based source line */
	uint64_t size;          /* bytes */
	uint64_t count;         /* elements */
	char type[16];          /* "float", "bfloat16", ... */
	char redop[16];         /* "sum", "none", ...; "" when the table has none */
	int root;               /* -1 when absent or not applicable */
	double oop_time_us, oop_algbw, oop_busbw; /* GB/s for the bandwidths */
	double oop_wrong;       /* #wrong elements, or the old max error */
	double ip_time_us, ip_algbw, ip_busbw, ip_wrong;
};

struct meas_nccl_device {
	int rank;
	int device;             /* CUDA device index, -1 when not shown */
	char bus[24];           /* "0x01", "0000:01:00"; "" when not shown */
	char name[64];          /* "NVIDIA GeForce RTX 4090" */
};

struct meas_nccl_run {
	char op[16];            /* "allreduce", "allgather", "reducescatter",
				   "alltoall", "sendrecv", "broadcast", or the
				   binary's name without "_perf" and "_" */
	enum meas_src op_src;
	int ngpus;              /* ranks in the collective; 0 when unknown */
	enum meas_src ngpus_src;
	int gpus_per_thread;    /* G of "# nThread T nGpus G": GPUs one host
				   thread drives; 0 when the header is absent */
	int line;               /* first line that belongs to the run */
	int has_root;           /* the table has a root column */
	int wrong_is_error;     /* old format: *_wrong hold the max error */
	unsigned transports;    /* MEAS_TR_* bits seen in NCCL INFO lines */
	double avg_busbw;       /* "# Avg bus bandwidth" footer, NaN if absent */
	int nccl_version;       /* "nccl-library=22907" of the "# nccl-tests version"
				   header (NCCL 2.29.7); 0 when absent */
	int ndevices;
	struct meas_nccl_device *devices; /* owned by the run */
	int nrows;
	struct meas_nccl_row *rows;       /* owned by the run */
};

struct meas_nccl_file {
	int nruns;
	struct meas_nccl_run *runs;       /* owned by the file */
};

/* What the caller knows when the text does not say it. */
struct meas_nccl_hint {
	const char *op;         /* NULL, "allreduce", "all_reduce", "all_reduce_perf" */
	int ngpus;              /* 0 = no hint */
};

/*
 * Parse nccl-tests output held in buf[0..len) (need not be NUL-terminated);
 * fname names it in messages. A run starts at a command line, a "# nccl-tests
 * version", "# Collective test starting", "# nThread" or column-header line
 * that follows data rows; every run has at least one row. The op and GPU
 * count come from the text first, then from hint (may be NULL), then the
 * op defaults to "allreduce" and the GPU count stays unknown (0).
 * On success *out is a new file the caller frees with meas_nccl_free().
 * Errors (PLUMB_EINPUT): no data rows, a data row with the wrong number of
 * fields or a non-numeric value, a number out of range, NUL bytes, input
 * larger than MEAS_MAX_INPUT; PLUMB_EUSAGE: unknown op in hint.
 * Complexity: O(len).
 */
int meas_nccl_parse(const char *buf, size_t len, const char *fname,
		    const struct meas_nccl_hint *hint,
		    struct meas_nccl_file **out, struct plumb_err *err);

/* Read path ("-" = stdin) and parse it as meas_nccl_parse() does. */
int meas_nccl_parse_file(const char *path, const struct meas_nccl_hint *hint,
			 struct meas_nccl_file **out, struct plumb_err *err);

void meas_nccl_free(struct meas_nccl_file *f);

/* Canonical op name for "all_reduce", "all_reduce_perf", "AllReduce", ...;
 * NULL when the name is not one of the six collectives. Static string. */
const char *meas_nccl_op_name(const char *name);

/* ----------------------------------------------------------------- p2p */

/* The matrices of p2pBandwidthLatencyTest, in the order it prints them. */
enum meas_p2p_kind {
	MEAS_P2P_CONNECTIVITY,  /* "P2P Connectivity Matrix", 0/1 */
	MEAS_P2P_UNI_DISABLED,  /* GB/s */
	MEAS_P2P_UNI_WRITES,    /* "Unidirectional P2P=Enabled ... (P2P Writes)" */
	MEAS_P2P_UNI_READS,     /* "Unidirectional P2P=Enabled ... (P2P Reads)" */
	MEAS_P2P_BI_DISABLED,
	MEAS_P2P_BI_ENABLED,
	MEAS_P2P_LAT_DISABLED_GPU, /* us */
	MEAS_P2P_LAT_DISABLED_CPU,
	MEAS_P2P_LAT_WRITES_GPU,
	MEAS_P2P_LAT_WRITES_CPU,
	MEAS_P2P_LAT_READS_GPU,
	MEAS_P2P_LAT_READS_CPU,
	MEAS_P2P_NKINDS
};

struct meas_p2p_matrix {
	int present;            /* 1 when at least one row was read */
	int line;               /* line of the section title, 0 if absent */
	int nmissing;           /* cells not given: elided rows, "—", cut rows */
	double *v;              /* n*n, v[src*n + dst], NaN where missing;
				   NULL when absent; owned by the run */
};

struct meas_p2p_device {
	int index;
	char name[96];          /* "NVIDIA A100-SXM4-80GB" */
	char bus[16];           /* pciBusID as printed, "7", "c1" */
};

struct meas_p2p_run {
	int n;                  /* GPUs: the size of every matrix */
	int line;               /* first line that belongs to the run */
	int ndevices;
	struct meas_p2p_device *devices;  /* owned by the run */
	struct meas_p2p_matrix m[MEAS_P2P_NKINDS];
};

struct meas_p2p_file {
	int nruns;
	struct meas_p2p_run *runs;        /* owned by the file */
};

/*
 * Parse p2pBandwidthLatencyTest output held in buf[0..len). A run starts at
 * the test's banner, a device list or a matrix that the current run
 * already has (or whose size differs); runs without a matrix are dropped.
 * Partial text is fine: sections may be missing, rows elided ("[...]"),
 * cells "—"; what is there is kept. On success *out is a new file the
 * caller frees with meas_p2p_free().
 * Errors (PLUMB_EINPUT): no matrix at all, a row index out of range or
 * repeated, a row with too many values or (without an elision mark) too
 * few, a non-numeric or negative cell, a connectivity cell other than 0/1,
 * a matrix whose size differs from the device list above it, a matrix
 * larger than MEAS_P2P_MAX_GPUS, NUL bytes, input larger than
 * MEAS_MAX_INPUT.
 * Complexity: O(len + runs * n^2).
 */
int meas_p2p_parse(const char *buf, size_t len, const char *fname,
		   struct meas_p2p_file **out, struct plumb_err *err);

int meas_p2p_parse_file(const char *path, struct meas_p2p_file **out,
			struct plumb_err *err);

void meas_p2p_free(struct meas_p2p_file *f);

/* Cell (src, dst) of matrix kind of run r: NaN when absent or missing. */
double meas_p2p_at(const struct meas_p2p_run *r, enum meas_p2p_kind kind,
		   int src, int dst);

/* "uni_disabled", "lat_writes_cpu", ...: a stable name for reports. */
const char *meas_p2p_kind_name(enum meas_p2p_kind kind);

/* ----------------------------------------------------------------- csv */

enum meas_csv_kind {
	MEAS_CSV_COLLECTIVES,   /* op,gpus,bytes,time_us */
	MEAS_CSV_DECODE,        /* layout,batch,context,step_ms */
	MEAS_CSV_SERVING,       /* layout,concurrency,context,tok_s[,tpot_ms,
				   ttft_ms,input_len,output_len,prompts,peak_tok_s,
				   cached_prompts] */
	MEAS_CSV_REQUESTS,      /* arrival_s,input_len,output_len: a trace */
	MEAS_CSV_NKINDS
};

/* One data line. Fields the kind does not have are 0, "", NaN (the
 * doubles) or -1 (context, input_len, output_len). */
struct meas_csv_row {
	int line;               /* 1-based source line */
	/* collectives */
	char op[16];            /* canonical, lower case */
	int gpus;
	uint64_t bytes;
	double time_us;
	/* decode and serving */
	char layout[32];        /* [a-z0-9]+ */
	long context;           /* tokens already in the KV cache */
	/* decode */
	int batch;
	double step_ms;
	/* serving */
	int concurrency;
	double tok_s;           /* total output tokens per second */
	double tpot_ms, ttft_ms;  /* NaN when not given */
	double arrival_s;       /* requests: seconds from the start */
	double peak_tok_s;      /* the benchmark's peak output tok/s (most tokens in
				   one second of the run), NaN when not given */
	double kv_xfer_ms;      /* disaggregated designs: mean KV transfer from prefill
				   to decode, NaN when not given */
	long input_len, output_len; /* -1 when not given */
	long prompts;           /* requests of the benchmark run, 0 when not given */
	long cached_prompts;    /* its first prompts an earlier run on the same server
				   already sent whole (prefix-cache hits), 0 when not
				   given */
};

struct meas_csv {
	enum meas_csv_kind kind;
	int nrows;
	struct meas_csv_row *rows;        /* owned by the struct */
};

/*
 * Parse one CSV held in buf[0..len); the kind follows from the header.
 * On success *out is a new table the caller frees with meas_csv_free().
 * Errors (PLUMB_EINPUT), each at file:line:col: empty file, missing header,
 * header of no known kind, unknown, repeated or missing column, no data
 * rows, wrong number of fields, unterminated quote, non-numeric value,
 * NaN/inf, number out of range, value below its minimum, unknown op, bad
 * layout name, duplicate point (same key columns twice), NUL bytes, input
 * larger than MEAS_MAX_INPUT. Complexity: O(len + rows log rows).
 */
int meas_csv_parse(const char *buf, size_t len, const char *fname,
		   struct meas_csv **out, struct plumb_err *err);

int meas_csv_parse_file(const char *path, struct meas_csv **out,
			struct plumb_err *err);

void meas_csv_free(struct meas_csv *t);

/* "collectives", "decode", "serving". */
const char *meas_csv_kind_name(enum meas_csv_kind kind);

#endif
