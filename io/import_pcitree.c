/*
 * import_pcitree.c - the lspci device list (import_int.h) -> the scenario
 * tree; imp_lspci_parse() (import.h) runs both halves.
 *
 * Parents: a device sits below the bridge whose secondary bus is its bus;
 * one that no bridge claims hangs on a root bus of its own bus number. When
 * no bridge says which buses it forwards (a flat listing), the parent is
 * taken to be the bridge with the highest address on a lower bus (lspci
 * numbers buses depth first).
 *
 * Folding: a bridge on a root bus is a root port; a bridge below a root port
 * or below a switch downstream port is a switch upstream port, and it forms
 * one switch node with its downstream ports. Subtrees without a GPU or NIC
 * are dropped, as are audio functions, placeholder and management endpoints.
 *
 * Sockets: from the NUMA nodes the devices report (-vvv), else --sockets or
 * a guess, the root buses split in bus order.
 */
#include "import_int.h"
#include "scn.h"

#include <stdlib.h>
#include <string.h>

static void classify(struct imp_pdev *d, const struct scn_catalog *cat)
{
	int audio = imp_has(d->name, "Audio Controller") || imp_has(d->name, "Audio device") ||
		    imp_has(d->name, "HD Audio") || imp_has(d->cls, "Audio");
	int known = d->name[0] ? imp_gpu_lookup(cat, d->name) : -1;
	int nvidia = (imp_has(d->name, "NVIDIA") && !imp_has(d->name, "NVSwitch")) || known >= 0 ||
		     (imp_has(d->name, "AMD/ATI") && imp_has(d->name, "Instinct"));
	/* a NIC's every port is a function of its own (a dual-port ConnectX:
	 * .0 and .1); SR-IOV virtual functions are not ports */
	int port = !imp_has(d->name, "Virtual Function");

	d->type = T_OTHER;
	d->gpu = -1;
	if (d->is_root || d->is_bridge || audio)
		return;
	if (d->cls[0]) {
		/* AMD Instinct GPUs are "Processing accelerators" */
		if (nvidia &&
		    (imp_has(d->cls, "3D controller") || imp_has(d->cls, "VGA compatible") ||
		     imp_has(d->cls, "Display controller") ||
		     imp_has(d->cls, "Processing accelerators")))
			d->type = T_GPU;
		else if ((imp_has(d->cls, "Ethernet") || imp_has(d->cls, "Infiniband")) && port)
			d->type = T_NIC;
	} else if (nvidia && d->fn == 0) {
		d->type = T_GPU;
	} else if ((imp_has(d->name, "Mellanox") || imp_has(d->name, "ConnectX") ||
		    imp_has(d->name, "Ethernet") || imp_has(d->name, "InfiniBand") ||
		    imp_has(d->name, "BlueField") || imp_has(d->name, "GbE")) && port) {
		d->type = T_NIC;
	}
	if (d->type == T_GPU)
		d->gpu = known;
}

/* Give every device a parent; create root buses as needed. */
static int link_parents(struct imp_ls *L, struct plumb_err *err)
{
	int i, j, n = L->n;

	for (i = 0; i < n; i++) {
		struct imp_pdev *d = &L->d[i];
		int best = -1;
		if (d->is_root || d->parent >= 0)
			continue;
		for (j = 0; j < n; j++) {
			const struct imp_pdev *b = &L->d[j];
			if (j == i || !b->is_bridge || b->domain != d->domain)
				continue;
			if (L->any_sec) {
				if (b->sec >= 0 && b->sec == d->bus && d->bus >= 0) {
					best = j;
					break;
				}
			} else if (b->bus >= 0 && b->bus < d->bus &&
				   (best < 0 || b->bus > L->d[best].bus ||
				    (b->bus == L->d[best].bus &&
				     b->dev * 8 + b->fn > L->d[best].dev * 8 + L->d[best].fn))) {
				best = j;
			}
		}
		if (best < 0) {
			/* a root bus of its own */
			for (j = 0; j < L->n; j++)
				if (L->d[j].is_root && L->d[j].domain == d->domain &&
				    L->d[j].bus == d->bus)
					break;
			if (j == L->n) {
				if ((j = imp_ls_add(L, err)) < 0)
					return -PLUMB_EINPUT;
				d = &L->d[i];
				L->d[j].is_root = 1;
				L->d[j].domain = d->domain;
				L->d[j].bus = d->bus;
			}
			best = j;
		}
		d->parent = best;
	}
	/* cycles can only come from contradictory input: cut them */
	for (i = 0; i < L->n; i++) {
		int p = L->d[i].parent, steps = 0;
		while (p >= 0 && steps <= L->n) {
			p = L->d[p].parent;
			steps++;
		}
		if (steps > L->n)
			L->d[i].parent = -1, L->d[i].is_root = 1;
	}
	return 0;
}

/* -t without names: GPU = function 00.0 of a bus holding exactly 00.0 and 00.1. */
static int guess_gpus(struct imp_ls *L)
{
	int i, j, n = 0;

	for (i = 0; i < L->n; i++) {
		int f0 = -1, cnt = 0, ok = 1;
		if (!L->d[i].is_bridge)
			continue;
		for (j = 0; j < L->n; j++) {
			const struct imp_pdev *c = &L->d[j];
			if (c->parent != i)
				continue;
			cnt++;
			if (c->is_bridge || c->dev != 0 || c->fn > 1)
				ok = 0;
			else if (c->fn == 0)
				f0 = j;
		}
		if (ok && cnt == 2 && f0 >= 0) {
			L->d[f0].type = T_GPU;
			L->d[f0].guessed = 1;
			n++;
		}
	}
	return n;
}

static void short_model(char *dst, size_t n, const char *name)
{
	const char *b = NULL, *e = NULL, *p;

	/* the last [...] that is not a vendor:device id */
	for (p = name; (p = strchr(p, '[')) != NULL; p++) {
		const char *q = strchr(p, ']');
		if (!q)
			break;
		if (!(q - p == 10 && p[5] == ':') && q - p > 1) {
			b = p + 1;
			e = q;
		}
	}
	if (!b) {
		b = name;
		e = strstr(name, " (rev");
		if (!e)
			e = name + strlen(name);
	}
	imp_copy_trim(dst, n, b, e);
}

static void set_bdf(char *dst, size_t n, const struct imp_pdev *d, int with_devfn)
{
	if (d->bus < 0)
		dst[0] = '\0';
	else if (with_devfn)
		snprintf(dst, n, "%04x:%02x:%02x.%d", d->domain & 0xffff, d->bus & 0xff,
			 d->dev & 0x1f, d->fn & 7);
	else
		snprintf(dst, n, "%04x:%02x", d->domain & 0xffff, d->bus & 0xff);
}

struct emit {
	struct imp_ls *L;
	const struct scn_catalog *cat;
	struct imp_scn *s;
	const struct imp_opts *o;
	struct plumb_err *err;
};

static int emit_endpoint(struct emit *E, int i, int parent);
static void link_attrs(struct imp_node *nd, const struct imp_pdev *d);

/* Is j another NIC function of the device of NIC i (a port of one card)? */
static int same_card(const struct imp_ls *L, int i, int j)
{
	const struct imp_pdev *a = &L->d[i], *b = &L->d[j];
	return j != i && b->type == T_NIC && b->keep && b->parent == a->parent &&
	       b->domain == a->domain && b->bus == a->bus && b->dev == a->dev && a->bus >= 0;
}

/*
 * A NIC card with several ports (functions .0, .1, ... of one device, each
 * a port: a dual-port ConnectX) on one link: written as a switch of NICs
 * (docs/model-fabric.md: such a switch has no duplex bound of its own), every port
 * a NIC below it. 1 when i is such a port (all emitted with the first),
 * 0 when it is a lone NIC, -1 on error.
 */
static int emit_card(struct emit *E, int i, int parent)
{
	struct imp_ls *L = E->L;
	int j, n = 1, sw;
	for (j = 0; j < L->n; j++)
		n += same_card(L, i, j);
	if (n == 1)
		return 0;
	if (L->d[i].node >= 0)
		return 1;               /* emitted with the card's first port */
	if ((sw = imp_add_node(E->s, IMP_SW, parent, L->src, E->err)) < 0)
		return -1;
	snprintf(E->s->nodes[sw].model, sizeof(E->s->nodes[sw].model), "%d-port NIC", n);
	snprintf(E->s->nodes[sw].comment, sizeof(E->s->nodes[sw].comment),
		 "one NIC card, %d ports (PCI functions) on one link", n);
	link_attrs(&E->s->nodes[sw], &L->d[i]);
	L->d[i].node = sw;      /* marks the card emitted until its ports are */
	for (j = 0; j < L->n; j++)
		if ((j == i || same_card(L, i, j)) && emit_endpoint(E, j, -2 - sw) < 0)
			return -1;
	return 1;
}

/* Endpoint i below result node parent; parent -2 - k: a port of the card
 * whose switch is node k. */
static int emit_endpoint(struct emit *E, int i, int parent)
{
	struct imp_pdev *d = &E->L->d[i];
	struct imp_node *nd;
	const char *m;
	int k, rc;

	if (parent >= 0 && d->type == T_NIC && (rc = emit_card(E, i, parent)) != 0)
		return rc < 0 ? -1 : 0;
	if (parent < -1)
		parent = -2 - parent;
	k = imp_add_node(E->s, d->type == T_GPU ? IMP_GPU : IMP_NIC, parent, E->L->src, E->err);
	if (k < 0)
		return -1;
	nd = &E->s->nodes[k];
	d->node = k;
	/* Bus order as a non-negative int: domains past 0x7fff (and garbage
	 * device numbers) only lose ordering, not definedness. */
	nd->order = (int)(((unsigned)(d->domain & 0x7fff) << 16) | ((unsigned)(d->bus & 0xff) << 8) |
			  ((unsigned)(d->dev & 0x1f) << 3) | (unsigned)(d->fn & 7));
	set_bdf(nd->bdf, sizeof(nd->bdf), d, 1);
	if (d->type == T_NIC) {
		short_model(nd->model, sizeof(nd->model), d->name);
		return 0;
	}
	m = d->gpu >= 0 ? E->cat->gpus[d->gpu].id : NULL;
	snprintf(nd->model, sizeof(nd->model), "%s",
		 m ? m : E->o->gpu_model ? E->o->gpu_model : "rtx-pro-6000");
	if (d->guessed)
		snprintf(nd->comment, sizeof(nd->comment),
			 "guessed: functions 00.0 + 00.1 behind a port; model not in the "
			 "input (--gpu-model)");
	else if (!m && d->name[0])
		snprintf(nd->comment, sizeof(nd->comment), "'%.90s' is not in the catalog "
			 "(--gpu-model)", d->name);
	else if (!m)
		snprintf(nd->comment, sizeof(nd->comment), "model not in the input (--gpu-model)");
	return 0;
}

/*
 * A GPU whose name the catalog does not know is an error at its name (the
 * first in the input), unless --gpu-model says what to write for it.
 */
static int check_unknown(const struct imp_ls *L, const struct scn_catalog *cat,
			 const struct imp_opts *o, struct plumb_err *err)
{
	char msg[900];
	int i, first = -1;

	if (o->gpu_model)
		return 0;
	for (i = 0; i < L->n; i++) {
		const struct imp_pdev *d = &L->d[i];
		if (d->type != T_GPU || d->guessed || !d->name[0] || d->gpu >= 0)
			continue;
		if (first < 0 || d->line < L->d[first].line)
			first = i;
	}
	if (first < 0)
		return 0;
	imp_gpu_unknown(cat, L->d[first].name, msg, sizeof(msg));
	return plumb_err_set(err, PLUMB_EINPUT, L->src, L->d[first].line, L->d[first].col,
			     "%s", msg);
}

static void link_attrs(struct imp_node *nd, const struct imp_pdev *d)
{
	if (d->gen > 0 && d->gen <= 6)
		nd->gen = d->gen;
	if (d->width > 0)
		nd->width = d->width;
}

/* Switch from upstream port u under result node parent. */
static int emit_switch(struct emit *E, int u, int parent)
{
	struct imp_ls *L = E->L;
	int k = imp_add_node(E->s, IMP_SW, parent, L->src, E->err), i, j, acs = -1;

	if (k < 0)
		return -1;
	L->d[u].node = k;
	link_attrs(&E->s->nodes[k], &L->d[u]);
	set_bdf(E->s->nodes[k].bdf, sizeof(E->s->nodes[k].bdf), &L->d[u], 1);
	if (L->d[u].name[0])
		short_model(E->s->nodes[k].model, sizeof(E->s->nodes[k].model), L->d[u].name);
	for (i = 0; i < L->n; i++) {
		const struct imp_pdev *dp = &L->d[i];
		if (dp->parent != u || !dp->keep)
			continue;
		if (!dp->is_bridge) {
			if (emit_endpoint(E, i, k) < 0)
				return -1;
			continue;
		}
		if (dp->acs >= 0)
			acs = acs < 0 ? dp->acs : acs && dp->acs;
		for (j = 0; j < L->n; j++) {
			if (L->d[j].parent != i || !L->d[j].keep)
				continue;
			if (L->d[j].is_bridge ? emit_switch(E, j, k) < 0 : emit_endpoint(E, j, k) < 0)
				return -1;
		}
	}
	E->s->nodes[k].acs = acs;
	return 0;
}

static int emit_root(struct emit *E, int r)
{
	struct imp_ls *L = E->L;
	int rc = imp_add_node(E->s, IMP_RC, -1, L->src, E->err), i, j;

	if (rc < 0)
		return -1;
	L->d[r].node = rc;
	set_bdf(E->s->nodes[rc].bdf, sizeof(E->s->nodes[rc].bdf), &L->d[r], 0);
	for (i = 0; i < L->n; i++) {
		const struct imp_pdev *d = &L->d[i];
		int rp;
		if (d->parent != r || !d->keep)
			continue;
		if ((rp = imp_add_node(E->s, IMP_RP, rc, L->src, E->err)) < 0)
			return -1;
		if (!d->is_bridge) {
			snprintf(E->s->nodes[rp].comment, sizeof(E->s->nodes[rp].comment),
				 "the endpoint sits on the root bus; port added");
			if (emit_endpoint(E, i, rp) < 0)
				return -1;
			continue;
		}
		link_attrs(&E->s->nodes[rp], d);
		E->s->nodes[rp].acs = d->acs;
		set_bdf(E->s->nodes[rp].bdf, sizeof(E->s->nodes[rp].bdf), d, 1);
		for (j = 0; j < L->n; j++) {
			if (L->d[j].parent != i || !L->d[j].keep)
				continue;
			if (L->d[j].is_bridge ? emit_switch(E, j, rp) < 0 : emit_endpoint(E, j, rp) < 0)
				return -1;
		}
	}
	return 0;
}

/* CPU vendor from the names of devices on root buses. */
static enum imp_vendor vendor(const struct imp_ls *L)
{
	int i, amd = 0, intel = 0;

	for (i = 0; i < L->n; i++) {
		const struct imp_pdev *d = &L->d[i];
		if (d->parent < 0 || !L->d[d->parent].is_root || d->type != T_OTHER)
			continue;
		if (imp_has(d->name, "Advanced Micro Devices") || imp_has(d->name, "[AMD]") ||
		    imp_has(d->name, "AMD "))
			amd++;
		else if (imp_has(d->name, "Intel Corporation"))
			intel++;
	}
	return amd > intel ? IMP_CPU_AMD : intel > amd ? IMP_CPU_INTEL : IMP_CPU_OTHER;
}

/* Sockets and NUMA nodes of the emitted root complexes. */
static void place_sockets(struct imp_ls *L, struct imp_scn *s, const struct imp_opts *o)
{
	int i, j, nroots = 0, idx = 0, nnuma = 0, numas[IMP_MAX_NUMA * 8];

	for (i = 0; i < L->n; i++)
		nroots += L->d[i].is_root;
	if (L->any_numa) {
		/* NUMA of a root bus: first device below it that reports one */
		for (i = 0; i < L->n; i++) {
			int r = i;
			if (L->d[i].numa < 0)
				continue;
			while (L->d[r].parent >= 0)
				r = L->d[r].parent;
			if (L->d[r].numa < 0)
				L->d[r].numa = L->d[i].numa;
		}
		for (i = 0; i < L->n; i++) {
			int v = L->d[i].is_root ? L->d[i].numa : -1;
			if (v < 0)
				continue;
			for (j = 0; j < nnuma && numas[j] != v; j++)
				;
			if (j == nnuma && nnuma < (int)(sizeof(numas) / sizeof(numas[0])))
				numas[nnuma++] = v;
		}
		for (i = 1; i < nnuma; i++)
			for (j = i; j > 0 && numas[j - 1] > numas[j]; j--) {
				int x = numas[j];
				numas[j] = numas[j - 1];
				numas[j - 1] = x;
			}
	}
	if (nnuma > 0 && nnuma <= IMP_MAX_NUMA && (!o->sockets || nnuma % o->sockets == 0)) {
		s->sockets = o->sockets ? o->sockets : nnuma;
		s->numa_per_socket = nnuma / s->sockets;
		for (i = 0; i < L->n; i++) {
			struct imp_node *nd;
			int rank = 0;
			if (!L->d[i].is_root || L->d[i].node < 0)
				continue;
			nd = &s->nodes[L->d[i].node];
			for (j = 0; j < nnuma; j++)
				if (numas[j] == L->d[i].numa)
					rank = j;
			nd->socket = rank / s->numa_per_socket;
			nd->numa = s->numa_per_socket > 1 ? rank : -1;
		}
		imp_note(s, "sockets from the %d NUMA node(s) the devices report%s", nnuma,
			 o->sockets ? " and --sockets" : "");
		return;
	}
	s->sockets = o->sockets ? o->sockets
				: (s->cpu_vendor == IMP_CPU_AMD && nroots >= 4 ? 2 : 1);
	s->numa_per_socket = 1;
	/* by root bus number, not listing order: lspci -t/-tv print the
	 * highest root bus first */
	for (i = 0; i < L->n; i++) {
		const struct imp_pdev *d = &L->d[i];
		if (!d->is_root || d->node < 0)
			continue;
		for (idx = 0, j = 0; j < L->n; j++) {
			const struct imp_pdev *e = &L->d[j];
			if (j != i && e->is_root &&
			    (e->domain < d->domain || (e->domain == d->domain &&
			     (e->bus < d->bus || (e->bus == d->bus && j < i)))))
				idx++;
		}
		s->nodes[d->node].socket = idx * s->sockets / (nroots ? nroots : 1);
	}
	imp_note(s, "no NUMA information: the %d root bus(es) were split in bus order into "
		 "%d socket(s)%s", nroots, s->sockets,
		 o->sockets ? " (--sockets)" : "; use --sockets N to change");
}

static int cmp_dev(const void *a, const void *b)
{
	const struct imp_pdev *x = a, *y = b;
	long kx = ((long)x->domain << 20) | ((long)(x->bus + 1) << 8) | (x->dev << 3) | x->fn;
	long ky = ((long)y->domain << 20) | ((long)(y->bus + 1) << 8) | (y->dev << 3) | y->fn;

	return (kx > ky) - (kx < ky);
}

int imp_lspci_parse(const char *text, size_t len, const struct imp_opts *o,
		    struct imp_scn *s, struct plumb_err *err)
{
	struct imp_ls L;
	struct emit E;
	const char *src = o->src ? o->src : "-";
	const struct scn_catalog *cat = o->catalog ? o->catalog : scn_catalog_builtin(err);
	int rc, i, ngpu = 0, nguess = 0, nunnamed = 0;

	if (!cat)
		return -PLUMB_ERUNTIME;
	if ((rc = imp_check_text(text, len, src, "lspci -tv, -t or -vvv", err)) < 0)
		return rc;
	memset(&L, 0, sizeof(L));
	L.src = src;
	imp_set_names(s, o, "lspci");
	if ((rc = imp_ls_read(&L, text, len, err)) < 0)
		goto out;
	/* lspci sorts by address; keep it so for any input (-PP lines hold
	 * their parents by index: left as read) */
	if (L.mode == M_LIST && L.n > 1 && !L.pp)
		qsort(L.d, (size_t)L.n, sizeof(L.d[0]), cmp_dev);
	for (i = 1; L.mode == M_LIST && !L.pp && i < L.n; i++) {
		const struct imp_pdev *a = &L.d[i - 1], *b = &L.d[i];
		if (!a->is_root && !b->is_root && a->domain == b->domain && a->bus == b->bus &&
		    a->dev == b->dev && a->fn == b->fn) {
			rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
					   "device %04x:%02x:%02x.%x is listed twice",
					   (unsigned)b->domain, (unsigned)b->bus, (unsigned)b->dev,
					   (unsigned)b->fn);
			goto out;
		}
	}
	if (L.mode == M_LIST && (rc = link_parents(&L, err)) < 0)
		goto out;
	if (L.mode == M_PATH && (rc = link_parents(&L, err)) < 0)
		goto out;
	for (i = 0; i < L.n; i++) {
		classify(&L.d[i], cat);
		if (imp_has(L.d[i].name, "Placeholder") || imp_has(L.d[i].name, "management endpoint"))
			L.d[i].type = T_OTHER;
	}
	if (!L.has_names && L.mode == M_TREE)
		nguess = guess_gpus(&L);
	if ((rc = check_unknown(&L, cat, o, err)) < 0)
		goto out;
	for (i = 0; i < L.n; i++) {   /* one GPU or NIC at one address */
		const struct imp_pdev *a = &L.d[i];
		int j;
		if (a->type == T_OTHER || a->is_root || a->bus < 0)
			continue;
		for (j = 0; j < i; j++) {
			const struct imp_pdev *b = &L.d[j];
			if (b->type != T_OTHER && !b->is_root && a->domain == b->domain &&
			    a->bus == b->bus && a->dev == b->dev && a->fn == b->fn) {
				rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
						   "device %04x:%02x:%02x.%x is listed twice",
						   (unsigned)a->domain, (unsigned)a->bus,
						   (unsigned)a->dev, (unsigned)a->fn);
				goto out;
			}
		}
	}
	for (i = 0; i < L.n; i++) {
		int p;
		if (L.d[i].type == T_OTHER)
			continue;
		ngpu += L.d[i].type == T_GPU;
		for (p = i; p >= 0 && !L.d[p].keep; p = L.d[p].parent)
			L.d[p].keep = 1;
	}
	if (ngpu > IMP_MAX_GPUS) {
		/* the import's limit: refused, never cut short */
		rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
				   "%d GPUs in the lspci output: plumb import reads one box of at most %d",
				   ngpu, IMP_MAX_GPUS);
		goto out;
	}
	if (ngpu == 0) {
		int nnic = 0;
		for (i = 0; i < L.n && !L.d[i].keep; i++)
			;
		if (i < L.n) {
			/* NICs alone make no scenario: the loader needs a GPU. */
			for (i = 0; i < L.n; i++)
				nnic += L.d[i].type == T_NIC;
			rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
					   "no GPU in the lspci output, only %d NIC(s); a "
					   "scenario needs at least one GPU", nnic);
			goto out;
		}
		if (i == L.n) {
			int ndev = 0;
			for (i = 0; i < L.n; i++)
				ndev += !L.d[i].is_root;
			rc = plumb_err_set(err, PLUMB_EINPUT, src, 0, 0,
					   "no GPU or NIC in the lspci output (%d device(s) read)",
					   ndev);
			goto out;
		}
	}
	s->cpu_vendor = vendor(&L);
	if (s->cpu_vendor == IMP_CPU_OTHER && imp_cpu_vendor_from_text(s, text, len) == 0)
		imp_note(s, "cpu_vendor: other: neither the root buses' names nor the rest of the "
			 "input show the CPU vendor; set host.cpu_vendor (amd or intel)");
	E.L = &L;
	E.cat = cat;
	E.s = s;
	E.o = o;
	E.err = err;
	for (i = 0; i < L.n; i++)
		if (L.d[i].is_root && L.d[i].keep && emit_root(&E, i) < 0) {
			rc = -PLUMB_EINPUT;
			goto out;
		}
	place_sockets(&L, s, o);
	if (nguess)
		imp_note(s, "lspci -t has no names: %d GPU(s) guessed as buses holding exactly "
			 "functions 00.0 and 00.1 behind a port", nguess);
	for (i = 0; i < L.n; i++)
		nunnamed += L.d[i].type == T_GPU && L.d[i].node >= 0 && L.d[i].gpu < 0 &&
			    (L.d[i].guessed || !L.d[i].name[0]);
	if (nunnamed && !o->gpu_model)
		imp_note(s, "%d GPU(s) not named in the input written as rtx-pro-6000; give "
			 "--gpu-model ID", nunnamed);
	if (L.mode == M_LIST && !L.any_sec && !L.pp)
		imp_note(s, "no bridge bus ranges in the input: parents inferred from bus numbers");
	rc = 0;
out:
	free(L.d);
	return rc;
}
