// The monotonic clock read in C, inlined into Swift callers. In Swift the `timespec`
// handed to `clock_gettime` by address made every recording function carry a stack
// protector (a guard load and compare per call), and converting its signed fields to
// `UInt64` tested each for a trap; here the struct stays inside this function.
#ifndef OBSERVATION_JOURNAL_MONOTONIC_CLOCK_H
#define OBSERVATION_JOURNAL_MONOTONIC_CLOCK_H

#include <stdint.h>
#include <time.h>

/// `CLOCK_MONOTONIC` in nanoseconds. Its fields are never negative, so the conversion
/// is exact (wrapping past 2^64 ns would take 584 years of uptime).
static inline uint64_t oj_monotonic_nanoseconds(void) {
    struct timespec spec;
    clock_gettime(CLOCK_MONOTONIC, &spec);
    return (uint64_t)spec.tv_sec * 1000000000u + (uint64_t)spec.tv_nsec;
}

#endif
