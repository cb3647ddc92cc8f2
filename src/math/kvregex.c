/*
 * kvregex.c - a backtracking matcher for the regex subset of kvregex.h.
 *
 * The pattern is parsed into atoms linked by `next` (a sequence) and groups whose
 * alternatives are sequences linked by `next_alt`. Matching walks an atom, a repetition at a
 * time, with an explicit continuation (what follows once the atom is done), so that a group
 * under a quantifier backtracks into its alternatives as std::regex does. Every step spends
 * from a budget and the recursion has a depth limit: a pattern that would take long is
 * refused (KV_REGEX_TOO_COMPLEX) rather than run.
 */
#include "kvregex.h"

#include <string.h>

#define MAX_ATOMS 256
#define MAX_SEQS 128
#define MAX_DEPTH 2000
#define MAX_REPEAT 1000

enum { K_CHAR, K_ANY, K_CLASS, K_GROUP, K_BOL, K_EOL };

typedef struct {
    unsigned char kind, c;
    int min, max;          /* max < 0: unbounded */
    int next;              /* the next atom of its sequence, -1: the sequence ends */
    int alts;              /* K_GROUP: its first alternative (a sequence) */
    unsigned char set[32]; /* K_CLASS: the bytes it takes */
} atom;

typedef struct {
    int first;    /* its first atom, -1: empty */
    int next_alt; /* the group's next alternative, -1: none */
} seq;

typedef struct {
    atom atoms[MAX_ATOMS];
    seq seqs[MAX_SEQS];
    int n_atoms, n_seqs;
    const unsigned char *text;
    int len;
    long budget;
    int depth, over;
} re;

typedef struct {
    const char *p;
    size_t n, i;
    re *r;
    int err, nest;
} parser;

/* ---- parsing --------------------------------------------------------------------------- */

static int new_atom(parser *ps, int kind)
{
    if (ps->r->n_atoms >= MAX_ATOMS) {
        ps->err = 1;
        return -1;
    }
    atom *a = &ps->r->atoms[ps->r->n_atoms];
    memset(a, 0, sizeof *a);
    a->kind = (unsigned char)kind;
    a->min = a->max = 1;
    a->next = a->alts = -1;
    return ps->r->n_atoms++;
}

static void set_add(unsigned char *set, int c) { set[c >> 3] |= (unsigned char)(1u << (c & 7)); }

static int set_has(const unsigned char *set, int c) { return set[c >> 3] >> (c & 7) & 1; }

/* \d \w \s and their capitals into set; 0 when e is no such letter */
static int class_escape(int e, unsigned char *set)
{
    unsigned char tmp[32];
    memset(tmp, 0, sizeof tmp);
    int lower = e | 0x20;
    if (lower != 'd' && lower != 'w' && lower != 's')
        return 0;
    for (int c = 0; c < 256; c++) {
        int in = lower == 'd'   ? c >= '0' && c <= '9'
                 : lower == 'w' ? (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                                      (c >= 'A' && c <= 'Z') || c == '_'
                                : c == ' ' || (c >= '\t' && c <= '\r');
        if (e == lower ? in : !in) /* the capitals take the complement */
            set_add(tmp, c);
    }
    for (int i = 0; i < 32; i++)
        set[i] |= tmp[i];
    return 1;
}

/* the byte an escape stands for (\. \t \n ...), -1: not one read here */
static int literal_escape(int e)
{
    static const char plain[] = ".\\()[]{}|*+?^$/-";
    switch (e) {
    case 't': return '\t';
    case 'n': return '\n';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    default: return e && strchr(plain, e) ? e : -1;
    }
}

static int parse_alt(parser *ps);

/* A bracket class as ECMAScript reads it (std::regex's default grammar): refused where it
 * differs from what a reader of POSIX expects - "[]" and "[^]" (ECMAScript: an empty class,
 * and any character; POSIX: a ']' to come) and the POSIX forms "[:digit:]", "[.x.]" and
 * "[=x=]" - rather than read one way when llama.cpp reads another. */
static int parse_class(parser *ps, atom *a)
{
    int neg = 0;
    if (ps->i < ps->n && ps->p[ps->i] == '^') {
        neg = 1;
        ps->i++;
    }
    if (ps->i < ps->n && ps->p[ps->i] == ']')
        return -1;
    for (;;) {
        if (ps->i >= ps->n)
            return -1; /* no closing ] */
        int c = (unsigned char)ps->p[ps->i++];
        if (c == ']')
            break;
        if (c == '[' && ps->i < ps->n &&
            (ps->p[ps->i] == ':' || ps->p[ps->i] == '.' || ps->p[ps->i] == '='))
            return -1;
        if (c == '\\') {
            if (ps->i >= ps->n)
                return -1;
            int e = (unsigned char)ps->p[ps->i++];
            if (class_escape(e, a->set))
                continue;
            if ((c = literal_escape(e)) < 0)
                return -1;
        }
        int hi = c;
        if (ps->i + 1 < ps->n && ps->p[ps->i] == '-' && ps->p[ps->i + 1] != ']') {
            hi = (unsigned char)ps->p[ps->i + 1];
            ps->i += 2;
            if (hi == '\\') {
                if (ps->i >= ps->n || (hi = literal_escape((unsigned char)ps->p[ps->i++])) < 0)
                    return -1;
            }
            if (hi < c)
                return -1; /* a range out of order */
        }
        for (int x = c; x <= hi; x++)
            set_add(a->set, x);
    }
    if (neg)
        for (int i = 0; i < 32; i++)
            a->set[i] = (unsigned char)~a->set[i];
    return 0;
}

static int parse_int(parser *ps, int *out)
{
    int v = 0, digits = 0;
    while (ps->i < ps->n && ps->p[ps->i] >= '0' && ps->p[ps->i] <= '9' && digits < 5) {
        v = v * 10 + (ps->p[ps->i++] - '0');
        digits++;
    }
    *out = v;
    return digits > 0 && v <= MAX_REPEAT ? 0 : -1;
}

/* the quantifier after atom a, if any */
static int parse_quantifier(parser *ps, atom *a)
{
    if (ps->i >= ps->n)
        return 0;
    char q = ps->p[ps->i];
    if (q == '*' || q == '+' || q == '?') {
        ps->i++;
        a->min = q == '+';
        a->max = q == '?' ? 1 : -1;
    } else if (q == '{') {
        ps->i++;
        if (parse_int(ps, &a->min) < 0)
            return -1;
        a->max = a->min;
        if (ps->i < ps->n && ps->p[ps->i] == ',') {
            ps->i++;
            a->max = -1;
            if (ps->i < ps->n && ps->p[ps->i] != '}' && (parse_int(ps, &a->max) < 0 || a->max < a->min))
                return -1;
        }
        if (ps->i >= ps->n || ps->p[ps->i++] != '}')
            return -1;
    } else {
        return 0;
    }
    if (a->kind == K_BOL || a->kind == K_EOL)
        return -1; /* nothing to repeat */
    if (ps->i < ps->n && ps->p[ps->i] == '?')
        ps->i++; /* lazy: the same answer for a search */
    if (ps->i < ps->n && strchr("*+?{", ps->p[ps->i]))
        return -1; /* a quantifier of a quantifier */
    return 0;
}

static int parse_atom(parser *ps)
{
    int c = (unsigned char)ps->p[ps->i++];
    int ai;
    switch (c) {
    case '(': {
        if (ps->i < ps->n && ps->p[ps->i] == '?') {
            if (ps->i + 1 >= ps->n || ps->p[ps->i + 1] != ':')
                return -1; /* look-arounds are not read */
            ps->i += 2;
        }
        if (++ps->nest > 32 || (ai = new_atom(ps, K_GROUP)) < 0)
            return -1;
        int alts = parse_alt(ps);
        if (alts < 0 || ps->i >= ps->n || ps->p[ps->i++] != ')')
            return -1;
        ps->nest--;
        ps->r->atoms[ai].alts = alts;
        break;
    }
    case '[':
        if ((ai = new_atom(ps, K_CLASS)) < 0 || parse_class(ps, &ps->r->atoms[ai]) < 0)
            return -1;
        break;
    case '.':
        if ((ai = new_atom(ps, K_CLASS)) < 0)
            return -1;
        memset(ps->r->atoms[ai].set, 0xff, 32);
        ps->r->atoms[ai].set['\n' >> 3] &= (unsigned char)~(1u << ('\n' & 7));
        ps->r->atoms[ai].set['\r' >> 3] &= (unsigned char)~(1u << ('\r' & 7));
        break;
    case '^':
    case '$':
        ai = new_atom(ps, c == '^' ? K_BOL : K_EOL);
        break;
    case '\\': {
        if (ps->i >= ps->n)
            return -1;
        int e = (unsigned char)ps->p[ps->i++];
        if ((ai = new_atom(ps, K_CLASS)) < 0)
            return -1;
        if (class_escape(e, ps->r->atoms[ai].set))
            break;
        int lit = literal_escape(e);
        if (lit < 0)
            return -1; /* \b, back-references, \x.. are not read */
        ps->r->atoms[ai].kind = K_CHAR;
        ps->r->atoms[ai].c = (unsigned char)lit;
        break;
    }
    case '*':
    case '+':
    case '?':
    case '{':
        return -1; /* nothing to repeat */
    default:
        if ((ai = new_atom(ps, K_CHAR)) < 0)
            return -1;
        ps->r->atoms[ai].c = (unsigned char)c;
    }
    if (ai < 0 || parse_quantifier(ps, &ps->r->atoms[ai]) < 0)
        return -1;
    return ai;
}

/* one alternative: atoms up to "|", ")" or the end; returns its sequence */
static int parse_seq(parser *ps)
{
    if (ps->r->n_seqs >= MAX_SEQS)
        return -1;
    int si = ps->r->n_seqs++;
    ps->r->seqs[si].first = ps->r->seqs[si].next_alt = -1;
    int last = -1;
    while (ps->i < ps->n && ps->p[ps->i] != '|' && ps->p[ps->i] != ')') {
        int ai = parse_atom(ps);
        if (ai < 0)
            return -1;
        if (last < 0)
            ps->r->seqs[si].first = ai;
        else
            ps->r->atoms[last].next = ai;
        last = ai;
    }
    return si;
}

static int parse_alt(parser *ps)
{
    int first = parse_seq(ps), last = first;
    while (last >= 0 && ps->i < ps->n && ps->p[ps->i] == '|') {
        ps->i++;
        int s = parse_seq(ps);
        if (s < 0)
            return -1;
        ps->r->seqs[last].next_alt = s;
        last = s;
    }
    return last < 0 ? -1 : first;
}

/* ---- matching -------------------------------------------------------------------------- */

typedef struct cont {
    int kind;  /* 0: go on at atom `at`; 1: a group's repetition ended: `count` done */
    int at, count, start;
    const struct cont *next;
} cont;

static int m_rep(re *r, int ai, int count, int pos, const cont *k);

static int m_seq(re *r, int ai, int pos, const cont *k)
{
    if (ai >= 0)
        return m_rep(r, ai, 0, pos, k);
    if (!k)
        return 1;
    if (k->kind == 0)
        return m_seq(r, k->at, pos, k->next);
    /* an empty repetition past the minimum would loop for ever: it ends the group */
    if (pos == k->start && k->count > r->atoms[k->at].min)
        return 0;
    return m_rep(r, k->at, k->count, pos, k->next);
}

static int one(const atom *a, int c)
{
    return a->kind == K_CHAR ? a->c == c : set_has(a->set, c);
}

static int m_rep(re *r, int ai, int count, int pos, const cont *k)
{
    if (--r->budget < 0 || r->depth >= MAX_DEPTH) {
        r->over = 1;
        return 0;
    }
    const atom *a = &r->atoms[ai];
    cont after = {0, a->next, 0, 0, k}; /* once the atom is done */
    int ok = 0;
    r->depth++;
    if (a->kind == K_BOL || a->kind == K_EOL) {
        ok = (a->kind == K_BOL ? pos == 0 : pos == r->len) && m_seq(r, -1, pos, &after);
    } else {
        if (a->max < 0 || count < a->max) {
            if (a->kind == K_GROUP) {
                cont again = {1, ai, count + 1, pos, k};
                for (int s = a->alts; s >= 0 && !ok && !r->over; s = r->seqs[s].next_alt)
                    ok = m_seq(r, r->seqs[s].first, pos, &again);
            } else if (pos < r->len && one(a, r->text[pos])) {
                ok = m_rep(r, ai, count + 1, pos + 1, k);
            }
        }
        if (!ok && !r->over && count >= a->min)
            ok = m_seq(r, -1, pos, &after);
    }
    r->depth--;
    return ok && !r->over;
}

int kv_regex_search(const char *pattern, size_t plen, const char *text, size_t tlen)
{
    re r; /* 14 KB on the stack: no state shared between calls */
    if (plen > KV_REGEX_MAX || tlen > 4096)
        return KV_REGEX_TOO_COMPLEX;
    r.n_atoms = r.n_seqs = 0;
    r.over = r.depth = 0;
    parser ps = {pattern, plen, 0, &r, 0, 0};
    int top = new_atom(&ps, K_GROUP); /* the pattern as one group */
    int alts = top < 0 ? -1 : parse_alt(&ps);
    if (alts < 0 || ps.err || ps.i != plen)
        return KV_REGEX_SYNTAX; /* a stray ")" stops parse_alt before the end */
    r.atoms[top].alts = alts;
    r.text = (const unsigned char *)text;
    r.len = (int)tlen;
    r.budget = KV_REGEX_STEPS;
    for (int start = 0; start <= r.len; start++) {
        r.depth = 0;
        if (m_rep(&r, top, 0, start, NULL))
            return KV_REGEX_YES;
        if (r.over)
            return KV_REGEX_TOO_COMPLEX;
    }
    return KV_REGEX_NO;
}
