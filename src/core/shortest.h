/*
 * shortest.h - value_text.c's fast path to the shortest decimal (the
 * comment above its #include says how it works), made once per arithmetic
 * type: value_text.c defines REAL (the type), REAL_EXACT (its largest
 * exact power of ten), REAL_EPS, SUF(name) (the suffix of the functions
 * made), RINT (the nearest integer) and FABS for REAL, then includes it.
 * Not a header of its own: it needs value_text.c's helpers.
 */

static const REAL SUF(pow10)[REAL_EXACT + 1] = {
    1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
    1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L,
#if REAL_EXACT > 22
    1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
#endif
};

/* x * 10^k, one rounding per REAL_EXACT powers of ten */
static REAL SUF(scale10)(REAL x, int k)
{
    while (k > REAL_EXACT) {
        x *= SUF(pow10)[REAL_EXACT];
        k -= REAL_EXACT;
    }
    while (k < -REAL_EXACT) {
        x /= SUF(pow10)[REAL_EXACT];
        k += REAL_EXACT;
    }
    return k >= 0 ? x * SUF(pow10)[k] : x / SUF(pow10)[-k];
}

/* Whether a decimal of p significant digits lies strictly between the
 * midpoints: 1 (its digits in *out), 0, or -1 when that takes the exact
 * path. */
static int SUF(try_digits)(REAL x, REAL lo, REAL hi, int e, int p, uint64_t *out)
{
    int k = p - 1 - e;
    REAL sx = SUF(scale10)(x, k), slo = SUF(scale10)(lo, k), shi = SUF(scale10)(hi, k);
    REAL margin = sx * (REAL_EPS * 16);
    int64_t near = RINT(sx);                             /* 0 < sx < 10^18 */
    REAL frac = sx - (REAL)near;
    int64_t other = frac > 0 ? near + 1 : near - 1;
    if (FABS(FABS(frac) - (REAL)0.5) <= margin) {        /* halfway, or nearly */
        int side = other > near ? 1 : -1;
        int c = cmp_exact(x, k, (uint64_t)(2 * near + side));
        if (c == 2)
            return -1;
        if (c == side || (c == 0 && near % 2)) {         /* a tie goes to the even one */
            int64_t t = near;
            near = other;
            other = t;
        }
    }
    int64_t cand[2] = { near, other };                   /* the nearest first */
    for (int i = 0; i < 2; i++) {
        if (cand[i] <= 0)
            continue;
        REAL dd = (REAL)cand[i];
        bool above_lo = dd > slo, below_hi = dd < shi;
        if (FABS(dd - slo) <= margin) {
            int c = cmp_exact(lo, k, 2 * (uint64_t)cand[i]);
            if (c == 2 || c == 0)
                return -1;       /* on the midpoint: reads back by its evenness */
            above_lo = c < 0;
        }
        if (FABS(dd - shi) <= margin) {
            int c = cmp_exact(hi, k, 2 * (uint64_t)cand[i]);
            if (c == 2 || c == 0)
                return -1;
            below_hi = c > 0;
        }
        if (above_lo && below_hi) {
            *out = (uint64_t)cand[i];
            return 1;
        }
    }
    return 0;
}

/* The fast path; @return the length, or -1 to take the exact path.  The
 * shortest length is found by bisection: a decimal of p digits between the
 * midpoints is one of p + 1 digits too. */
static int SUF(format_fast)(double v, int maxprec, enum tl_dtype dt, char *buf, size_t n)
{
    if (v == 0)
        return snprintf(buf, n, signbit(v) ? "-0" : "0");
    bool neg = v < 0;
    double below, above;
    neighbours(fabs(v), dt, &below, &above);
    REAL x = (REAL)fabs(v);
    REAL lo = (x + below) / 2;
    REAL hi = isinf(above) ? x + (x - below) / 2 : (x + above) / 2;
    int bexp;
    frexp(v, &bexp);
    int e = (int)floor((bexp - 1) * 0.30102999566398120);   /* log10(2) */
    REAL lead = SUF(scale10)(x, -e);
    if (lead >= 10)
        e++;
    else if (lead < 1)
        e--;
    uint64_t digits = 0;
    /* p digits surely reach a decimal between the midpoints once their
     * spacing 10^(e + 1 - p) is below the gap hi - lo: usually the answer,
     * or one or two less (a FLOAT32 as a double: 16 digits where 17 are
     * sure), which are tried in turn before the bisection */
    int gexp;
    double gfrac = frexp((double)(hi - lo), &gexp);      /* the gap: gfrac 2^gexp */
    /* log2 of the gap is at least gexp - 2 + 2 gfrac (the chord of log2
     * over [1, 2) lies under it, by 0.087 at most), so the floor of this
     * log10 is the gap's or one less: sure is then one digit too many at
     * worst, never too few, and no log10 is called (5% of dump --json) */
    int sure = e + 1 - (int)floor((gexp - 2 + 2 * gfrac) * 0.30102999566398120 - 1e-9);
    if (sure < 1)
        sure = 1;
    if (sure > maxprec)
        sure = maxprec;
    int a = 1, b = sure, r = SUF(try_digits)(x, lo, hi, e, b, &digits);
    if (r != 1)
        return -1;
    for (int down = 0; down < 2 && a < b; down++) {
        uint64_t d1;
        r = SUF(try_digits)(x, lo, hi, e, b - 1, &d1);
        if (r < 0)
            return -1;
        if (r == 0) {
            a = b;                       /* b digits are the shortest */
        } else {
            b--;
            digits = d1;
        }
    }
    while (a < b) {
        int m = (a + b) / 2;
        uint64_t dm;
        r = SUF(try_digits)(x, lo, hi, e, m, &dm);
        if (r < 0)
            return -1;
        if (r == 1) {
            b = m;
            digits = dm;
        } else {
            a = m + 1;
        }
    }
    int p = b, ee = e;                   /* digits: the decimal of b digits */
    if (digits >= pow10_u64[p]) {                /* rounded up to 10^p */
        digits /= 10;
        ee++;
    }
    if (digits < pow10_u64[p - 1])               /* the decimal exponent misjudged */
        return -1;
    return write_shortest(neg, digits, p, ee, buf, n);
}

#undef REAL
#undef REAL_EXACT
#undef REAL_EPS
#undef SUF
#undef RINT
#undef FABS
