/* base/check.h, the API's validation layer: each check accepts exactly the values its contract allows (oracle:
 * the contract written out with isfinite and comparisons) and refuses the others with PF_EINVAL and a message
 * naming the function, the argument and the value, with no C operator in it. */
#include "check_main.h"

#include "base/check.h"

#include <math.h>
#include <string.h>

static void assert_message(const char *fn, const char *what)
{
    const char *m = pf_last_error();
    ck_assert_msg(strstr(m, fn) && strstr(m, what), "message '%s' should name %s and %s", m, fn, what);
    static const char *const ops[] = {"&&", "||", "->", "!=", "==", "!("};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        ck_assert_msg(!strstr(m, ops[k]), "message '%s' contains '%s'", m, ops[k]);
}

START_TEST(numbers)
{
    const double values[] = {0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 1e-300, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        double x = values[i];
        int finite = isfinite(x);
        ck_assert_int_eq(pf_check_finite(x, "f", "def.x") == PF_OK, finite);
        ck_assert_int_eq(pf_check_positive(x, "f", "def.x") == PF_OK, finite && x > 0);
        ck_assert_int_eq(pf_check_nonnegative(x, "f", "def.x") == PF_OK, finite && x >= 0);
        ck_assert_int_eq(pf_check_range(x, -1, 1, "f", "def.x") == PF_OK, finite && x >= -1 && x <= 1);
        if (pf_check_range(x, -1, 1, "pf_thing", "def.x") != PF_OK) assert_message("pf_thing", "def.x");
    }
    double v[3] = {1, NAN, 2};
    ck_assert_int_eq(pf_check_finite_n(v, 3, "pf_set", "x"), PF_EINVAL);
    assert_message("pf_set", "x[1]");
    ck_assert_int_eq(pf_check_finite_n(v, 1, "pf_set", "x"), PF_OK);
}
END_TEST

START_TEST(pointers_indices_sizes_enums)
{
    int x = 0;
    ck_assert_int_eq(pf_check_given(&x, "f", "def"), PF_OK);
    ck_assert_int_eq(pf_check_given(NULL, "pf_world_create", "def"), PF_EINVAL);
    assert_message("pf_world_create", "def");
    ck_assert_int_eq(pf_check_index(2, 3, "f", "object"), PF_OK);
    ck_assert_int_eq(pf_check_index(3, 3, "pf_world_positions", "object"), PF_EINVAL);
    assert_message("pf_world_positions", "object 3");
    ck_assert_int_eq(pf_check_index(0, 0, "pf_world_positions", "object"), PF_EINVAL);
    assert_message("pf_world_positions", "object 0");
    ck_assert_int_eq(pf_check_size(1000, 8, "f", "data"), PF_OK);
    ck_assert_int_eq(pf_check_size((size_t)-8, 1, "pf_graph_data", "size"), PF_EINVAL); /* n = -1 doubles */
    assert_message("pf_graph_data", "size");
    ck_assert_int_eq(pf_check_size(SIZE_MAX / 4, 8, "f", "data"), PF_EINVAL); /* n * 8 overflows */
    ck_assert_int_eq(pf_check_int_range(5, 1, 5, "f", "workers"), PF_OK);
    ck_assert_int_eq(pf_check_int_range(0, 1, 5, "pf_runtime_create", "def.workers"), PF_EINVAL);
    assert_message("pf_runtime_create", "def.workers");
    ck_assert_int_eq(pf_check_enum(2, 3, "f", "e"), PF_OK);
    ck_assert_int_eq(pf_check_enum(-1, 3, "pf_world_set_executor", "executor"), PF_EINVAL);
    assert_message("pf_world_set_executor", "executor");
    ck_assert_int_eq(pf_check_enum(3, 3, "f", "e"), PF_EINVAL);
}
END_TEST

START_TEST(names)
{
    static const char *const names[] = {"seq", "static", "barrier"};
    int k = -1;
    ck_assert_int_eq(pf_check_name("barrier", names, 3, "f", "executor", &k), PF_OK);
    ck_assert_int_eq(k, 2);
    ck_assert_int_eq(pf_check_name("Static", names, 3, "pf_executor_parse", "executor", &k), PF_EINVAL);
    assert_message("pf_executor_parse", "'Static' (seq, static, barrier)");
    ck_assert_int_eq(pf_check_name(NULL, names, 3, "pf_executor_parse", "executor", &k), PF_EINVAL);
    assert_message("pf_executor_parse", "name");
    ck_assert_int_eq(k, 2); /* untouched by a refusal */
}
END_TEST

static int try_both(double a, double b)
{
    PF_TRY(pf_check_finite(a, "try_both", "a"));
    PF_TRY(pf_check_finite(b, "try_both", "b"));
    return PF_OK;
}

START_TEST(try_returns_the_first_refusal)
{
    ck_assert_int_eq(try_both(1, 2), PF_OK);
    ck_assert_int_eq(try_both(1, NAN), PF_EINVAL);
    assert_message("try_both", "b");
    ck_assert_int_eq(try_both(INFINITY, NAN), PF_EINVAL);
    assert_message("try_both", "a");
}
END_TEST

Suite *make_suite(void)
{
    Suite *s = suite_create("base_check");
    TCase *tc = tcase_create("check");
    tcase_add_test(tc, numbers);
    tcase_add_test(tc, pointers_indices_sizes_enums);
    tcase_add_test(tc, names);
    tcase_add_test(tc, try_returns_the_first_refusal);
    suite_add_tcase(s, tc);
    return s;
}
