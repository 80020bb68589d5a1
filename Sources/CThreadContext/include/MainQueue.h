// Whether the calling code runs on the main queue, through libdispatch's documented C
// interface (<dispatch/dispatch.h>: `dispatch_queue_set_specific`, `dispatch_get_specific`),
// inlined into Swift callers. The Swift overlay's `DispatchQueue.getSpecific` boxes the
// value and retains the key on every call: this is read for every recorded post.
//
// Only the Swift side includes this (its importer finds the toolchain's dispatch headers;
// the C compiler of this target does not look there and has no use for it).
#ifndef OBSERVATION_JOURNAL_MAIN_QUEUE_H
#define OBSERVATION_JOURNAL_MAIN_QUEUE_H

#include <stdbool.h>
#include <dispatch/dispatch.h>

/// The key of the main queue's mark: libdispatch keys are addresses, compared and never
/// read. Defined in CThreadContext.c.
extern char oj_main_queue_key;

/// Marks the main queue: sets a value for `oj_main_queue_key` on it, and on no other
/// queue. Call once, before `oj_on_main_queue`.
static inline void oj_mark_main_queue(void) {
    dispatch_queue_set_specific(dispatch_get_main_queue(), &oj_main_queue_key, &oj_main_queue_key, NULL);
}

/// Whether the calling code runs on the main queue (once `oj_mark_main_queue` ran): a block
/// the main queue is draining (on whichever thread drains it), a block of a queue that
/// targets it, or the main thread outside any other queue (libdispatch runs it as the main
/// queue). `dispatch_get_specific` looks the key up on the current queue, then along its
/// target queues; only the main queue has a value for it.
static inline bool oj_on_main_queue(void) {
    return dispatch_get_specific(&oj_main_queue_key) != NULL;
}

#endif
