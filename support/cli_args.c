/* Command-line options, strict numbers and comma-separated lists, and the checks and atomic writes of outputs. */
#include "cli_args.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Whether `opt` is one of the space-separated words of `list`. */
static int listed(const char *list, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = list; (p = strstr(p, opt)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

int cli_unknown_option(const char *cmd, const char *opt, void (*usage)(FILE *))
{
    fprintf(stderr, "physflow %s: unknown option '%s'\n", cmd, opt);
    usage(stderr);
    return 2;
}

int cli_option_value(int argc, char **argv, int *k, const char *cmd, const char *known, void (*usage)(FILE *),
                     const char **val)
{
    const char *opt = argv[*k];
    if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
        usage(stdout);
        return CLI_HELP;
    }
    if (!listed(known, opt)) {
        cli_unknown_option(cmd, opt, usage);
        return CLI_ERROR;
    }
    if (*k + 1 >= argc) {
        fprintf(stderr, "physflow %s: option '%s' needs a value\n", cmd, opt);
        usage(stderr);
        return CLI_ERROR;
    }
    *val = argv[++*k];
    return CLI_VALUE;
}

/* The folder that holds `path` into dir (size `size`): "." for a bare name. */
static void parent_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* 0 when the folder holding `path` exists and takes a new file (tried: a probe file created and removed, which
 * also answers for read-only file systems and for root), else 2 after a message. */
static int parent_takes_files(const char *cmd, const char *opt, const char *path)
{
    char dir[4096], probe[4200];
    struct stat st;
    parent_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "physflow %s: %s: cannot write '%s': %s\n", cmd, opt, path,
                stat(dir, &st) != 0 ? "its folder does not exist" : "its parent is not a folder");
        return 2;
    }
    snprintf(probe, sizeof probe, "%s/.physflow-probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        fprintf(stderr, "physflow %s: %s: cannot write '%s': %s\n", cmd, opt, path, strerror(errno));
        return 2;
    }
    close(fd);
    unlink(probe);
    return 0;
}

int cli_output_file(const char *cmd, const char *opt, const char *path, int force)
{
    struct stat st;
    if (!*path) {
        fprintf(stderr, "physflow %s: %s: an empty file name\n", cmd, opt);
        return 2;
    }
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "physflow %s: %s: cannot write '%s': it is a folder\n", cmd, opt, path);
            return 2;
        }
        if (!force) {
            fprintf(stderr, "physflow %s: %s: '%s' exists: not overwritten (give --force to replace it)\n", cmd,
                    opt, path);
            return 2;
        }
    }
    return parent_takes_files(cmd, opt, path);
}

int cli_output_dir(const char *cmd, const char *opt, const char *dir, int force)
{
    struct stat st;
    if (!*dir) {
        fprintf(stderr, "physflow %s: %s: an empty folder name\n", cmd, opt);
        return 2;
    }
    if (stat(dir, &st) != 0) return parent_takes_files(cmd, opt, dir);
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "physflow %s: %s: cannot write into '%s': it is not a folder\n", cmd, opt, dir);
        return 2;
    }
    DIR *d = opendir(dir);
    int empty = 1;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    if (d) closedir(d);
    if (!empty && !force) {
        fprintf(stderr, "physflow %s: %s: the folder '%s' is not empty: not overwritten (give --force to write "
                        "into it)\n", cmd, opt, dir);
        return 2;
    }
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/x", dir);
    return parent_takes_files(cmd, opt, probe);
}

void cli_out_discard(cli_out *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int cli_out_open(cli_out *o, const char *cmd, const char *path)
{
    memset(o, 0, sizeof *o);
    size_t len = strlen(path) + 16;
    o->path = strdup(path);
    o->tmp = malloc(len);
    if (!o->path || !o->tmp) {
        fprintf(stderr, "physflow %s: out of memory\n", cmd);
        cli_out_discard(o);
        return -1;
    }
    snprintf(o->tmp, len, "%s.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "physflow %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        cli_out_discard(o);
        return -1;
    }
    mode_t mask = umask(0); /* mkstemp makes 0600; the file gets a new file's mode */
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        fprintf(stderr, "physflow %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        cli_out_discard(o);
        return -1;
    }
    return 0;
}

int cli_out_commit(cli_out *o, const char *cmd)
{
    int bad = o->f && fclose(o->f) != 0;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        fprintf(stderr, "physflow %s: cannot write '%s': %s\n", cmd, o->path, strerror(errno));
        cli_out_discard(o);
        return -1;
    }
    free(o->tmp);
    o->tmp = NULL;
    cli_out_discard(o);
    return 0;
}
