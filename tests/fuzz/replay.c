/*
 * The corpus replayer: main() for a fuzz target built without libFuzzer (gcc, release or
 * asan mode), so `make test` runs every kept input of tests/fuzz/corpus/NAME/ through
 * LLVMFuzzerTestOneInput, the way SQLite's fuzzcheck replays its fuzzers' finds.
 *
 *   build/release/tests/fuzz/fuzz_NAME            every file of tests/fuzz/corpus/NAME/
 *   build/release/tests/fuzz/fuzz_NAME PATH...    these files, or every file of these folders
 *
 * A target reports a broken property by aborting, and memory errors crash or (asan mode)
 * end in a sanitizer report; either way the program dies before its summary line, which
 * tests/run.sh counts as a failure, and the file that was running is printed first.
 * Otherwise the last line is "fuzz_NAME: N passed, 0 failed".
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#if defined(__SANITIZE_ADDRESS__)
#define REPLAY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_SANITIZED 1
#endif
#endif

#ifdef REPLAY_SANITIZED
void __sanitizer_set_death_callback(void (*callback)(void));
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static char current[4096]; /* the input being run, for the message of a crash */

/* Async-signal-safe: a fixed buffer and write(2). */
static void say_current(void)
{
    static const char head[] = "fuzz replay: died running ";
    if (write(2, head, sizeof head - 1) < 0 || write(2, current, strlen(current)) < 0 ||
        write(2, "\n", 1) < 0)
        return;
}

static void on_fatal_signal(int sig)
{
    say_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_deaths(void)
{
    /* abort() is the targets' way of failing a property; the sanitizers leave SIGABRT alone. */
    signal(SIGABRT, on_fatal_signal);
#ifdef REPLAY_SANITIZED
    /* Memory errors, UB and leaks: the sanitizer reports, then calls this before exiting. */
    __sanitizer_set_death_callback(say_current);
#else
    signal(SIGSEGV, on_fatal_signal);
    signal(SIGBUS, on_fatal_signal);
    signal(SIGFPE, on_fatal_signal);
    signal(SIGILL, on_fatal_signal);
#endif
}

/* Runs one file; -1 if it cannot be read. */
static int run_file(const char *path)
{
    snprintf(current, sizeof current, "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *bigger = realloc(data, cap *= 2);
            if (!bigger) {
                free(data);
                data = NULL;
            }
            data = bigger;
        }
    }
    int bad = ferror(f) || !data;
    fclose(f);
    if (!bad) {
        /* libFuzzer hands over an exact-size heap copy: so do we, so ASan sees overreads. */
        uint8_t *exact = malloc(len ? len : 1);
        if (exact) {
            if (len)
                memcpy(exact, data, len);
            LLVMFuzzerTestOneInput(exact, len);
            free(exact);
        } else {
            bad = 1;
        }
    }
    free(data);
    return bad ? -1 : 0;
}

/* Runs a file, or every regular file of a folder in name order. */
static void run_path(const char *path, int *passed, int *failed)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("FAIL - %s: not found\n", path);
        (*failed)++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (run_file(path) == 0) {
            (*passed)++;
        } else {
            printf("FAIL - %s: unreadable\n", path);
            (*failed)++;
        }
        return;
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        printf("FAIL - %s: unreadable\n", path);
        (*failed)++;
        return;
    }
    for (int i = 0; i < n; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
        if (names[i]->d_name[0] != '.' && stat(sub, &st) == 0 && S_ISREG(st.st_mode))
            run_path(sub, passed, failed);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const char *name = strncmp(base, "fuzz_", 5) == 0 ? base + 5 : base;
    catch_deaths();
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int passed = 0, failed = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            run_path(argv[i], &passed, &failed);
    } else {
        char dir[512];
        snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", name);
        run_path(dir, &passed, &failed);
    }
    printf("%s: %d passed, %d failed\n", base, passed, failed);
    return failed ? 1 : 0;
}
