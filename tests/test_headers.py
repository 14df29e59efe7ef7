#!/usr/bin/env python3
"""The public API's hygiene: every header in include/physflow compiles alone (C11, strict warnings), and every
symbol the shared library exports carries the pf_ prefix."""
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

r = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True)
check("nm reads the library", r.returncode == 0, r.stderr)
symbols = [line.split()[-1] for line in r.stdout.splitlines() if line.strip()]
bad = [s for s in symbols if not s.startswith("pf_")]
check("every exported symbol starts with pf_", not bad and symbols, "unprefixed: " + " ".join(bad[:20]))
finish()
