/* The key -> cell hash table of the spatial hashes (Pouchol et al. 2009, §2: a cell holds its objects' ids and, for the
 * hierarchical hash, the hasChildren flag). Open addressing with the cells in the slots themselves (16 bytes,
 * four to a cache line), so that a lookup, hit or miss, reads one line; each cell's entries lie contiguously,
 * each with a copy of its box, so that scanning a cell reads memory in order. */
#ifndef PF_COLLISION_HASH_TABLE_H
#define PF_COLLISION_HASH_TABLE_H

#include "base/vec.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* One (cell, box) incidence: the box's id and its corners relative to the structure's origin, rounded outwards
 * to float (a superset of the box, so a float overlap test never loses a pair; callers test exactly after). */
typedef struct pf_hash_entry {
    float lo[3], hi[3];
    uint32_t id;
} pf_hash_entry;

/* A cell, stored in its slot. key 0 marks an empty slot (pf_hash_key maps the key 0 to 1). */
typedef struct pf_hash_slot {
    uint64_t key;   /* the full 64-bit key (Pouchol et al. 2009 uses n = infinity: no modulo on keys) */
    uint32_t start; /* first entry of the cell in pf_hash_table.entries (after pf_hash_table_fill) */
    uint32_t info;  /* entries held << 1 | hasChildren (Pouchol et al. 2009, §3.1: a non-empty cell of a smaller class
                     * lies inside this one) */
} pf_hash_slot;

typedef struct pf_hash_table {
    pf_hash_slot *slots; /* linear probing, at most half full */
    size_t nslots;       /* power of two */
    int shift;           /* 64 - log2(nslots) */
    size_t ncells;       /* slots in use */
    /* Grown by pf_hash_table_fill's own code, not pf_vec_reserve: every fill rewrites all entries, so a new
     * block is taken 64-byte aligned from pf_malloc with nothing copied (pf_realloc copies and only gives 16
     * bytes). */
    PF_VEC(pf_hash_entry) entries;
} pf_hash_table;

/* Empties the table, keeping its memory when its size suits `expected` cells (no allocation from one build to
 * the next of a similar scene). PF_OK or PF_ENOMEM. */
int pf_hash_table_clear(pf_hash_table *t, size_t expected);
/* Lays out the entries: entry k of the scratch arrays puts box id[k] (float box fbox[id[k]]) into slot
 * slot[k], in k order within each cell (the slots' counts must already hold how many entries each gets).
 * PF_OK or PF_ENOMEM. */
int pf_hash_table_fill(pf_hash_table *t, const uint32_t *slot, const uint32_t *id, const float (*fbox)[6],
                       size_t nentries);
/* Doubles the slots, every cell kept with its start and info (for a table filled one insertion at a time, whose
 * final size is not known in advance). PF_OK or PF_ENOMEM (the table is then unchanged). */
int pf_hash_table_grow(pf_hash_table *t);
size_t pf_hash_table_bytes(const pf_hash_table *t);
void pf_hash_table_free(pf_hash_table *t);

/* A cell key as stored: 0 is the empty mark, so it is folded onto 1. Two cells sharing a stored key only
 * share their candidates (a superset, filtered by the exact test) and hasChildren (a longer descent). */
static inline uint64_t pf_hash_key(uint64_t key)
{
    return key + (key == 0);
}

static inline size_t pf_hash_home(const pf_hash_table *t, uint64_t key)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> t->shift);
}

/* The cell of `key` (from pf_hash_key), or NULL when there is none. */
static inline const pf_hash_slot *pf_hash_table_find(const pf_hash_table *t, uint64_t key)
{
    size_t mask = t->nslots - 1;
    for (size_t s = pf_hash_home(t, key);; s = (s + 1) & mask) {
        const pf_hash_slot *c = &t->slots[s];
        if (c->key == key) return c;
        if (c->key == 0) return NULL;
    }
}

/* Finds or creates the cell of `key` (from pf_hash_key). Never grows the table: the caller keeps it at most
 * half full (see pf_hash_table_full). */
static inline pf_hash_slot *pf_hash_table_insert(pf_hash_table *t, uint64_t key)
{
    size_t mask = t->nslots - 1;
    for (size_t s = pf_hash_home(t, key);; s = (s + 1) & mask) {
        pf_hash_slot *c = &t->slots[s];
        if (c->key == key) return c;
        if (c->key == 0) {
            c->key = key;
            t->ncells++;
            return c;
        }
    }
}

/* Whether the table is more than half full: the builder then starts over with a larger one. */
static inline int pf_hash_table_full(const pf_hash_table *t)
{
    return 2 * t->ncells > t->nslots;
}

/* Pouchol et al. 2009 eq. 1/3: XOR of the cell coordinates times large primes. The class number is mixed in so that the
 * cells of different classes get different keys in the single table (the paper's "one table per class");
 * keys are 64-bit with no modulo (the paper's n = infinity, §4.3). */
static inline uint64_t pf_cell_hash(int c, uint64_t x, uint64_t y, uint64_t z)
{
    return (x * UINT64_C(0x9E3779B97F4A7C15)) ^ (y * UINT64_C(0xC2B2AE3D27D4EB4F)) ^
           (z * UINT64_C(0x165667B19E3779F9)) ^ ((uint64_t)(c + 4096) * UINT64_C(0xD6E8FEB86659FD93));
}

/* Pouchol et al. 2009 eq. 2: s = 2^ceil(log2 l), for l > 0, read from the bits of l (frexp is a library call, and every
 * box takes one per build). */
static inline int pf_ceil_log2(double l)
{
    uint64_t u;
    memcpy(&u, &l, sizeof u);
    int biased = (int)(u >> 52 & 0x7ff);
    if (biased == 0) { /* subnormal */
        int e;
        double m = frexp(l, &e);
        return m == 0.5 ? e - 1 : e;
    }
    return biased - 1023 + ((u & ((UINT64_C(1) << 52) - 1)) != 0); /* a power of two is its own class */
}

/* The class whose cells are strictly wider than l > 0: floor(log2 l) + 1. It differs from eq. 2 (pf_ceil_log2)
 * only for an edge that is exactly a power of two, which eq. 2 gives cells of its own edge: such a box straddles a
 * cell boundary on every axis wherever it lies (8 cells, unit spheres' boxes among them); in cells twice as wide
 * it covers 3.4 on average. */
static inline int pf_class_above(double l)
{
    uint64_t u;
    memcpy(&u, &l, sizeof u);
    int biased = (int)(u >> 52 & 0x7ff);
    if (biased == 0) { /* subnormal: l = m 2^e, m in [0.5, 1) */
        int e;
        frexp(l, &e);
        return e;
    }
    return biased - 1022;
}

#endif
