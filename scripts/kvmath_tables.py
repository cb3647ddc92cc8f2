#!/usr/bin/env python3
"""Print the constants and tables of src/math/kvmath.c (C hex floats), computed with
Python's decimal module at 80 digits: each is the double nearest the real value, and each
"lo" is the double nearest (value - hi). Not run by the build: its output is pasted into
kvmath.c; run it again to check them: python3 scripts/kvmath_tables.py"""
from decimal import Decimal as D, getcontext
from fractions import Fraction as F

getcontext().prec = 80


def nearest(v):
    """the double nearest the Decimal or Fraction v (ties to even)"""
    return float(F(v)) if isinstance(v, F) else float(v)


def hx(v):
    return float(v).hex()


def hilo(v):
    h = nearest(v)
    lo = nearest(D(v) - D(h))
    return h, lo


def truncbits(v, bits):
    """v truncated to 'bits' significant bits (a double with trailing zeros)"""
    f = F(v)
    e = 0
    while f >= 2:
        f /= 2
        e += 1
    while f < 1:
        f *= 2
        e -= 1
    m = int(f * 2 ** (bits - 1))
    return float(F(m, 2 ** (bits - 1)) * F(2) ** e)


def pi():
    # Machin: pi = 16 atan(1/5) - 4 atan(1/239)
    def atan_inv(n):
        x = D(1) / n
        x2 = x * x
        s, t, k = D(0), x, 1
        while True:
            term = t / k
            if term == 0 or abs(term) < D(10) ** -79:
                break
            s += term if (k // 2) % 2 == 0 else -term
            t *= x2
            k += 2
        return s
    return 16 * atan_inv(5) - 4 * atan_inv(239)


LN2 = D(2).ln()
LN10 = D(10).ln()
PI = pi()

print("/* ln 2: a hi with 11 trailing zero bits (times any exponent is exact) and a lo */")
h = truncbits(LN2, 42)
print("LN2_HI", hx(h), "LN2_LO", hx(nearest(LN2 - D(h))))
print("/* 1 / ln 2 and 1 / ln 10 as hi + lo */")
print("INVLN2", *map(hx, hilo(1 / LN2)))
print("INVLN10", *map(hx, hilo(1 / LN10)))
print("/* exp: 64 / ln 2, ln 2 / 64 (hi with trailing zeros) */")
print("EXP_INVL", hx(nearest(64 / LN2)))
h = truncbits(LN2 / 64, 36)
print("EXP_L_HI", hx(h), "EXP_L_LO", hx(nearest(LN2 / 64 - D(h))))
print("/* exp table: 2^(j/64) hi, lo */")
for j in range(64):
    v = (LN2 * j / 64).exp()
    a, b = hilo(v)
    print("    %s, %s," % (hx(a), hx(b)))
print("/* log table: invc (10 significant bits), log(c) = -log(invc) hi, lo */")
for j in range(128):
    if j == 0 or j == 127:
        inv = 1.0
    else:
        c = D(1) + (D(j) + D("0.5")) / 128
        if j >= 52:
            c = c / 2
        inv = float(F(round(F(1 / c) * 2 ** 9), 2 ** 9)) if 1 / c < 1 else \
            float(F(round(F(1 / c) * 2 ** 9), 2 ** 9))
    lc = -D(inv).ln() if inv != 1.0 else D(0)
    a, b = hilo(lc)
    print("    {%s, %s, %s}," % (hx(inv), hx(a), hx(b)))
print("/* 2^(1/4), 2^(1/2), 2^(3/4) */")
for q in (1, 2, 3):
    print(hx(nearest((LN2 * q / 4).exp())))
print("/* pi/2 in three parts: 33 bits, 33 bits, 53 bits; 2/pi */")
p1 = truncbits(PI / 2, 33)
p2 = truncbits(PI / 2 - D(p1), 33)
p3 = nearest(PI / 2 - D(p1) - D(p2))
print("PIO2_1", hx(p1), "PIO2_2", hx(p2), "PIO2_3", hx(p3))
print("INVPIO2", hx(nearest(2 / PI)))
print("/* 1/n! for the sin and cos series */")
fact = 1
for n in range(1, 20):
    fact *= n
    print(n, hx(nearest(F(1, fact))))


def pi_fixed(n):
    """floor(pi 2^n), by Machin's formula in integers (32 guard bits)"""
    g = n + 32
    def atan_inv(k):
        one = 1 << g
        s, t, i, sign = 0, one // k, 1, 1
        while t:
            s += sign * (t // i)
            t //= k * k
            i += 2
            sign = -sign
        return s
    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 32


print("/* 2/pi, 1344 bits after the binary point, in 32-bit words (for kvm_cos of |x| >= 2^20) */")
pf = pi_fixed(1700)
w = (1 << (1345 + 1700)) // pf  # floor(2/pi 2^1344)
words = [(w >> (32 * (41 - i))) & 0xffffffff for i in range(42)]
for i in range(0, 42, 6):
    print("    " + ", ".join("0x%08x" % x for x in words[i:i + 6]) + ",")
PIO2 = PI / 2
a, b = hilo(PIO2)
print("PIO2_HI", hx(a), "PIO2_LO", hx(b))
