/* base/vec.h, the typed growable array: pushes keep every item in order (oracle: a plain array filled alongside),
 * reserve gives room without changing the items, a failed allocation returns PF_ENOMEM and leaves the array as
 * it was, free empties it. */
#include "check_main.h"

#include "base/vec.h"
#include "physflow/base.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct pair {
    uint32_t a;
    double b;
} pair;

START_TEST(push_keeps_items_in_order)
{
    PF_VEC(pair) arr = {0};
    static pair want[5000];
    for (uint32_t i = 0; i < 5000; i++) {
        want[i] = (pair){i * 7u, i * 0.5};
        ck_assert_int_eq(pf_vec_push(&arr, want[i]), PF_OK);
        ck_assert_uint_ge(arr.cap, arr.n);
    }
    ck_assert_uint_eq(arr.n, 5000);
    for (uint32_t i = 0; i < 5000; i++) ck_assert(arr.v[i].a == want[i].a && arr.v[i].b == want[i].b);
    size_t cap = arr.cap;
    ck_assert_int_eq(pf_vec_reserve(&arr, cap + 1), PF_OK);
    ck_assert_uint_ge(arr.cap, cap + 1);
    ck_assert_uint_eq(arr.n, 5000);
    for (uint32_t i = 0; i < 5000; i++) ck_assert(arr.v[i].a == want[i].a && arr.v[i].b == want[i].b);
    pf_vec_free(&arr);
    ck_assert_ptr_null(arr.v);
    ck_assert_uint_eq(arr.n, 0);
    ck_assert_uint_eq(arr.cap, 0);
}
END_TEST

static int refuse;

static void *maybe_alloc(size_t size, size_t alignment, void *ctx)
{
    (void)ctx;
    if (refuse) return NULL;
    void *p = NULL;
    return posix_memalign(&p, alignment < sizeof(void *) ? sizeof(void *) : alignment, size ? size : 1) ? NULL : p;
}

static void plain_free(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

START_TEST(failed_growth_leaves_the_array_unchanged)
{
    pf_set_allocator(maybe_alloc, plain_free, NULL);
    PF_VEC(uint32_t) arr = {0};
    for (uint32_t i = 0; i < 16; i++) ck_assert_int_eq(pf_vec_push(&arr, i), PF_OK);
    ck_assert_uint_eq(arr.cap, 16); /* full: the next push must allocate */
    uint32_t *before = arr.v;
    refuse = 1;
    ck_assert_int_eq(pf_vec_push(&arr, 99u), PF_ENOMEM);
    ck_assert_int_eq(pf_vec_reserve(&arr, (size_t)-1 / 2), PF_ENOMEM); /* overflowing sizes too */
    refuse = 0;
    ck_assert_ptr_eq(arr.v, before);
    ck_assert_uint_eq(arr.n, 16);
    ck_assert_uint_eq(arr.cap, 16);
    for (uint32_t i = 0; i < 16; i++) ck_assert_uint_eq(arr.v[i], i);
    pf_vec_free(&arr);
    pf_set_allocator(NULL, NULL, NULL);
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("base_vec");
    TCase *tc = tcase_create("vec");
    tcase_add_test(tc, push_keeps_items_in_order);
    tcase_add_test(tc, failed_growth_leaves_the_array_unchanged);
    suite_add_tcase(s, tc);
    return s;
}
