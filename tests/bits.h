/*
 * bits.h - a double's 64 bits and back, for the tests that compare numbers bit for bit
 * (test_kvmath, test_shortest). memcpy, not a union or a pointer cast: defined in C11.
 */
#ifndef KVCALC_TESTS_BITS_H
#define KVCALC_TESTS_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint64_t u64_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double double_of(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif
