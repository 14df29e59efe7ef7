/* The neighbour search at insertion of Pouchol et al. 2009, §3.3.2, Listing 3: points are inserted one at a time
 * into a hierarchical hash (additive top-down keys, hasChildren), and before a point goes in, the cells of its 27
 * points p + {-r, 0, r}^3 are searched top-down, so that it meets the points inserted before it: each pair is
 * found once, by its later point, and no structure is searched after the last insertion. */
#ifndef PF_COLLISION_INSERT_SEARCH_H
#define PF_COLLISION_INSERT_SEARCH_H

#include "hash_table.h"
#include "id_buffer.h"

#include <stddef.h>
#include <stdint.h>

#define PF_ISEARCH_MAX_LEVELS 48

typedef struct pf_isearch {
    const double *xyz; /* borrowed: the points, 3 doubles each */
    size_t n;
    double r;
    double origin[3];  /* lowest corner of the points less r: every coordinate searched is >= 0 */
    int nlevels;       /* the classes, largest first; the last holds the points */
    int cexp[PF_ISEARCH_MAX_LEVELS];   /* cells of edge 2^cexp */
    double inv[PF_ISEARCH_MAX_LEVELS]; /* 2^-cexp: cell coordinates are exact */
    /* slot.start: 1 + the point inserted last in the cell (0: none); slot.info: points << 1 | hasChildren */
    pf_hash_table table;
    uint32_t *next; /* next[i]: 1 + the point inserted before i in its cell (0: none) */
    size_t cap;     /* room of next */
    size_t cells_hint; /* cells of the previous run: the next table is sized for them */
} pf_isearch;

/* Starts a search over `n` points (finite, n < 2^32 - 1) with radius r > 0 (finite): the finest class is the
 * smallest power of two >= r (so the 27 points' cells hold every point within r on each axis), and above it
 * one class every `step` classes (step >= 1) up to the points' span, for the hasChildren pruning of empty
 * regions; step 0: the finest class alone. Nothing is inserted yet. PF_OK or PF_ENOMEM. */
int pf_isearch_begin(pf_isearch *s, const double *xyz, size_t n, double r, int step);
/* Appends to `b` (begun by the caller; no stamps are needed: each point lives in one cell and each cell is
 * searched once) every point inserted so far that lies in a cell of the 27 points of point i: a superset of
 * those within r on every axis. */
int pf_isearch_candidates(const pf_isearch *s, size_t i, pf_id_buffer *b);
/* Inserts point i (Pouchol et al. 2009 Listing 1: every ancestor cell on the way gets hasChildren). PF_OK or
 * PF_ENOMEM. */
int pf_isearch_insert(pf_isearch *s, size_t i);
size_t pf_isearch_bytes(const pf_isearch *s);
void pf_isearch_free(pf_isearch *s);

#endif
