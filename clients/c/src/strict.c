/* libtouchd-client: JSON as RFC 8259 has it, checked beside json-c, which (0.16, even with
 * JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8) accepts NaN, Infinity and -Infinity,
 * numbers beyond a double (1e400 becomes inf) or an int64 (clamped), "1.", raw control
 * characters in strings, overlong and surrogate UTF-8 sequences, lone \ud800 escapes, and
 * "\u0000" inside a string (which a C string then ends at). A line json-c parsed is checked
 * here too; any of these makes it not a message. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const unsigned char *s;
    size_t len, at;
    const char *why;
} scan;

static int fail(scan *p, const char *why) {
    if (!p->why) p->why = why;
    return -1;
}

static void skip_space(scan *p) {
    while (p->at < p->len && (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\r' || p->s[p->at] == '\n'))
        p->at++;
}

static int hex4(scan *p, unsigned *out) {
    if (p->len - p->at < 4) return fail(p, "a \\u escape needs four hex digits");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = p->s[p->at + i];
        unsigned d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : 16;
        if (d == 16) return fail(p, "a \\u escape needs four hex digits");
        v = v * 16 + d;
    }
    p->at += 4;
    *out = v;
    return 0;
}

/* One UTF-8 sequence of two to four bytes at p->at (RFC 3629: no overlong forms, no
   surrogates, nothing above U+10FFFF). */
static int utf8(scan *p) {
    const unsigned char *s = p->s + p->at;
    size_t left = p->len - p->at;
    unsigned char b = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;              /* the second byte's range */
    if (b >= 0xC2 && b <= 0xDF) n = 2;
    else if (b == 0xE0) n = 3, lo = 0xA0;
    else if (b >= 0xE1 && b <= 0xEC) n = 3;
    else if (b == 0xED) n = 3, hi = 0x9F;
    else if (b >= 0xEE && b <= 0xEF) n = 3;
    else if (b == 0xF0) n = 4, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3) n = 4;
    else if (b == 0xF4) n = 4, hi = 0x8F;
    else return fail(p, "invalid UTF-8");
    if (left < n || s[1] < lo || s[1] > hi) return fail(p, "invalid UTF-8");
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return fail(p, "invalid UTF-8");
    p->at += n;
    return 0;
}

static int string(scan *p) {
    p->at++;                                        /* the opening quote */
    while (p->at < p->len) {
        unsigned char ch = p->s[p->at];
        if (ch == '"') {
            p->at++;
            return 0;
        }
        if (ch < 0x20) return fail(p, "a control character in a string (it must be escaped)");
        if (ch >= 0x80) {
            if (utf8(p)) return -1;
            continue;
        }
        if (ch != '\\') {
            p->at++;
            continue;
        }
        if (++p->at >= p->len) break;
        ch = p->s[p->at];
        if (strchr("\"\\/bfnrt", ch) && ch) {
            p->at++;
            continue;
        }
        if (ch != 'u') return fail(p, "an unknown escape in a string");
        p->at++;
        unsigned u;
        if (hex4(p, &u)) return -1;
        if (u == 0) {
            p->at -= 6;
            return fail(p, "a NUL character (\\u0000) in a string");
        }
        if (u >= 0xDC00 && u <= 0xDFFF) {
            p->at -= 6;
            return fail(p, "a lone low surrogate escape in a string");
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
            unsigned v;
            if (p->len - p->at < 2 || p->s[p->at] != '\\' || p->s[p->at + 1] != 'u') {
                p->at -= 6;
                return fail(p, "a lone high surrogate escape in a string");
            }
            p->at += 2;
            if (hex4(p, &v)) return -1;
            if (v < 0xDC00 || v > 0xDFFF) {
                p->at -= 12;
                return fail(p, "a lone high surrogate escape in a string");
            }
        }
    }
    return fail(p, "a string without its closing quote");
}

/* Whether the integer digits [from, to) (with a sign) fit an int64. */
static int int64_fits(const unsigned char *s, size_t n, int negative) {
    static const char max[] = "9223372036854775807", min[] = "9223372036854775808";
    if (n != 19) return n < 19;
    return memcmp(s, negative ? min : max, 19) <= 0;
}

static int number(scan *p) {
    size_t start = p->at;
    int negative = p->s[p->at] == '-';
    if (negative) p->at++;
    if (p->at < p->len && (p->s[p->at] == 'I' || p->s[p->at] == 'N')) {
        p->at = start;
        return fail(p, "NaN and Infinity are not JSON numbers");
    }
    size_t digits = p->at;
    if (p->at >= p->len || p->s[p->at] < '0' || p->s[p->at] > '9') return fail(p, "a number needs digits");
    if (p->s[p->at] == '0') p->at++;
    else
        while (p->at < p->len && p->s[p->at] >= '0' && p->s[p->at] <= '9') p->at++;
    size_t int_end = p->at;
    int integer = 1;
    if (p->at < p->len && p->s[p->at] == '.') {
        integer = 0;
        p->at++;
        if (p->at >= p->len || p->s[p->at] < '0' || p->s[p->at] > '9') return fail(p, "a number needs digits after its '.'");
        while (p->at < p->len && p->s[p->at] >= '0' && p->s[p->at] <= '9') p->at++;
    }
    if (p->at < p->len && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
        integer = 0;
        p->at++;
        if (p->at < p->len && (p->s[p->at] == '+' || p->s[p->at] == '-')) p->at++;
        if (p->at >= p->len || p->s[p->at] < '0' || p->s[p->at] > '9') return fail(p, "a number needs digits in its exponent");
        while (p->at < p->len && p->s[p->at] >= '0' && p->s[p->at] <= '9') p->at++;
    }
    if (integer && !int64_fits(p->s + digits, int_end - digits, negative)) {
        p->at = start;
        return fail(p, "an integer out of range (beyond 64 bits)");
    }
    return 0;
}

static int literal(scan *p, const char *word) {
    size_t n = strlen(word);
    if (p->len - p->at < n || memcmp(p->s + p->at, word, n) != 0) return fail(p, "unexpected character");
    p->at += n;
    return 0;
}

/* The whole text: one value and nothing after it but whitespace. Iterative: a stack of the
   containers open (1 object, 2 array), at most JSON_DEPTH. */
int td_json_check(const char *text, size_t len, size_t *column, const char **why) {
    scan p = {.s = (const unsigned char *)text, .len = len};
    char open[JSON_DEPTH];
    int depth = 0;
    enum { VALUE, AFTER } want = VALUE;
    for (;;) {
        skip_space(&p);
        if (want == AFTER) {
            if (depth == 0) break;
            if (p.at >= p.len) { fail(&p, "it ends too early"); goto out; }
            unsigned char ch = p.s[p.at];
            if (ch == ',') {
                p.at++;
                skip_space(&p);
                if (open[depth - 1] == 1) {
                    if (p.at >= p.len || p.s[p.at] != '"') { fail(&p, "a member name (a string) expected"); goto out; }
                    if (string(&p)) goto out;
                    skip_space(&p);
                    if (p.at >= p.len || p.s[p.at] != ':') { fail(&p, "':' expected"); goto out; }
                    p.at++;
                }
                want = VALUE;
                continue;
            }
            if ((ch == '}' && open[depth - 1] == 1) || (ch == ']' && open[depth - 1] == 2)) {
                p.at++;
                depth--;
                continue;
            }
            fail(&p, "unexpected character");
            goto out;
        }
        if (p.at >= p.len) { fail(&p, "it ends too early"); goto out; }
        unsigned char ch = p.s[p.at];
        if (ch == '{' || ch == '[') {
            if (depth == JSON_DEPTH) { fail(&p, "nesting too deep"); goto out; }
            open[depth++] = ch == '{' ? 1 : 2;
            p.at++;
            skip_space(&p);
            if (p.at < p.len && p.s[p.at] == (ch == '{' ? '}' : ']')) {
                p.at++;
                depth--;
                want = AFTER;
                continue;
            }
            if (ch == '{') {
                if (p.at >= p.len || p.s[p.at] != '"') { fail(&p, "a member name (a string) expected"); goto out; }
                if (string(&p)) goto out;
                skip_space(&p);
                if (p.at >= p.len || p.s[p.at] != ':') { fail(&p, "':' expected"); goto out; }
                p.at++;
            }
            continue;                               /* a value next */
        }
        int r;
        if (ch == '"') r = string(&p);
        else if (ch == '-' || (ch >= '0' && ch <= '9') || ch == 'N' || ch == 'I') r = number(&p);
        else if (ch == 't') r = literal(&p, "true");
        else if (ch == 'f') r = literal(&p, "false");
        else if (ch == 'n') r = literal(&p, "null");
        else r = fail(&p, "unexpected character");
        if (r) goto out;
        want = AFTER;
    }
    if (p.at < p.len) {
        fail(&p, "text after the JSON value");
        goto out;
    }
    return 0;
out:
    *column = p.at + 1;
    *why = p.why;
    return -1;
}

/* Every number in the tree finite (json-c turns 1e400 into inf): 0, or -1 with the place of
   the first one that is not in `where` (e.g. "touches[0].location[1]"). */
static int finite_at(json_object *o, char *where, size_t cap, size_t used, int depth) {
    if (!o || depth > JSON_DEPTH) return 0;
    switch (json_object_get_type(o)) {
    case json_type_double:
        if (isfinite(json_object_get_double(o))) return 0;
        where[used < cap ? used : cap - 1] = '\0';
        return -1;
    case json_type_array:
        for (size_t i = 0, n = json_object_array_length(o); i < n; i++) {
            int k = used < cap ? snprintf(where + used, cap - used, "[%zu]", i) : 0;
            if (finite_at(json_object_array_get_idx(o, i), where, cap, used + (k > 0 ? (size_t)k : 0), depth + 1)) return -1;
        }
        return 0;
    case json_type_object: {
        json_object_object_foreach(o, key, val) {
            int k = used < cap ? snprintf(where + used, cap - used, "%s%s", used ? "." : "", key) : 0;
            if (finite_at(val, where, cap, used + (k > 0 ? (size_t)k : 0), depth + 1)) return -1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

int td_json_finite(json_object *o, char *where, size_t cap) {
    where[0] = '\0';
    return finite_at(o, where, cap, 0, 0);
}
