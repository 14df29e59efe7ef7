#!/usr/bin/env python3
"""The public API's hygiene: every header in include/physflow compiles alone (C11, strict warnings), handles
of different kinds do not mix (passing one where another belongs, or a plain number, is a compile error), every
symbol the shared library exports carries the pf_ prefix, and every public function is called by the tests of
wrong calls (tests/test_api_*.c), so none escapes them."""
import re
import glob
import os
import subprocess
import sys
import tempfile

from checks import check, finish

include_dir, library, cc = sys.argv[1], sys.argv[2], sys.argv[3]


headers = sorted(glob.glob(os.path.join(include_dir, "physflow", "*.h")))
check("there are public headers", len(headers) >= 3, str(headers))
with tempfile.TemporaryDirectory() as tmp:
    for h in headers:
        name = os.path.basename(h)
        src = os.path.join(tmp, "alone.c")
        with open(src, "w") as f:
            f.write(f"#include <physflow/{name}>\nint physflow_header_check;\n")
        r = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only",
                            "-I", include_dir, src], capture_output=True, text=True)
        check(f"{name} compiles alone", r.returncode == 0, r.stderr)

# Handles are distinct types. A host function using each handle as the API intends must compile; the same
# function with one wrong call appended must be rejected, with the error on that call's line (so what is
# refused is the mix, not something else). Each of these compiles silently if a handle is an integer typedef.
HOST = """#include <physflow/physics.h>
#include <stddef.h>

static int never(const void *datum, const void *args)
{
    (void)datum;
    (void)args;
    return 0;
}

int use_handles(pf_world *w, pf_graph *g);
int use_handles(pf_world *w, pf_graph *g)
{
    pf_object_id o = {0};
    pf_surface_id s = {0};
    pf_interaction_id in = {0};
    pf_force_field_id ff = {0};
    pf_data_id d = {0};
    pf_task_id t = {0};
    pf_loop_id l = {0};
    uint32_t n = 0;
    int rc = 0;
    for (uint32_t i = 0; i < pf_world_objects(w); i++)
        rc |= pf_world_positions(w, (pf_object_id){i}, &n) != NULL;
    rc |= pf_world_surface_positions(w, s, &n) != NULL;
    rc |= pf_world_get_surface_info(w, s, &o, NULL, NULL);
    rc |= pf_world_add_constant_force(w, o, NULL, &ff);
    rc |= pf_world_remove_force_field(w, ff);
    rc |= pf_world_remove_object(w, o);
    rc |= pf_world_remove_interaction(w, in);
    rc |= pf_graph_loop_break(g, d, never, NULL, 0);
    rc |= pf_graph_task_remove(g, t);
    rc |= pf_graph_loop_remove(g, l);
"""
MIXES = {
    "a surface id where an object id belongs": "pf_world_positions(w, s, &n);",
    "an integer literal where an object id belongs": "pf_world_positions(w, 3, &n);",
    "an integer as pf_world_add_constant_force's object": "pf_world_add_constant_force(w, 0, NULL, NULL);",
    "an object id where a force field id belongs": "pf_world_remove_force_field(w, o);",
    "an interaction id where a force field id belongs": "pf_world_remove_force_field(w, in);",
    "a force field id where an object id belongs": "pf_world_remove_object(w, ff);",
    "a pf_interaction_id * where a pf_force_field_id * receives one": "pf_world_add_constant_force(w, o, NULL, &in);",
    "an object id where a surface id belongs": "pf_world_surface_positions(w, o, &n);",
    "an object id where an interaction id belongs": "pf_world_remove_interaction(w, o);",
    "a uint32_t * where a pf_object_id * receives one": "pf_world_get_surface_info(w, s, &n, NULL, NULL);",
    "a task id where a datum id belongs": "pf_graph_loop_break(g, t, never, NULL, 0);",
    "a loop id where a task id belongs": "pf_graph_task_remove(g, l);",
    "an integer literal where a loop id belongs": "pf_graph_loop_remove(g, 0);",
}
END = "    return rc;\n}\n"


def compile_host(tmp, extra):
    src = os.path.join(tmp, "host.c")
    with open(src, "w") as f:
        f.write(HOST + extra + END)
    return subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only",
                           "-I", include_dir, src], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    r = compile_host(tmp, "")
    check("a host using every handle as intended compiles", r.returncode == 0, r.stderr)
    bad_line = HOST.count("\n") + 1
    for what, call in MIXES.items():
        r = compile_host(tmp, f"    (void){call}\n")
        check(f"{what} does not compile", r.returncode != 0, "the compiler accepted it")
        check(f"{what}: the error is on the mixing call", f"host.c:{bad_line}:" in r.stderr, r.stderr)

r = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True)
check("nm reads the library", r.returncode == 0, r.stderr)
symbols = [line.split()[-1] for line in r.stdout.splitlines() if line.strip()]
bad = [s for s in symbols if not s.startswith("pf_")]
check("every exported symbol starts with pf_", not bad and symbols, "unprefixed: " + " ".join(bad[:20]))

declared = set()
for h in headers:
    with open(h) as f:
        declared |= set(re.findall(r"PF_API[^;{]*?\b(pf_\w+)\s*\(", f.read()))
api_tests = ""
for t in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_api_*.c"))):
    with open(t) as f:
        api_tests += f.read()
uncalled = sorted(fn for fn in declared if not re.search(r"\b" + fn + r"\s*\(", api_tests))
check(f"every public function ({len(declared)}) is called in tests/test_api_*.c", declared and not uncalled,
      "not called: " + " ".join(uncalled))
finish()
