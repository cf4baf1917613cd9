/*
 * scn_hosts.c - a scenario of several boxes: `hosts` (inline machines or
 * `box: FILE`, each appended with its nodes, GPUs, sockets and NUMA nodes
 * renumbered after the boxes before it) and the `network` joining their NICs.
 */
#include "scn_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "ytree.h"

static const char *const hosts_keys[] = { "name", "count", "box", "host", "pcie", "nvlink", "xgmi", NULL };
static const char *const network_keys[] = { "kind", "port_gbps", "switch", NULL };
static const char *const netswitch_keys[] = { "model", "ports", NULL };
static const char *const net_kind_names[] = { "infiniband", "roce", NULL };

const char *scn_net_kind_name(enum scn_net_kind k)
{
	return net_kind_names[k];
}

/* The first host field in which box b's host differs from a's, or NULL. */
static const char *host_differs(const struct scn_host *a, const struct scn_host *b)
{
	if (a->cpu_vendor != b->cpu_vendor)
		return "cpu_vendor";
	if (a->numa_per_socket != b->numa_per_socket)
		return "numa_per_socket";
	if (a->cores_per_socket != b->cores_per_socket)
		return "cores_per_socket";
	if (a->threads_per_core != b->threads_per_core)
		return "threads_per_core";
	if (strcmp(a->inter_socket_kind, b->inter_socket_kind) ||
	    a->inter_socket_gbs != b->inter_socket_gbs ||
	    a->inter_socket_latency_ns != b->inter_socket_latency_ns)
		return "inter_socket";
	if (a->p2p_across_sockets != b->p2p_across_sockets)
		return "p2p_across_sockets";
	if (a->p2p_patched != b->p2p_patched)
		return "p2p_driver";
	return NULL;
}

/*
 * Append box b (a machine parsed on its own) to s as host number s->nhosts,
 * named name; at is the hosts entry (for messages).
 */
static int add_box(const struct ytree *t, const struct ynode *at, struct scenario *s,
		   const struct scenario *b, const char *name, const char *source,
		   struct plumb_err *err)
{
	struct scn_box *h;
	int i, rc, noff = s->nnodes, goff = s->ngpus, soff, nps;
	const char *diff;

	if (s->nhosts >= SCN_MAX_HOSTS)
		return yerr(t, at, PLUMB_EINPUT, err, "more than %d hosts", SCN_MAX_HOSTS);
	for (i = 0; i < s->nhosts; i++)
		if (strcmp(s->hosts[i].name, name) == 0)
			return yerr(t, at, PLUMB_EINPUT, err, "duplicate host name '%s' (first at line %d)",
				    name, s->hosts[i].line);
	if (s->nhosts == 0) {
		s->host = b->host;
		s->host.sockets = 0;
	} else if ((diff = host_differs(&s->host, &b->host))) {
		return yerr(t, at, PLUMB_EINPUT, err,
			    "host '%s' differs from host '%s' in %s; the hosts of one scenario share their CPU kind",
			    name, s->hosts[0].name, diff);
	}
	soff = s->host.sockets;
	nps = s->host.numa_per_socket;
	if ((soff + b->host.sockets) * nps > SCN_MAX_SOCKETS)
		return yerr(t, at, PLUMB_EINPUT, err,
			    "the hosts hold more than %d sockets x numa_per_socket in all (host '%s' would make %d)",
			    SCN_MAX_SOCKETS, name, (soff + b->host.sockets) * nps);
	if (noff + b->nnodes > SCN_MAX_NODES)
		return yerr(t, at, PLUMB_EINPUT, err, "the hosts hold more than %d pcie entries in all",
			    SCN_MAX_NODES);
	if (goff + b->ngpus > SCN_MAX_GPUS)
		return yerr(t, at, PLUMB_EINPUT, err, "the hosts hold more than %d GPUs in all",
			    SCN_MAX_GPUS);
	if ((rc = scn_room_hosts(s, s->nhosts + 1, err)) < 0 ||
	    (rc = scn_room_nodes(s, noff + b->nnodes, err)) < 0 ||
	    (rc = scn_room_gpus(s, goff + b->ngpus, err)) < 0 ||
	    (rc = scn_room_nvlink(s, s->nnvlink + b->nnvlink, err)) < 0)
		return rc;
	h = &s->hosts[s->nhosts];
	memset(h, 0, sizeof(*h));
	snprintf(h->name, sizeof(h->name), "%s", name);
	if (source && !(h->source = plumb_keep_path(source)))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	h->line = at->line;
	h->col = at->col;
	h->first_node = noff;
	h->nnodes = b->nnodes;
	h->first_gpu = goff;
	h->ngpus = b->ngpus;
	h->first_socket = soff;
	h->nsockets = b->host.sockets;
	for (i = 0; i < b->nnodes; i++) {
		struct scn_node *d = &s->nodes[noff + i];
		*d = b->nodes[i];
		snprintf(d->id, sizeof(d->id), "%s.%.*s", name,
			 (int)(sizeof(d->id) - strlen(name) - 2), b->nodes[i].id);
		if (d->parent >= 0)
			d->parent += noff;
		d->socket += soff;
		d->numa += soff * nps;
		d->host = s->nhosts;
		if (d->gpu_index >= 0) {
			d->gpu_index += goff;
			s->gpu_node[d->gpu_index] = noff + i;
		}
		h->nnics += d->kind == SCN_NIC;
	}
	/* the boxes' CPU lists, by NUMA node across hosts, when one gives them */
	if (b->nnuma_cpus || s->nnuma_cpus) {
		if ((rc = scn_room_numa(s, (soff + b->host.sockets) * nps, err)) < 0)
			return rc;
		for (i = 0; i < b->nnuma_cpus; i++)
			memcpy(s->numa_cpus[soff * nps + i], b->numa_cpus[i], sizeof(s->numa_cpus[i]));
	}
	for (i = 0; i < b->nnvlink; i++) {
		s->nvlink[s->nnvlink] = b->nvlink[i];
		s->nvlink[s->nnvlink].a += goff;
		s->nvlink[s->nnvlink].b += goff;
		s->nnvlink++;
	}
	s->nvswitch |= b->nvswitch;
	s->xgmi |= b->xgmi;
	s->nnodes += b->nnodes;
	s->ngpus += b->ngpus;
	s->host.sockets += b->host.sockets;
	s->nhosts++;
	return 0;
}

/*
 * The machine of `box: FILE` (a scenario file of one box, relative to the
 * scenario's directory) into b. Its host, pcie and nvlink are taken; the
 * rest of it (name, nccl, serving, constants) is the multi-host
 * scenario's own, and it must run on bare metal.
 */
static int load_box(const struct ytree *t, const struct ynode *v, struct scenario *b,
		    struct plumb_err *err)
{
	static const char *const refused[] = { "hosts", "network", "gpu_catalog", "gpu_models", NULL };
	struct ytree *bt = NULL;
	const struct ynode *r, *vm, *mode;
	char *path;
	int rc, i;

	if ((rc = yexpect(t, v, Y_SCALAR, "box", err)) < 0)
		return rc;
	if (!(path = input_path_beside(t->file, v->str)))   /* whole, never cut */
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	if ((rc = ytree_load(path, &bt, err)) < 0) {
		if (err && err->line == 0) {
			/* unreadable: say so where the scenario names it */
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			rc = yerr(t, v, -rc, err, "box file %s: %s", path, msg);
		}
		free(path);
		return rc;
	}
	r = bt->root;
	if (!r) {
		rc = plumb_err_set(err, PLUMB_EINPUT, path, 1, 1, "empty box file (expected a scenario of one box)");
		goto out;
	}
	if ((rc = yexpect(bt, r, Y_MAP, "box", err)) < 0 ||
	    (rc = ymap_check_keys(bt, r, "scenario", scn_top_keys, err)) < 0)
		goto out;
	for (i = 0; refused[i]; i++)
		if (ymap_get(r, refused[i])) {
			rc = yerr(bt, ymap_get(r, refused[i]), PLUMB_EINPUT, err,
				  "a box file describes one box: '%s' belongs in the scenario that names it",
				  refused[i]);
			goto out;
		}
	if ((vm = ymap_get(r, "virtualization")) && vm->type == Y_MAP &&
	    (mode = ymap_get(vm, "mode")) && mode->type == Y_SCALAR &&
	    strcmp(mode->str, "bare_metal") != 0) {
		rc = yerr(bt, mode, PLUMB_EINPUT, err,
			  "a box of several hosts runs on bare metal (virtual machines span one box)");
		goto out;
	}
	rc = scn_parse_machine(bt, r, b, err);
out:
	ytree_free(bt);
	free(path);
	return rc;
}

int scn_parse_hosts(const struct ytree *t, const struct ynode *list, struct scenario *s,
		    struct plumb_err *err)
{
	struct scenario *b = NULL;
	size_t i;
	int rc = 0, k;

	if ((rc = yexpect(t, list, Y_SEQ, "hosts", err)) < 0)
		return rc;
	if (list->n == 0)
		return yerr(t, list, PLUMB_EINPUT, err, "'hosts' is empty (list the boxes)");
	if (!(b = calloc(1, sizeof(*b))))
		return plumb_err_set(err, PLUMB_ERUNTIME, NULL, 0, 0, "out of memory");
	for (i = 0; i < list->n; i++) {
		const struct ynode *e = list->vals[i], *v;
		char name[24], one[40];
		long count = 1;

		if ((rc = yexpect(t, e, Y_MAP, "hosts entry", err)) < 0 ||
		    (rc = ymap_check_keys(t, e, "hosts entry", hosts_keys, err)) < 0)
			goto out;
		snprintf(name, sizeof(name), "host%d", s->nhosts);
		if ((v = ymap_get(e, "name"))) {
			if ((rc = yget_str(t, v, "name", name, sizeof(name), err)) < 0 ||
			    (rc = scn_check_id(t, v, name, err)) < 0)
				goto out;
		}
		if ((v = ymap_get(e, "count")) &&
		    (rc = yget_int(t, v, "count", 1, SCN_MAX_HOSTS, &count, err)) < 0)
			goto out;
		scn_tables_free(b);
		memset(b, 0, sizeof(*b));
		scn_set_defaults(b);
		b->catalog = s->catalog;
		if ((v = ymap_get(e, "box"))) {
			static const char *const own[] = { "host", "pcie", "nvlink", "xgmi", NULL };
			for (k = 0; own[k]; k++)
				if (ymap_get(e, own[k])) {
					rc = yerr(t, ymap_get(e, own[k]), PLUMB_EINPUT, err,
						  "a hosts entry gives 'box: FILE' or its own '%s', not both",
						  own[k]);
					goto out;
				}
			if ((rc = load_box(t, v, b, err)) < 0)
				goto out;
		} else if (!ymap_get(e, "pcie")) {
			rc = yerr(t, e, PLUMB_EINPUT, err,
				  "a hosts entry needs 'box: FILE' (a scenario of one box) or its own 'pcie'");
			goto out;
		} else if ((rc = scn_parse_machine(t, e, b, err)) < 0) {
			goto out;
		}
		for (k = 0; k < count; k++) {
			if (count > 1)
				snprintf(one, sizeof(one), "%s%d", name, k);
			else
				snprintf(one, sizeof(one), "%s", name);
			if ((rc = add_box(t, e, s, b, one, v ? v->str : NULL, err)) < 0)
				goto out;
		}
	}
out:
	scn_tables_free(b);
	free(b);
	return rc;
}

/* `network:` of a scenario with hosts; every host needs a NIC. */
int scn_parse_network(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err)
{
	struct scn_network *N = &s->net;
	const struct ynode *v = NULL;
	int rc, e, i, ports = 0;

	if ((rc = yexpect(t, m, Y_MAP, "network", err)) < 0 ||
	    (rc = ymap_check_keys(t, m, "network", network_keys, err)) < 0)
		return rc;
	N->given = 1;
	if (!(v = ymap_get(m, "kind")))
		return yerr(t, m, PLUMB_EINPUT, err, "network needs 'kind' (infiniband or roce)");
	if ((rc = yget_enum(t, v, "network kind", net_kind_names, &e, err)) < 0)
		return rc;
	N->kind = (enum scn_net_kind)e;
	if (!(v = ymap_get(m, "port_gbps")))
		return yerr(t, m, PLUMB_EINPUT, err,
			    "network needs 'port_gbps' (a NIC port's line rate in Gb/s, e.g. 400 for NDR)");
	if ((rc = yget_double(t, v, "port_gbps", 1, 3200, &N->port_gbps, err)) < 0)
		return rc;
	if ((v = ymap_get(m, "switch"))) {
		if ((rc = yexpect(t, v, Y_MAP, "switch", err)) < 0 ||
		    (rc = ymap_check_keys(t, v, "network switch", netswitch_keys, err)) < 0 ||
		    (rc = scn_opt_str(t, v, "model", N->switch_model, sizeof(N->switch_model), err)) < 0 ||
		    (rc = scn_opt_int(t, v, "ports", 1, 100000, &N->switch_ports, err)) < 0)
			return rc;
	}
	for (i = 0; i < s->nhosts; i++) {
		if (s->hosts[i].nnics == 0)
			return plumb_err_set(err, PLUMB_EINPUT, t->file, s->hosts[i].line, s->hosts[i].col,
					     "host '%s' has no nic in its pcie tree; the network reaches a host through its NICs",
					     s->hosts[i].name);
		ports += s->hosts[i].nnics;
	}
	if (N->switch_ports && ports > N->switch_ports)
		return yerr(t, ymap_get(v, "ports"), PLUMB_EINPUT, err,
			    "the switch has %d ports but the hosts' NICs need %d", N->switch_ports, ports);
	return 0;
}
