/* The physflow subcommands and benchmarks: each takes its own argv (argv[0] = its name) and returns an exit
 * code (0 success, 1 runtime failure, 2 bad input). */
#ifndef PF_TOOLS_COMMANDS_H
#define PF_TOOLS_COMMANDS_H

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_pairs(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* physflow bench NAME ... */
int bench_tasks(int argc, char **argv);
int bench_loops(int argc, char **argv);
int bench_broadphase(int argc, char **argv);
int bench_splitting(int argc, char **argv);
int bench_hashing(int argc, char **argv);
int bench_rangequery(int argc, char **argv);
int bench_scaling(int argc, char **argv);

#endif
