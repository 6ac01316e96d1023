#ifndef VOLUMEKIT_BENCH_SUPPORT_H
#define VOLUMEKIT_BENCH_SUPPORT_H
#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, aligned allocations) made by this process so far.
/// Counted on Linux (glibc) only; elsewhere it stays 0 and `bench_allocation_counting` is 0.
uint64_t bench_allocation_count(void);

/// 1 where allocations are counted.
int bench_allocation_counting(void);

#endif
