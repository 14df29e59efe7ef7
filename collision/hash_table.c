/* The key -> cell hash table of the spatial hashes (see hash_table.h). */
#include "hash_table.h"

#include "base/alloc.h"
#include "base/error.h"
#include "physflow/base.h"

#include <string.h>

static int resize_slots(pf_hash_table *t, size_t nslots)
{
    int bits = 0;
    while (((size_t)1 << bits) < nslots) bits++;
    nslots = (size_t)1 << bits;
    if (nslots != t->nslots) {
        pf_free(t->slots);
        t->slots = pf_malloc(nslots * sizeof *t->slots);
        if (!t->slots) {
            t->nslots = 0;
            return pf_error(PF_ENOMEM, "out of memory for a hash table of %zu slots", nslots);
        }
        t->nslots = nslots;
    }
    t->shift = 64 - bits;
    memset(t->slots, 0xff, nslots * sizeof *t->slots);
    return PF_OK;
}

int pf_hash_table_clear(pf_hash_table *t, size_t expected)
{
    size_t want = 16;
    while (want < 2 * expected) want *= 2;
    t->ncells = 0;
    t->nids = 0;
    /* keep a larger table from an earlier call unless it is far too large */
    if (t->nslots >= want && t->nslots <= 8 * want) return resize_slots(t, t->nslots);
    return resize_slots(t, want);
}

static int rehash(pf_hash_table *t)
{
    int rc = resize_slots(t, t->nslots * 2);
    if (rc) return rc;
    size_t mask = t->nslots - 1;
    for (size_t c = 0; c < t->ncells; c++) {
        size_t s = pf_hash_slot(t, t->cells[c].key);
        while (t->slots[s] != PF_HASH_NONE) s = (s + 1) & mask;
        t->slots[s] = (uint32_t)c;
    }
    return PF_OK;
}

int pf_hash_table_insert(pf_hash_table *t, uint64_t key, uint32_t *cell)
{
    size_t mask = t->nslots - 1;
    size_t s = pf_hash_slot(t, key);
    for (;; s = (s + 1) & mask) {
        uint32_t c = t->slots[s];
        if (c == PF_HASH_NONE) break;
        if (t->cells[c].key == key) {
            *cell = c;
            return PF_OK;
        }
    }
    if (t->ncells >= PF_HASH_NONE - 1) return pf_error(PF_ENOMEM, "hash table: too many cells");
    if (t->ncells == t->cells_cap) {
        size_t cap = t->cells_cap ? 2 * t->cells_cap : 1024;
        pf_hash_cell *p = pf_realloc(t->cells, t->cells_cap * sizeof *p, cap * sizeof *p);
        if (!p) return pf_error(PF_ENOMEM, "out of memory for %zu hash cells", cap);
        t->cells = p;
        t->cells_cap = cap;
    }
    uint32_t c = (uint32_t)t->ncells++;
    t->cells[c] = (pf_hash_cell){key, 0, 0, 0, 0};
    t->slots[s] = c;
    *cell = c;
    if (2 * t->ncells > t->nslots) return rehash(t);
    return PF_OK;
}

int pf_hash_table_fill(pf_hash_table *t, const uint32_t *cell, const uint32_t *id, size_t nentries)
{
    if (nentries > t->ids_cap) {
        size_t cap = nentries + nentries / 4;
        pf_free(t->ids);
        t->ids = pf_malloc(cap * sizeof *t->ids);
        if (!t->ids) {
            t->ids_cap = 0;
            return pf_error(PF_ENOMEM, "out of memory for %zu hash entries", cap);
        }
        t->ids_cap = cap;
    }
    uint32_t start = 0;
    for (size_t c = 0; c < t->ncells; c++) {
        t->cells[c].start = start;
        t->cells[c].fill = start;
        start += t->cells[c].count;
    }
    PF_ASSERT(start == nentries);
    for (size_t k = 0; k < nentries; k++) t->ids[t->cells[cell[k]].fill++] = id[k];
    t->nids = nentries;
    return PF_OK;
}

size_t pf_hash_table_bytes(const pf_hash_table *t)
{
    return t->nslots * sizeof *t->slots + t->cells_cap * sizeof *t->cells + t->ids_cap * sizeof *t->ids;
}

void pf_hash_table_free(pf_hash_table *t)
{
    pf_free(t->slots);
    pf_free(t->cells);
    pf_free(t->ids);
    memset(t, 0, sizeof *t);
}
