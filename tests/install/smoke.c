/* Built against an installed tree with `pkg-config --cflags --libs cassette`. */
#include <cassette.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CASSETTE_VERSION_MAJOR, CASSETTE_VERSION_MINOR,
             CASSETTE_VERSION_PATCH);
    if (strcmp(cassette_version(), want) != 0) {
        printf("version mismatch: %s vs %s\n", cassette_version(), want);
        return 1;
    }
    printf("cassette %s\n", cassette_version());
    return 0;
}
