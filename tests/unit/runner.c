/*
 * The unit test runner: every suite, declared once in suites[].
 * Each test file defines one `void <name>_suite(void)` that adds its CUnit
 * suite. Seeded tests print their seed on failure; IOSCOPE_SEED fixes it.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const struct {
    const char *name;
    void (*add)(void);
} suites[] = {
#define UNIT_SUITE_ENTRY_(name) { #name, name##_suite },
    UNIT_SUITES(UNIT_SUITE_ENTRY_)
#undef UNIT_SUITE_ENTRY_
};

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    unsigned failures;

    /* the analyses of the tests keep their symbols in memory, never in the user's cache */
    setenv("IOSCOPE_SYMCACHE", "0", 0);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
        if (!only || strcmp(only, suites[i].name) == 0)
            suites[i].add();
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    unit_tmp_remove();
    return failures ? 1 : 0;
}
