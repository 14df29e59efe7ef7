/* The shared main() of the Check runners: runs make_suite() and exits non-zero on any failure. */
#include "check_main.h"

#include <stdlib.h>

int main(void)
{
    SRunner *sr = srunner_create(make_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
