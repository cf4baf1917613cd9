/*
 * fixtures.h - scenarios several unit-test files share.
 */
#ifndef PLUMB_TEST_FIXTURES_H
#define PLUMB_TEST_FIXTURES_H

#include "scn.h"

/* Load inline scenario text as "inline.yaml"; on failure print the error,
 * record a failed assertion and return NULL. */
struct scenario *fix_load(const char *text);

/* The seed box's shape: eight RTX PRO 6000, one per root complex, two AMD
 * sockets joined by xGMI of xsock GB/s; extra is appended (more top-level
 * keys, or ""). */
struct scenario *fix_seed_box(const char *xsock, const char *extra);

#endif
