/* physflow pairs: reads a box file, prints the unique overlapping pairs (or their number) by a chosen method. */
#include "box_reader.h"
#include "cli_args.h"
#include "commands.h"

#include "physflow/collision.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: physflow pairs --method M FILE [--count] [--threads K]\n"
                 "\n"
                 "FILE holds one box per line, 'xmin ymin zmin xmax ymax zmax'; blank lines and '#' comments are\n"
                 "skipped. Prints the overlapping pairs 'i j' (0-based line order of the boxes, i < j, sorted), or\n"
                 "their number with --count. Methods: ");
    for (int m = 0; m < PF_BP_METHOD_COUNT; m++)
        fprintf(out, "%s%s%s", m ? ", " : "", pf_broadphase_method_name((pf_broadphase_method)m),
                pf_broadphase_method_available((pf_broadphase_method)m) ? "" : " (not built)");
    fprintf(out, ".\nExit status: 0 success, 1 failure, 2 bad input (FILE:LINE: message on stderr).\n");
}

static int pair_cmp(const void *pa, const void *pb)
{
    const pf_pair *a = pa, *b = pb;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

/* Reads the boxes of a file ("-": stdin); 0, or 2 with FILE:LINE: message on stderr. */
static int read_boxes(const char *path, pf_aabb **out, size_t *count)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 2;
    }
    int rc = box_read(f, path, out, count);
    if (f != stdin) fclose(f);
    return rc;
}

int cmd_pairs(int argc, char **argv)
{
    const char *method = NULL, *file = NULL;
    int count_only = 0;
    long threads = 1;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--count")) {
            count_only = 1;
        } else if (!strcmp(a, "--method") || !strcmp(a, "--threads")) {
            if (k + 1 == argc) {
                fprintf(stderr, "physflow pairs: option '%s' needs a value\n", a);
                usage(stderr);
                return 2;
            }
            if (!strcmp(a, "--method")) method = argv[++k];
            else if (cli_long("--threads", argv[++k], 1, 1024, &threads)) return 2;
        } else if (a[0] == '-' && a[1]) {
            return cli_unknown_option("pairs", a, usage);
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "physflow pairs: more than one file ('%s', '%s')\n", file, a);
            return 2;
        }
    }
    if (!method || !file) {
        usage(stderr);
        return 2;
    }
    pf_broadphase_def def = pf_broadphase_default_def();
    if (pf_broadphase_method_parse(method, &def.method)) {
        fprintf(stderr, "physflow pairs: %s\n", pf_last_error());
        return 2;
    }
    def.threads = (int)threads;
    pf_aabb *boxes = NULL;
    size_t n = 0;
    int rc = read_boxes(file, &boxes, &n);
    if (rc) return rc;
    pf_broadphase *bp = NULL;
    rc = pf_broadphase_create(&def, &bp);
    if (rc) {
        fprintf(stderr, "physflow pairs: %s\n", pf_last_error());
        free(boxes);
        return rc == PF_ENOTSUP ? 2 : 1;
    }
    const pf_pair *pairs = NULL;
    size_t np = 0;
    rc = pf_broadphase_pairs(bp, boxes, n, &pairs, &np, NULL);
    if (rc) {
        fprintf(stderr, "physflow pairs: %s\n", pf_last_error());
        pf_broadphase_destroy(bp);
        free(boxes);
        return rc == PF_EINVAL ? 2 : 1;
    }
    int status = 0;
    if (count_only) {
        printf("%zu\n", np);
    } else {
        /* the library's order depends on the method; the command's contract is sorted */
        pf_pair *sorted = malloc((np ? np : 1) * sizeof *sorted);
        if (!sorted) {
            fprintf(stderr, "physflow pairs: out of memory\n");
            status = 1;
        } else {
            if (np) memcpy(sorted, pairs, np * sizeof *sorted);
            qsort(sorted, np, sizeof *sorted, pair_cmp);
            for (size_t k = 0; k < np; k++) printf("%u %u\n", sorted[k].i, sorted[k].j);
            free(sorted);
        }
    }
    if (fflush(stdout) != 0) status = 1;
    pf_broadphase_destroy(bp);
    free(boxes);
    return status;
}
