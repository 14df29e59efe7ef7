/* SOFA's scene reader (TinyXML) takes a raw '<' or '&' inside an attribute value, which XML forbids: SOFA's own
 * examples write template="Data<int>" and responseParams="mu=0.5&epsilon=10". Such characters are escaped here
 * before libxml2 parses the text, so those files load as in SOFA; a valid file is left as it is. */
#include "xml_lenient.h"

#include "base/alloc.h"

#include <ctype.h>
#include <string.h>

/* Whether s[0] == '&' starts a reference XML knows: &name; or &#digits; or &#xhex; */
static int is_reference(const char *s, const char *end)
{
    const char *p = s + 1;
    if (p < end && *p == '#') {
        p++;
        int hex = p < end && (*p == 'x' || *p == 'X');
        p += hex;
        const char *d = p;
        while (p < end && (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p))) p++;
        return p > d && p < end && *p == ';';
    }
    const char *d = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.' || *p == ':')) p++;
    return p > d && p < end && *p == ';';
}

/* Calls visit(k, ctx) for each offset k of a character to escape: a '<', or a '&' that starts no reference, inside
 * a quoted attribute value of a tag; comments, CDATA sections and text are passed over. */
static size_t scan(const char *t, size_t n, void (*visit)(size_t, void *), void *ctx)
{
    size_t found = 0;
    const char *end = t + n;
    for (size_t k = 0; k < n; k++) {
        if (t[k] != '<') continue;
        if (n - k >= 4 && !memcmp(t + k, "<!--", 4)) { /* a comment: to its end */
            const char *e = memmem(t + k + 4, n - k - 4, "-->", 3);
            if (!e) return found;
            k = (size_t)(e - t) + 2;
            continue;
        }
        if (n - k >= 9 && !memcmp(t + k, "<![CDATA[", 9)) {
            const char *e = memmem(t + k + 9, n - k - 9, "]]>", 3);
            if (!e) return found;
            k = (size_t)(e - t) + 2;
            continue;
        }
        /* a tag (or <?...?> / <!...>): to its closing '>' outside quotes */
        char quote = 0;
        for (k++; k < n; k++) {
            char c = t[k];
            if (quote) {
                if (c == quote)
                    quote = 0;
                else if (c == '<' || (c == '&' && !is_reference(t + k, end))) {
                    found++;
                    if (visit) visit(k, ctx);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '>') {
                break;
            }
        }
    }
    return found;
}

typedef struct first_line {
    size_t first;
    int set;
} first_line;

static void note_first(size_t k, void *ctx)
{
    first_line *f = ctx;
    if (!f->set) f->first = k, f->set = 1;
}

typedef struct copier {
    const char *t;
    char *out;
    size_t from, at; /* next source byte to copy, next output byte */
} copier;

static void escape_at(size_t k, void *ctx)
{
    copier *c = ctx;
    memcpy(c->out + c->at, c->t + c->from, k - c->from);
    c->at += k - c->from;
    const char *e = c->t[k] == '<' ? "&lt;" : "&amp;";
    memcpy(c->out + c->at, e, strlen(e));
    c->at += strlen(e);
    c->from = k + 1;
}

int sc_xml_escape_attributes(const char *text, size_t n, char **out, size_t *out_n, int *line)
{
    *out = NULL;
    *out_n = 0;
    first_line f = {0, 0};
    size_t count = scan(text, n, note_first, &f);
    if (!count) return 0;
    copier c = {text, pf_malloc(n + 4 * count + 1), 0, 0};
    if (!c.out) return -1;
    scan(text, n, escape_at, &c);
    memcpy(c.out + c.at, text + c.from, n - c.from);
    c.at += n - c.from;
    c.out[c.at] = 0;
    *out = c.out;
    *out_n = c.at;
    int l = 1;
    for (size_t k = 0; k < f.first; k++) l += text[k] == '\n';
    *line = l;
    return (int)(count > 0x7fffffff ? 0x7fffffff : count);
}
