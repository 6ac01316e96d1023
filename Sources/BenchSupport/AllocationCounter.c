// Counts heap allocations for volumekit-bench by standing in for glibc's allocation entry points in the
// benchmark executable and forwarding to glibc's own implementations (__libc_malloc and friends).
#include "BenchSupport.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <stddef.h>
#include <errno.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static uint64_t allocations = 0;

void *malloc(size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_realloc(pointer, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

uint64_t bench_allocation_count(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
int bench_allocation_counting(void) { return 1; }
#else
uint64_t bench_allocation_count(void) { return 0; }
int bench_allocation_counting(void) { return 0; }
#endif
