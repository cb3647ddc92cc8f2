#!/usr/bin/env python3
"""shortest_table.py - the table of src/render/shortest.c (Schubfach), from exact arithmetic.

Checks the three floor-logarithm formulas of shortest.c against exact rational arithmetic
over every exponent a double needs (and more), checks that the shift h stays in 2..5, and
prints the rows of pow10_neg[]: for k = -324..292, g = floor(10^-k 2^-r) + 1 with r the
integer that puts 10^-k 2^-r in [2^125, 2^126), split as g = hi 2^63 + lo.

    python3 scripts/shortest_table.py | diff - <(grep '^    {0x' src/render/shortest.c)
"""
from fractions import Fraction
import math
import sys

K_MIN, K_MAX = -324, 292


def floor_log(x, base):
    """floor(log_base(x)) for a positive Fraction x, exactly."""
    n = math.floor((x.numerator.bit_length() - x.denominator.bit_length()) / math.log2(base))
    while Fraction(base) ** (n + 1) <= x:
        n += 1
    while Fraction(base) ** n > x:
        n -= 1
    return n


def main():
    for q in range(-1200, 1201):
        p = Fraction(2) ** q
        assert (q * 661971961083) >> 41 == floor_log(p, 10), q
        assert (q * 661971961083 - 274743187321) >> 41 == floor_log(Fraction(3, 4) * p, 10), q
    for e in range(-400, 401):
        assert (e * 913124641741) >> 38 == floor_log(Fraction(10) ** e, 2), e
    for biased in range(0, 2047):  # every exponent of a finite double
        q = -1074 if biased == 0 else biased - 1075
        for irregular in ([False, True] if biased > 1 else [False]):
            p = Fraction(2) ** q
            k = floor_log(Fraction(3, 4) * p if irregular else p, 10)
            assert K_MIN <= k <= K_MAX, (q, k)
            h = q + floor_log(Fraction(10) ** -k, 2) + 2
            assert 2 <= h <= 5, (q, h)
    for k in range(K_MIN, K_MAX + 1):
        p = Fraction(10) ** -k
        r = floor_log(p, 2) - 125
        beta = p / Fraction(2) ** r
        assert 2**125 <= beta < 2**126
        g = math.floor(beta) + 1
        assert g < 2**126
        sys.stdout.write("    {0x%016XU, 0x%016XU}, /* %d */\n" % (g >> 63, g & (2**63 - 1), k))


if __name__ == "__main__":
    main()
