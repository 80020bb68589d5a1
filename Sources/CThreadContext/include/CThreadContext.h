// The calling thread's ObserverCore thread context, in C thread-local storage: Swift has
// no thread-locals of its own, and `pthread_getspecific` would be a call into libc per
// recorded post. The functions are `static inline` so that Swift
// inlines them: a read is one load from the thread's TLS block.
#ifndef OBSERVATION_JOURNAL_C_THREAD_CONTEXT_H
#define OBSERVATION_JOURNAL_C_THREAD_CONTEXT_H

// The target's module map names this header only (SwiftPM's rule for a header named after
// the target): the clock read, the prefetch hint and the main-queue check come in through it.
#include "MonotonicClock.h"
#include "Prefetch.h"
// For Swift's importer, which finds the toolchain's dispatch headers; this target's own C
// file does not need them (and its compiler does not search there).
#if __has_include(<dispatch/dispatch.h>)
#include "MainQueue.h"
#endif

// Initial-exec: the variable lives in the thread's static TLS block, read at a fixed
// offset from the thread pointer, also when ObserverCore is linked into a shared library
// (no `__tls_get_addr` call). Linux only: Darwin has its own TLS scheme.
#if defined(__linux__)
#define OJ_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define OJ_TLS_MODEL
#endif

/// The calling thread's context storage, or NULL before its first use and after its
/// pthread-key destructor ran. Only `ThreadContext` reads and writes it, through the
/// functions below.
extern __thread void *oj_thread_context OJ_TLS_MODEL;

/// The calling thread's context storage, or NULL.
static inline void *oj_thread_context_get(void) { return oj_thread_context; }

/// Sets the calling thread's context storage (NULL: none).
static inline void oj_thread_context_set(void *storage) { oj_thread_context = storage; }

#endif
