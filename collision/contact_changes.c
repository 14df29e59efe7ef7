/* Object pairs linked by contacts, and which pairs started or stopped interacting between two steps. */
#include "physflow/narrowphase.h"

#include "base/check.h"
#include "base/error.h"

#include <stdlib.h>

static int object_pair_cmp(const void *x, const void *y)
{
    const pf_object_pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return 0;
}

/* Writes the sorted, unique object pairs of `contacts` to `out` (room for n) and returns their number. Equal
 * keys are identical, so qsort's instability cannot show in the result. */
static size_t object_pair_set(const pf_contact *contacts, size_t n, pf_object_pair *out)
{
    for (size_t k = 0; k < n; k++) {
        uint32_t a = contacts[k].object_a, b = contacts[k].object_b;
        out[k].a = a < b ? a : b;
        out[k].b = a < b ? b : a;
    }
    if (n > 1) qsort(out, n, sizeof *out, object_pair_cmp);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (m == 0 || object_pair_cmp(&out[m - 1], &out[k]) != 0) out[m++] = out[k];
    return m;
}

int pf_contact_object_pairs(const pf_contact *contacts, size_t n, pf_object_pair *out, size_t *nout)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(nout, fn, "nout"));
    PF_TRY(pf_check_size(n, sizeof *contacts, fn, "n"));
    if (n) {
        PF_TRY(pf_check_given(contacts, fn, "contacts (n > 0)"));
        PF_TRY(pf_check_given(out, fn, "out (n > 0)"));
    }
    *nout = object_pair_set(contacts, n, out);
    return PF_OK;
}

int pf_contact_changes(const pf_contact *prev, size_t nprev, const pf_contact *cur, size_t ncur,
                       pf_object_pair *started, size_t started_cap, size_t *nstarted, pf_object_pair *stopped,
                       size_t stopped_cap, size_t *nstopped)
{
    const char *fn = __func__;
    PF_TRY(pf_check_given(nstarted, fn, "nstarted"));
    PF_TRY(pf_check_given(nstopped, fn, "nstopped"));
    PF_TRY(pf_check_size(nprev, sizeof *prev, fn, "nprev"));
    PF_TRY(pf_check_size(ncur, sizeof *cur, fn, "ncur"));
    if (nprev) PF_TRY(pf_check_given(prev, fn, "prev (nprev > 0)"));
    if (ncur) PF_TRY(pf_check_given(cur, fn, "cur (ncur > 0)"));
    if (ncur) PF_TRY(pf_check_given(started, fn, "started (ncur > 0)"));
    if (nprev) PF_TRY(pf_check_given(stopped, fn, "stopped (nprev > 0)"));
    if (started_cap < ncur)
        return pf_error(PF_EINVAL, "%s: started needs room for ncur = %zu pairs, started_cap is %zu", fn, ncur,
                        started_cap);
    if (stopped_cap < nprev)
        return pf_error(PF_EINVAL, "%s: stopped needs room for nprev = %zu pairs, stopped_cap is %zu", fn, nprev,
                        stopped_cap);
    size_t np = object_pair_set(prev, nprev, stopped);
    size_t nc = object_pair_set(cur, ncur, started);
    /* One merge of the two sorted sets, in place: each output index trails its read index, so the set
     * differences cur \ prev and prev \ cur overwrite only entries already read. */
    size_t i = 0, j = 0, wp = 0, wc = 0;
    while (i < np && j < nc) {
        int c = object_pair_cmp(&stopped[i], &started[j]);
        if (c < 0)
            stopped[wp++] = stopped[i++];
        else if (c > 0)
            started[wc++] = started[j++];
        else
            i++, j++;
    }
    while (i < np) stopped[wp++] = stopped[i++];
    while (j < nc) started[wc++] = started[j++];
    *nstarted = wc;
    *nstopped = wp;
    return PF_OK;
}
