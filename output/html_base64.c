/* base64 (RFC 4648, with padding) of the run viewer's binary frames, written straight into the page. */
#include "html_writer.h"

void html_base64(FILE *f, const unsigned char *p, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4096];
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        out[o++] = abc[(v >> 18) & 63];
        out[o++] = abc[(v >> 12) & 63];
        out[o++] = i + 1 < n ? abc[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
        if (o + 4 > sizeof out) fwrite(out, 1, o, f), o = 0;
    }
    fwrite(out, 1, o, f);
}
