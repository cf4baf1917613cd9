/*
 * datadir.h - where plumb's bundled data is: the current directory (the
 * source tree), the running binary's directory (./plumb of a source tree run
 * from elsewhere), or the installed copy `make install PREFIX=...` puts in
 * PREFIX/share/plumb, found from the running binary (/proc/self/exe is
 * PREFIX/bin/plumb), so plumb works from any directory without being
 * rebuilt for its prefix.
 */
#ifndef PLUMB_DATADIR_H
#define PLUMB_DATADIR_H

#include <stddef.h>

/*
 * The file rel (e.g. "scenarios/hgx-8x-h200.yaml") as plumb should open it:
 * rel itself when it exists, is absolute, empty or "-" (standard input),
 * else the first of BINDIR/rel and PREFIX/share/plumb/rel that exists, else
 * rel (the caller's error then names it). Returns rel itself, whole at
 * any length, or buf holding the other file's name (one whose name does
 * not fit n bytes is not looked for); buf always holds a copy of the
 * result, cut at n - 1 bytes.
 *
 * Every input file goes through it (input_read, input_check, ytree_load,
 * the measurement parsers, scn_load, a grid's and a case's files), so a
 * bundled grid, case list, scenario or data file named by its source-tree
 * path is found in an installed copy from any directory; the loaders report
 * errors under the path returned, the file actually read. Output files
 * never go through it. docs/cli.md, "Where plumb finds its files".
 */
const char *plumb_data_path(const char *rel, char *buf, size_t n);

#endif
