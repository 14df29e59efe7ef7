/* Small command-line helpers shared by the physflow subcommands: number lists and strict number parsing. */
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

/* The option-value loop every "OPTION VALUE" subcommand shares: at argv[*k], --help/-h prints usage to stdout
 * (CLI_HELP); an option without a value is an error (message naming `cmd`, usage on stderr: CLI_ERROR);
 * otherwise *val is argv[*k + 1], *k moves past it (CLI_VALUE). */
enum { CLI_VALUE = 0, CLI_HELP = 1, CLI_ERROR = 2 };
int cli_option_value(int argc, char **argv, int *k, const char *cmd, void (*usage)(FILE *), const char **val);

#endif
