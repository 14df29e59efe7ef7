/* Strict parsing of command-line numbers and comma-separated lists. */
#include "cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_long(const char *opt, const char *text, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "physflow: %s: expected an integer in [%ld, %ld], got '%s'\n", opt, lo, hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_double(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "physflow: %s: expected a number in [%g, %g], got '%s'\n", opt, lo, hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_str_list(const char *opt, const char *text, char *buf, size_t bufsize, char **out, size_t cap,
                 size_t *n)
{
    size_t len = strlen(text);
    if (len == 0 || len >= bufsize) {
        fprintf(stderr, "physflow: %s: expected a comma-separated list, got '%s'\n", opt, text);
        return -1;
    }
    memcpy(buf, text, len + 1);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == cap) {
            fprintf(stderr, "physflow: %s: more than %zu values\n", opt, cap);
            return -1;
        }
        out[(*n)++] = tok;
    }
    if (*n == 0) {
        fprintf(stderr, "physflow: %s: empty list\n", opt);
        return -1;
    }
    return 0;
}

int cli_int_list(const char *opt, const char *text, long lo, long hi, long *out, size_t cap, size_t *n)
{
    char buf[1024];
    char *items[256];
    size_t count = 0;
    if (cli_str_list(opt, text, buf, sizeof buf, items, cap < 256 ? cap : 256, &count)) return -1;
    for (size_t k = 0; k < count; k++)
        if (cli_long(opt, items[k], lo, hi, &out[k])) return -1;
    *n = count;
    return 0;
}

int cli_option_value(int argc, char **argv, int *k, const char *cmd, void (*usage)(FILE *), const char **val)
{
    const char *opt = argv[*k];
    if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
        usage(stdout);
        return CLI_HELP;
    }
    if (*k + 1 >= argc) {
        fprintf(stderr, "physflow %s: %s is unknown or needs a value\n", cmd, opt);
        usage(stderr);
        return CLI_ERROR;
    }
    *val = argv[++*k];
    return CLI_VALUE;
}
