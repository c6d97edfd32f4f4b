/*
 * Faults inside LMDB turned into errors. LMDB follows the page numbers and
 * node offsets of its pages without checking them, so a damaged page can
 * make its own code read outside the map (SIGSEGV) or past the end of the
 * file (SIGBUS). A thread that is about to call into LMDB on a path that
 * reads stored data pushes a frame and marks the calls it makes; a fault
 * while a marked call runs jumps back to the frame, which then reports the
 * database as corrupted instead of the process dying. A fault anywhere else
 * goes to whatever handler was there before (the default one: the process
 * dies as it would have).
 *
 * Usage: the work that calls into LMDB runs as fn(arg) under
 * eng_fault_run, and marks its LMDB calls:
 *
 *     static int work(void *arg) {
 *         ... rc = ENG_FAULT_CALL(mdb_cursor_get(cur, &k, &v, op)); ...
 *     }
 *     int rc;
 *     if (eng_fault_run(work, &state, &rc))
 *         ... a marked call faulted: abort the transaction, report ENG_E_CORRUPT ...
 *
 * Only LMDB's own calls are marked: a fault in cassette's code is a bug and
 * must stay a crash. A marked call outside eng_fault_run runs as it would
 * unmarked. After a fault, the transaction the call was in is in an
 * unknown state: it may only be aborted; what fn kept in its state is as it
 * was when the fault came.
 */
#ifndef ENG_FAULT_H
#define ENG_FAULT_H

#include <setjmp.h>
#include <signal.h>

typedef struct eng_fault_frame {
    sigjmp_buf jb;
    volatile sig_atomic_t armed;  /* a marked LMDB call is running */
    volatile sig_atomic_t jumped; /* a fault jumped back here */
    struct eng_fault_frame *prev; /* the thread's previous frame */
} eng_fault_frame;

/* The calling thread's innermost frame (NULL: none). */
extern _Thread_local eng_fault_frame *eng_fault_current;

/* Installs the SIGSEGV / SIGBUS handlers once per process (at the first open). */
void eng_fault_install(void);

/*
 * Runs *rc = fn(arg) with the calling thread's marked LMDB calls guarded:
 * 0 when fn returned, or the signal number when a marked call faulted (fn
 * did not return; *rc is unset). Nests: the innermost run catches.
 */
int eng_fault_run(int (*fn)(void *arg), void *arg, int *rc);

static inline void eng_fault_arm(void)
{
    if (eng_fault_current)
        eng_fault_current->armed = 1;
}

static inline int eng_fault_disarm(int rc)
{
    if (eng_fault_current)
        eng_fault_current->armed = 0;
    return rc;
}

/* Runs one LMDB call marked, so that a fault in it jumps back to the thread's frame. */
#define ENG_FAULT_CALL(call) (eng_fault_arm(), eng_fault_disarm(call))

/* The same with the frame at hand (eng_fault_current, read once before a hot loop). */
#define ENG_FAULT_CALL_IN(frame, call) ((frame)->armed = 1, eng_fault_disarm_in((frame), (call)))

static inline int eng_fault_disarm_in(eng_fault_frame *f, int rc)
{
    f->armed = 0;
    return rc;
}

#endif
