/*
 * topo_int.h - what topo.c and topo_words.c share.
 */
#ifndef PLUMB_TOPO_INT_H
#define PLUMB_TOPO_INT_H

#include "topo.h"

/* Topmost switch above host node n that belongs to a chip, or -1. */
int topo_chip_top(const struct scenario *s, int n);

#endif
