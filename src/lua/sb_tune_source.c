// Where springbox.tune's entries are written in a scene's text: the sliders follow the order the
// names are written in (a table constructor keeps none), and W changes exactly the number of the
// slider that moved and nothing else. A small Lua lexer, written to the Lua 5.4 manual
// §3.1 (comments, short and long strings, numerals): it walks the table constructor of the tune
// call and finds each entry `name = ...` or `["name"] = ...` and, for `name = {<number>, ...}`,
// the numeral. Anything it does not understand ends the walk, leaving the names not yet found
// last in order and unwritable (W then says so) rather than guessed.
#include "sb_tune_source.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

typedef struct lexer {
    const char *text;
    size_t len, at;
} lexer;

static bool ident_start(int c) { return isalpha(c) || c == '_'; }
static bool ident_char(int c) { return isalnum(c) || c == '_'; }

/// The level of a long bracket opening at `at` ("[[" 0, "[==[" 2), or -1 when there is none.
static int long_bracket(const lexer *x, size_t at)
{
    if (at >= x->len || x->text[at] != '[')
        return -1;
    size_t k = at + 1;
    while (k < x->len && x->text[k] == '=')
        k += 1;
    return k < x->len && x->text[k] == '[' ? (int)(k - at - 1) : -1;
}

/// Skips a long bracket of `level` opening at x->at; false when it never closes.
static bool skip_long(lexer *x, int level)
{
    size_t k = x->at + (size_t)level + 2;
    for (; k < x->len; ++k) {
        if (x->text[k] != ']')
            continue;
        size_t e = k + 1;
        while (e < x->len && x->text[e] == '=')
            e += 1;
        if (e < x->len && x->text[e] == ']' && (int)(e - k - 1) == level) {
            x->at = e + 1;
            return true;
        }
    }
    return false;
}

/// Skips spaces and comments; false when a comment never closes.
static bool skip_space(lexer *x)
{
    while (x->at < x->len) {
        char c = x->text[x->at];
        if (isspace((unsigned char)c)) {
            x->at += 1;
        } else if (c == '-' && x->at + 1 < x->len && x->text[x->at + 1] == '-') {
            x->at += 2;
            int level = long_bracket(x, x->at);
            if (level >= 0) {
                if (!skip_long(x, level))
                    return false;
            } else {
                while (x->at < x->len && x->text[x->at] != '\n')
                    x->at += 1;
            }
        } else {
            return true;
        }
    }
    return true;
}

/// Skips a short string opening at x->at; sets *plain when it has no escapes. false if unclosed.
static bool skip_short_string(lexer *x, bool *plain)
{
    char quote = x->text[x->at++];
    *plain = true;
    while (x->at < x->len) {
        char c = x->text[x->at++];
        if (c == '\\') {
            *plain = false;
            if (x->at < x->len && x->text[x->at] == 'z') { // \z skips the spaces that follow
                x->at += 1;
                continue;
            }
            x->at += 1;
        } else if (c == quote) {
            return true;
        } else if (c == '\n') {
            return false;
        }
    }
    return false;
}

/// Length of the numeral at `at` (decimal or hexadecimal, with fraction and exponent), or 0.
static size_t numeral(const lexer *x, size_t at)
{
    const char *t = x->text;
    size_t k = at, n = x->len;
    bool hex = k + 1 < n && t[k] == '0' && (t[k + 1] == 'x' || t[k + 1] == 'X');
    if (hex)
        k += 2;
    size_t digits = 0;
    char e1 = hex ? 'p' : 'e', e2 = hex ? 'P' : 'E';
    while (k < n) {
        char c = t[k];
        if ((hex ? isxdigit((unsigned char)c) : isdigit((unsigned char)c)) || c == '.') {
            digits += c != '.';
            k += 1;
        } else if ((c == e1 || c == e2) && digits > 0) {
            k += 1;
            if (k < n && (t[k] == '+' || t[k] == '-'))
                k += 1;
        } else {
            break;
        }
    }
    if (digits == 0 || (k < n && ident_char((unsigned char)t[k])))
        return 0;
    return k - at;
}

size_t sb_text_line_start(const char *text, size_t len, long line)
{
    size_t at = 0;
    for (long n = 1; n < line && at < len; ++n) {
        const char *nl = memchr(text + at, '\n', len - at);
        at = nl ? (size_t)(nl - text) + 1 : len;
    }
    return at;
}

int sb_tune_find_entries(const char *text, size_t len, sb_tune_entry *out, int max)
{
    lexer x = {text, len, 0};
    // the call: the first `tune` followed by `{` or `( {`
    for (;;) {
        if (!skip_space(&x) || x.at >= len)
            return 0;
        char c = text[x.at];
        if (c == '"' || c == '\'') {
            bool plain;
            if (!skip_short_string(&x, &plain))
                return 0;
            continue;
        }
        if (long_bracket(&x, x.at) >= 0) {
            if (!skip_long(&x, long_bracket(&x, x.at)))
                return 0;
            continue;
        }
        if (!ident_start((unsigned char)c)) {
            x.at += 1;
            continue;
        }
        size_t start = x.at;
        while (x.at < len && ident_char((unsigned char)text[x.at]))
            x.at += 1;
        if (x.at - start != 4 || memcmp(text + start, "tune", 4) != 0)
            continue;
        if (!skip_space(&x) || x.at >= len)
            return 0;
        if (text[x.at] == '(') {
            x.at += 1;
            if (!skip_space(&x) || x.at >= len)
                return 0;
        }
        if (text[x.at] == '{')
            break;
    }
    x.at += 1; // into the constructor
    int found = 0, depth = 1;
    // An entry at depth 1: a name (or ["name"]) then '=', its value maybe '{' then a numeral.
    while (depth > 0) {
        if (!skip_space(&x) || x.at >= len)
            return found;
        char c = text[x.at];
        size_t name_at = 0, name_len = 0;
        if (depth == 1 && ident_start((unsigned char)c)) {
            name_at = x.at;
            while (x.at < len && ident_char((unsigned char)text[x.at]))
                x.at += 1;
            name_len = x.at - name_at;
        } else if (depth == 1 && c == '[' && long_bracket(&x, x.at) < 0) {
            x.at += 1;
            if (!skip_space(&x) || x.at >= len)
                return found;
            if (text[x.at] == '"' || text[x.at] == '\'') {
                bool plain;
                size_t q = x.at;
                if (!skip_short_string(&x, &plain))
                    return found;
                if (plain) {
                    name_at = q + 1;
                    name_len = x.at - q - 2;
                }
                if (!skip_space(&x) || x.at >= len || text[x.at] != ']')
                    return found;
                x.at += 1;
            } else {
                depth += 1; // a computed key: walked through as an expression
                continue;
            }
        } else if (c == '"' || c == '\'') {
            bool plain;
            if (!skip_short_string(&x, &plain))
                return found;
            continue;
        } else if (long_bracket(&x, x.at) >= 0) {
            if (!skip_long(&x, long_bracket(&x, x.at)))
                return found;
            continue;
        } else {
            if (c == '{' || c == '(' || c == '[')
                depth += 1;
            else if (c == '}' || c == ')' || c == ']')
                depth -= 1;
            x.at += 1;
            continue;
        }
        if (name_len == 0)
            continue;
        if (!skip_space(&x) || x.at >= len)
            return found;
        if (text[x.at] != '=' || (x.at + 1 < len && text[x.at + 1] == '='))
            continue;
        x.at += 1;
        if (found >= max)
            return found;
        sb_tune_entry *e = &out[found++];
        *e = (sb_tune_entry){name_at, name_len, 0, 0};
        if (!skip_space(&x) || x.at >= len)
            return found;
        if (text[x.at] != '{')
            continue;
        x.at += 1;
        depth += 1;
        if (!skip_space(&x) || x.at >= len)
            return found;
        size_t number_at = x.at;
        if (text[x.at] == '-') { // a unary minus belongs to the value W writes
            x.at += 1;
            if (x.at >= len || isspace((unsigned char)text[x.at]))
                continue; // "- 5": a space W would have to keep; not written
        }
        size_t n = numeral(&x, x.at);
        if (n == 0)
            continue;
        x.at += n;
        // the number alone: `hz = {2 * base, ...}` opens with a numeral too
        size_t after = x.at;
        while (after < len && (text[after] == ' ' || text[after] == '\t'))
            after += 1;
        if (after < len && (text[after] == ',' || text[after] == ';' || text[after] == '}')) {
            e->value_offset = number_at;
            e->value_length = x.at - number_at;
        }
    }
    return found;
}
