/*
 * The library version reported by cassette_version(); the single place the
 * number lives at run time, kept equal to the header's macros by a test.
 */
#include "cassette.h"

#define STR2(x) #x
#define STR(x) STR2(x)

const char *cassette_version(void)
{
    return STR(CASSETTE_VERSION_MAJOR) "." STR(CASSETTE_VERSION_MINOR) "." STR(
        CASSETTE_VERSION_PATCH);
}
