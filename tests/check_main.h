/* Every test runner defines make_suite(); check_main.c runs it. */
#ifndef PF_TESTS_CHECK_MAIN_H
#define PF_TESTS_CHECK_MAIN_H

#include <check.h>

Suite *make_suite(void);

#endif
