// Whether the calling code runs on the main queue, through libdispatch's public C
// interface (<dispatch/dispatch.h>, not deprecated), inlined into Swift callers. The Swift
// overlay has no query for the current queue's label, and its `DispatchQueue.getSpecific`
// boxes the value and retains the key on every call: this is read for every recorded post.
//
// Only the Swift side includes this (its importer finds the toolchain's dispatch headers;
// the C compiler of this target does not look there and has no use for it).
#ifndef OBSERVATION_JOURNAL_MAIN_QUEUE_H
#define OBSERVATION_JOURNAL_MAIN_QUEUE_H

#include <stdbool.h>
#include <dispatch/dispatch.h>

/// The main queue's label, as libdispatch keeps it: a constant of its own.
static inline const char *oj_main_queue_label(void) {
    return dispatch_queue_get_label(dispatch_get_main_queue());
}

/// Whether the calling code runs on the main queue: a block the main queue is draining
/// (on whichever thread drains it), a block of a queue that targets it, or the main thread
/// outside any other queue (libdispatch runs it as the main queue).
///
/// `main_key` is a key whose specific value is set on the main queue only, `main_label`
/// is `oj_main_queue_label()`. The current queue is the main queue itself exactly when
/// its label is that very string, compared by address: every other queue's label is a
/// copy or a constant of another image, even when it holds the same text. That is a
/// read of the thread's current queue. Any other queue may target the main queue, so
/// then the specific value decides (`dispatch_get_specific` searches the target chain).
static inline bool oj_on_main_queue(const void *main_key, const char *main_label) {
    if (dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL) == main_label) return true;
    return dispatch_get_specific(main_key) != NULL;
}

#endif
