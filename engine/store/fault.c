/*
 * The handlers behind fault.h. One pair per process, installed the first
 * time a database opens; each thread keeps its stack of frames in a
 * thread-local pointer, so a fault is routed by the thread it happened on
 * and threads never share a frame.
 */
#include <pthread.h>
#include <string.h>

#include "engine/store/fault.h"

_Thread_local eng_fault_frame *eng_fault_current;
static struct sigaction previous[2]; /* SIGSEGV, SIGBUS as they were before */
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static struct sigaction *previous_of(int sig) { return &previous[sig == SIGBUS]; }

static void on_fault(int sig, siginfo_t *info, void *uc)
{
    eng_fault_frame *f = eng_fault_current;
    if (f && f->armed) {
        f->armed = 0;
        f->jumped = 1;
        siglongjmp(f->jb, sig);
    }
    /* Not an LMDB call under a frame: what would have happened without us. */
    struct sigaction *p = previous_of(sig);
    if (p->sa_flags & SA_SIGINFO) {
        p->sa_sigaction(sig, info, uc);
    } else if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
    } else {
        /* back to the default action: returning re-runs the faulting instruction */
        signal(sig, SIG_DFL);
    }
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous[0]);
    sigaction(SIGBUS, &sa, &previous[1]);
}

void eng_fault_install(void) { pthread_once(&installed, install); }

int eng_fault_run(int (*fn)(void *arg), void *arg, int *rc)
{
    eng_fault_frame f;
    f.armed = 0;
    f.jumped = 0;
    f.prev = eng_fault_current;
    eng_fault_current = &f;
    int sig = sigsetjmp(f.jb, 0);
    if (!sig)
        *rc = fn(arg);
    eng_fault_current = f.prev;
    if (sig) {
        /* the jump left the handler with its signal blocked (sigsetjmp saved no mask) */
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGSEGV);
        sigaddset(&s, SIGBUS);
        pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    }
    return sig;
}
