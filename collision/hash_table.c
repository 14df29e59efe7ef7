/* The key -> cell hash table of the spatial hashes (see hash_table.h). */
#include "hash_table.h"

#include "base/alloc.h"
#include "base/error.h"
#include "physflow/base.h"

#include <string.h>

int pf_hash_table_clear(pf_hash_table *t, size_t expected)
{
    size_t want = 16;
    int bits = 4;
    while (want < 2 * expected) want *= 2, bits++;
    t->ncells = 0;
    t->entries.n = 0;
    /* keep the table of an earlier build unless it is too small or more than twice too large: a scene that
     * changes little from step to step then never allocates (Pouchol et al. 2009, §4.3: reuse memory between time
     * steps), and one whose cells are fewer stops clearing and scanning slots it no longer needs (every build
     * clears the whole table, and pf_hash_table_fill walks it) */
    if (t->nslots < want || t->nslots > 2 * want) {
        pf_free(t->slots);
        t->slots = pf_malloc(want * sizeof *t->slots);
        if (!t->slots) {
            t->nslots = 0;
            return pf_error(PF_ENOMEM, "out of memory for a hash table of %zu slots", want);
        }
        t->nslots = want;
    }
    bits = 0;
    while (((size_t)1 << bits) < t->nslots) bits++;
    t->shift = 64 - bits;
    memset(t->slots, 0, t->nslots * sizeof *t->slots);
    return PF_OK;
}

int pf_hash_table_fill(pf_hash_table *t, const uint32_t *slot, const uint32_t *id, const float (*fbox)[6],
                       size_t nentries)
{
    if (nentries > t->entries.cap) {
        size_t cap = nentries + nentries / 4;
        pf_vec_free(&t->entries);
        t->entries.v = pf_malloc(cap * sizeof *t->entries.v);
        if (!t->entries.v) return pf_error(PF_ENOMEM, "out of memory for %zu hash entries", cap);
        t->entries.cap = cap;
    }
    /* each cell's start is set to its end, then entries are placed backwards: cells end up in k order */
    uint32_t end = 0;
    for (size_t s = 0; s < t->nslots; s++) {
        if (!t->slots[s].key) continue;
        end += t->slots[s].info >> 1;
        t->slots[s].start = end;
    }
    PF_ASSERT(end == nentries);
    for (size_t k = nentries; k-- > 0;) {
        pf_hash_entry *e = &t->entries.v[--t->slots[slot[k]].start];
        const float *b = fbox[id[k]];
        for (int a = 0; a < 3; a++) e->lo[a] = b[a], e->hi[a] = b[3 + a];
        e->id = id[k];
    }
    t->entries.n = nentries;
    return PF_OK;
}

int pf_hash_table_grow(pf_hash_table *t)
{
    size_t want = 2 * t->nslots;
    pf_hash_slot *old = t->slots, *slots = pf_calloc(want, sizeof *slots);
    if (!slots) return pf_error(PF_ENOMEM, "out of memory for a hash table of %zu slots", want);
    size_t nold = t->nslots;
    t->slots = slots;
    t->nslots = want;
    t->shift--;
    for (size_t s = 0; s < nold; s++) {
        if (!old[s].key) continue;
        size_t mask = want - 1, h = pf_hash_home(t, old[s].key);
        while (slots[h].key) h = (h + 1) & mask;
        slots[h] = old[s];
    }
    pf_free(old);
    return PF_OK;
}

size_t pf_hash_table_bytes(const pf_hash_table *t)
{
    return t->nslots * sizeof *t->slots + t->entries.cap * sizeof *t->entries.v;
}

void pf_hash_table_free(pf_hash_table *t)
{
    pf_free(t->slots);
    pf_vec_free(&t->entries);
    memset(t, 0, sizeof *t);
}
