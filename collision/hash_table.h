/* A key -> cell hash table with the cells' ids stored contiguously, the storage of the spatial hashes
 * (paper 001 §2: a cell holds its objects' ids and, for the hierarchical hash, the hasChildren flag). */
#ifndef PF_COLLISION_HASH_TABLE_H
#define PF_COLLISION_HASH_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define PF_HASH_NONE UINT32_MAX

typedef struct pf_hash_cell {
    uint64_t key;          /* the full 64-bit key (paper 001 uses n = infinity: no modulo on keys) */
    uint32_t start;        /* first id in pf_hash_table.ids, after pf_hash_table_fill */
    uint32_t count;        /* ids held */
    uint32_t has_children; /* paper 001 §3.1: a non-empty cell of a smaller class lies inside this one */
    uint32_t fill;         /* build scratch */
} pf_hash_cell;

typedef struct pf_hash_table {
    uint32_t *slots; /* open addressing, linear probing: index into cells or PF_HASH_NONE */
    size_t nslots;   /* power of two */
    int shift;       /* 64 - log2(nslots) */
    pf_hash_cell *cells;
    size_t ncells, cells_cap;
    uint32_t *ids;
    size_t nids, ids_cap;
} pf_hash_table;

/* Empties the table, keeping its memory, sized for about `expected` cells. PF_OK or PF_ENOMEM. */
int pf_hash_table_clear(pf_hash_table *t, size_t expected);
/* Finds or creates the cell of `key`; its index in *cell. PF_OK or PF_ENOMEM. */
int pf_hash_table_insert(pf_hash_table *t, uint64_t key, uint32_t *cell);
/* Lays out the ids: entry k puts id[k] into cell[k], in entry order (cells' counts must already hold how
 * many entries each cell gets). PF_OK or PF_ENOMEM. */
int pf_hash_table_fill(pf_hash_table *t, const uint32_t *cell, const uint32_t *id, size_t nentries);
size_t pf_hash_table_bytes(const pf_hash_table *t);
void pf_hash_table_free(pf_hash_table *t);

static inline size_t pf_hash_slot(const pf_hash_table *t, uint64_t key)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> t->shift);
}

/* The cell of `key`, or NULL when there is none. */
static inline const pf_hash_cell *pf_hash_table_find(const pf_hash_table *t, uint64_t key)
{
    size_t mask = t->nslots - 1;
    for (size_t s = pf_hash_slot(t, key);; s = (s + 1) & mask) {
        uint32_t c = t->slots[s];
        if (c == PF_HASH_NONE) return NULL;
        if (t->cells[c].key == key) return &t->cells[c];
    }
}

#endif
