// A prefetch hint, inlined into Swift callers (Swift has no prefetch of its own).
#ifndef OBSERVATION_JOURNAL_PREFETCH_H
#define OBSERVATION_JOURNAL_PREFETCH_H

/// Asks the CPU to bring the cache line at `address` into the nearest cache ahead of a
/// write there. Only a hint: no effect on what the program computes, and never a fault
/// (the address need not be valid, though callers pass memory they own).
static inline void oj_prefetch(const void *address) { __builtin_prefetch(address, 1, 3); }

#endif
