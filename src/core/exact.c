/*
 * exact.c - the two pieces of Python arithmetic the lesson's calculator relies on.
 *
 * Python multiplies integers exactly (arbitrary precision) and converts the product to a
 * double only when it meets a float, rounding once to nearest, ties to even. C's int64
 * would overflow and an early double conversion would round twice, so products are built
 * here in a small fixed-width big integer (8 x 32-bit limbs, enough for four 64-bit
 * factors) and rounded once.
 *
 * Python's float floor division is not floor(a / b): it goes through fmod and corrects the
 * quotient, which differs from floor(a / b) when a / b rounds up to an integer. The
 * concurrency numbers are floor divisions, so the exact algorithm matters.
 */
#include "kvcalc.h"

#include <math.h>

#include "kvmath.h"

#define LIMBS 8 /* 256 bits: the product of four factors below 2^64 */

/* acc = acc * f, where acc has LIMBS 32-bit limbs (least significant first). The caller
 * guarantees the product fits, which four factors below 2^64 always do. */
static void mul_small(uint32_t acc[LIMBS], uint64_t f)
{
    const uint32_t fl[2] = {(uint32_t)(f & 0xffffffffu), (uint32_t)(f >> 32)};
    uint32_t out[LIMBS] = {0};
    for (int j = 0; j < 2; j++) {
        uint64_t carry = 0;
        for (int i = 0; i + j < LIMBS; i++) {
            uint64_t t = (uint64_t)acc[i] * fl[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    for (int i = 0; i < LIMBS; i++)
        acc[i] = out[i];
}

static int bit_at(const uint32_t v[LIMBS], int bit)
{
    return (int)((v[bit / 32] >> (bit % 32)) & 1u);
}

/* Index of the highest set bit, or -1 for zero. */
static int top_bit(const uint32_t v[LIMBS])
{
    for (int i = LIMBS - 1; i >= 0; i--)
        for (int b = 31; b >= 0; b--)
            if ((v[i] >> b) & 1u)
                return i * 32 + b;
    return -1;
}

/* Rounds a big integer to the nearest double, ties to even (IEEE round-to-nearest). */
static double big_to_double(const uint32_t v[LIMBS])
{
    int top = top_bit(v);
    if (top < 0)
        return 0.0;
    int low = top - 52; /* lowest bit that fits in a 53-bit significand */
    if (low < 0)
        low = 0;
    uint64_t mant = 0;
    for (int b = top; b >= low; b--)
        mant = (mant << 1) | (uint64_t)bit_at(v, b);
    if (low > 0) {
        int round = bit_at(v, low - 1);
        int sticky = 0;
        for (int b = low - 2; b >= 0 && !sticky; b--)
            sticky = bit_at(v, b);
        if (round && (sticky || (mant & 1u)))
            mant++; /* may carry to 2^53: ldexp still gives the right power of two */
    }
    return kvm_ldexp((double)mant, low);
}

double kv_exact_product(const uint64_t *factors, size_t n)
{
    /* fast path: while the product fits in 64 bits, one integer-to-double conversion is
     * already the single correctly rounded step */
    uint64_t p = 1;
    size_t i;
    for (i = 0; i < n && i < 4; i++) {
        /* two factors below 2^32 cannot overflow: the division (tens of cycles) only
         * for the rare wide one */
        if (((p | factors[i]) >> 32) != 0 && factors[i] != 0 && p > UINT64_MAX / factors[i])
            break;
        p *= factors[i];
    }
    if (i == n || i == 4)
        return (double)p;

    uint32_t acc[LIMBS] = {1};
    for (size_t i = 0; i < n && i < 4; i++)
        mul_small(acc, factors[i]);
    return big_to_double(acc);
}

double kv_floordiv(double a, double b)
{
    /* whole numbers below 2^53 (every count and byte size of the lesson's sums): fmod is
     * exact, a - mod is b x the quotient exactly, so Python's answer is the integer floor;
     * a zero quotient keeps the path below for its sign (issue 22: fmod was 3% of a sweep) */
    if (a > -9007199254740992.0 && a < 9007199254740992.0 && b > -9007199254740992.0 &&
        b < 9007199254740992.0 && b != 0 && a == (double)(int64_t)a && b == (double)(int64_t)b) {
        int64_t x = (int64_t)a, y = (int64_t)b, q;
        if (x >= 0 && y > 0) {
            /* the double quotient is within one of the floor (both below 2^53); q x y stays
             * below 2^54, exact in int64, and settles it - a 64-bit integer division costs
             * several times a double's (issue 22) */
            q = (int64_t)(a / b);
            if (q * y > x)
                q--;
            else if ((q + 1) * y <= x)
                q++;
        } else {
            q = x / y;
            if (x % y != 0 && ((x < 0) != (y < 0)))
                q--;
        }
        if (q != 0)
            return (double)q;
    }
    double mod = kvm_fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0 && ((b < 0) != (mod < 0)))
        div -= 1.0;
    if (div != 0.0) {
        double fl = kvm_floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
        return fl;
    }
    return kvm_copysign(0.0, a / b);
}
