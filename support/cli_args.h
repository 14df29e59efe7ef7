/* Small command-line helpers shared by the physflow subcommands: options and their values, strict number parsing,
 * and the one rule for outputs (checked before any work, never overwriting without --force, written whole). */
#ifndef PF_SUPPORT_CLI_ARGS_H
#define PF_SUPPORT_CLI_ARGS_H

#include <stddef.h>
#include <stdio.h>

/* Parses "1,2,8" into out[0..*n). Returns 0, or -1 (message on stderr naming `opt`) on a malformed list,
 * a value outside [lo, hi] or more than `cap` values. */
int cli_int_list(const char *opt, const char *text, long lo, long hi, long *out, size_t cap, size_t *n);
/* Splits "a,b,c" into pointers into a copy held in `buf` (size `bufsize`). Returns 0 or -1. */
int cli_str_list(const char *opt, const char *text, char *buf, size_t bufsize, char **out, size_t cap,
                 size_t *n);
/* Strict whole-string numbers; -1 with a message on stderr when `text` is not one, or out of [lo, hi]. */
int cli_long(const char *opt, const char *text, long lo, long hi, long *out);
int cli_double(const char *opt, const char *text, double lo, double hi, double *out);

/* The option-value loop every "OPTION VALUE" subcommand shares (flags are handled before it): at argv[*k],
 * --help/-h prints usage to stdout (CLI_HELP); an option not among `known` (the command's value options,
 * space-separated: "--n --csv") is "unknown option '--x'", one without a value "option '--x' needs a value"
 * (message naming `cmd`, usage on stderr: CLI_ERROR); otherwise *val is argv[*k + 1], *k moves past it
 * (CLI_VALUE). */
enum { CLI_VALUE = 0, CLI_HELP = 1, CLI_ERROR = 2 };
int cli_option_value(int argc, char **argv, int *k, const char *cmd, const char *known, void (*usage)(FILE *),
                     const char **val);
/* "physflow CMD: unknown option '--x'" and the usage on stderr; returns 2, the exit code. */
int cli_unknown_option(const char *cmd, const char *opt, void (*usage)(FILE *));

/* The overwrite rule of every physflow output, checked before the first step or timing. 0 when the file `path`
 * (given with option `opt`) may be written: its folder exists and takes a new file (tried with a probe file,
 * removed at once), and `path` does not exist or, with `force`, is not a folder. Else 2 after
 * "physflow CMD: OPT: ..." on stderr; nothing is created. */
int cli_output_file(const char *cmd, const char *opt, const char *path, int force);
/* The same for an output folder: missing (its parent takes a new folder; not created here), empty, or `force`. */
int cli_output_dir(const char *cmd, const char *opt, const char *dir, int force);

/* An output written whole or not at all: a temporary file beside `path` (mode as a new file's), renamed over
 * `path` by cli_out_commit, removed by cli_out_discard — a failed run never leaves half a file, nor truncates
 * the one it was to replace. */
typedef struct cli_out {
    FILE *f;    /* open on `tmp` for writing; a caller may fclose it and NULL it to let a library write `tmp` */
    char *path; /* copies */
    char *tmp;
} cli_out;
/* 0, or -1 after "physflow CMD: cannot write ..." on stderr. */
int cli_out_open(cli_out *o, const char *cmd, const char *path);
/* Closes, renames into place, frees; 0, or -1 after a message (the temporary file removed). */
int cli_out_commit(cli_out *o, const char *cmd);
/* Closes, removes the temporary file, frees. Safe on a zeroed or finished cli_out. */
void cli_out_discard(cli_out *o);

#endif
