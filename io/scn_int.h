/*
 * scn_int.h - what the scenario loader's files share: the table growers and
 * optional-field readers of io/scn_load.c, and the parsers of the sections
 * that io/scn_machine.c (host, pcie, nvlink), io/scn_sections.c
 * (virtualization, constants, nccl, serving) and io/scn_hosts.c (hosts,
 * network) read. Every parser returns 0, or a negative plumb_rc with err
 * filled (file:line:col of the offending node).
 */
#ifndef PLUMB_SCN_INT_H
#define PLUMB_SCN_INT_H

#include "scn.h"
#include "ytree.h"

/* A scenario's top-level keys (NULL-terminated); a box file takes them too. */
extern const char *const scn_top_keys[];

/* -PLUMB_ERUNTIME with "out of memory" in err. */
int scn_oom(struct plumb_err *err);

/*
 * Room for need entries in a table of s (doubling; entries past the old
 * count are not cleared, except scn_room_numa's, which are "" and counted):
 * 0, or -PLUMB_ERUNTIME. Invalidates pointers into that table.
 */
int scn_room_nodes(struct scenario *s, int need, struct plumb_err *err);
int scn_room_gpus(struct scenario *s, int need, struct plumb_err *err);
int scn_room_nvlink(struct scenario *s, int need, struct plumb_err *err);
int scn_room_numa(struct scenario *s, int need, struct plumb_err *err);
int scn_room_hosts(struct scenario *s, int need, struct plumb_err *err);

/* The tables of s freed, and their counts zero. */
void scn_tables_free(struct scenario *s);

/* A scenario's defaults before its file is read. */
void scn_set_defaults(struct scenario *s);

/* Optional fields of map m: *out (buf) is left alone when key is absent. */
int scn_opt_int(const struct ytree *t, const struct ynode *m, const char *key,
		long lo, long hi, int *out, struct plumb_err *err);
int scn_opt_str(const struct ytree *t, const struct ynode *m, const char *key,
		char *buf, size_t n, struct plumb_err *err);
int scn_opt_enum(const struct ytree *t, const struct ynode *m, const char *key,
		 const char *what, const char *const *names, int *out,
		 struct plumb_err *err);

/* id is not empty and uses only a-z, 0-9, '_' and '-' (v: where, for messages). */
int scn_check_id(const struct ytree *t, const struct ynode *v, const char *id,
		 struct plumb_err *err);

/* io/scn_machine.c: the `host`, `pcie` and `nvlink` of map m into s. */
int scn_parse_machine(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err);

/* io/scn_sections.c: one section each, m its value. */
int scn_parse_vm(const struct ytree *t, const struct ynode *m, struct scenario *s,
		 struct plumb_err *err);
int scn_parse_nccl(const struct ytree *t, const struct ynode *m, struct scenario *s,
		   struct plumb_err *err);
/* `cost:` into s->cost (docs/scenarios.md "Power and money"). */
int scn_parse_cost(const struct ytree *t, const struct ynode *m, struct scenario *s,
		   struct plumb_err *err);
int scn_parse_serving(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err);

/* io/scn_hosts.c: `hosts` (a list) and `network` (after hosts). */
int scn_parse_hosts(const struct ytree *t, const struct ynode *list, struct scenario *s,
		    struct plumb_err *err);
int scn_parse_network(const struct ytree *t, const struct ynode *m, struct scenario *s,
		      struct plumb_err *err);

#endif
