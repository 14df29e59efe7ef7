#!/usr/bin/env python3
"""The installed library as a host sees it: `meson install --destdir` into a temporary directory places the public
headers, libphysflow.so/.a and physflow.pc; every program in examples/ compiles with nothing but
`pkg-config --cflags --libs physflow` (strict warnings), links against the installed shared library, runs, and
prints the same state hash for every worker count; a static link with `pkg-config --static` resolves every symbol.
Writes only under a temporary directory (and meson's install log in the build directory)."""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

from checks import check, finish

meson, build_dir, source_dir, cc, pkg_config = sys.argv[1:6]
# A sanitized build (tools/check-sanitizers) installs a library that needs the sanitizer runtime loaded first:
# the examples are then compiled and linked with the same -fsanitize flags.
sanitize = sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] not in ("", "none") else None
san_flags = [f"-fsanitize={sanitize}"] if sanitize else []


def run(cmd, env=None, timeout=300):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def hash_of(stdout):
    lines = [l.split()[1] for l in stdout.splitlines() if l.startswith("state-hash:") and len(l.split()) == 2]
    return lines[0] if len(lines) == 1 and re.fullmatch(r"[0-9a-f]{16}", lines[0]) else None


def linker_finds(lib):
    """1 when the compiler's linker finds -l<lib> in its default directories."""
    for name in (f"lib{lib}.so", f"lib{lib}.a"):
        r = run([cc, f"-print-file-name={name}"])
        if r.returncode == 0 and os.path.isabs(r.stdout.strip()):
            return True
    return False


with tempfile.TemporaryDirectory(prefix="physflow-install-") as tmp:
    dest = os.path.join(tmp, "dest")
    r = run([meson, "install", "-C", build_dir, "--destdir", dest, "--no-rebuild", "--quiet"], timeout=600)
    if not check("meson install --destdir exits 0", r.returncode == 0, r.stdout + r.stderr):
        sys.exit(1)
    # The prefix and libdir are whatever the build was configured with (default /usr/local, lib/<multiarch>):
    # find the files instead of assuming them.
    pcs = glob.glob(os.path.join(dest, "**", "pkgconfig", "physflow.pc"), recursive=True)
    if not check("one physflow.pc installed", len(pcs) == 1, str(pcs)):
        sys.exit(1)
    pcdir = os.path.dirname(pcs[0])
    libdir = os.path.dirname(pcdir)
    for lib in ("libphysflow.so", "libphysflow.a"):
        check(f"{lib} installed beside pkgconfig/", os.path.exists(os.path.join(libdir, lib)), os.listdir(libdir))
    public = sorted(os.path.basename(h) for h in glob.glob(os.path.join(source_dir, "include", "physflow", "*.h")))
    installed = glob.glob(os.path.join(dest, "**", "include", "physflow", "*.h"), recursive=True)
    check("every public header installed, nothing else", sorted(os.path.basename(h) for h in installed) == public,
          f"{sorted(installed)} vs {public}")

    env = dict(os.environ, PKG_CONFIG_PATH=pcdir, PKG_CONFIG_SYSROOT_DIR=dest)
    env.pop("PKG_CONFIG_LIBDIR", None)
    r = run([pkg_config, "--cflags", "--libs", "physflow"], env=env)
    check("pkg-config finds physflow", r.returncode == 0, r.stderr)
    flags = shlex.split(r.stdout)
    incs = [f[2:] for f in flags if f.startswith("-I") and os.path.isfile(os.path.join(f[2:], "physflow", "physics.h"))]
    check("--cflags points into the installed headers", len(incs) == 1, r.stdout)
    check("--libs points at the installed library",
          any(f.startswith("-L") and os.path.realpath(f[2:]) == os.path.realpath(libdir) for f in flags)
          and "-lphysflow" in flags, r.stdout)
    run_env = dict(os.environ, LD_LIBRARY_PATH=libdir)

    examples = sorted(glob.glob(os.path.join(source_dir, "examples", "*.c")))
    check("examples exist", len(examples) >= 2, str(examples))
    for src in examples:
        name = os.path.splitext(os.path.basename(src))[0]
        exe = os.path.join(tmp, name)
        r = run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O2", src, "-o", exe, "-pthread"]
                + san_flags + flags, env=env)
        if not check(f"{name} compiles and links with pkg-config's flags", r.returncode == 0, r.stderr):
            continue
        r = run(["ldd", exe], env=run_env)
        check(f"{name} loads the installed libphysflow.so",
              any("libphysflow.so" in l and os.path.realpath(libdir) in os.path.realpath(l.split("=>")[-1].split()[0])
                  for l in r.stdout.splitlines() if "=>" in l), r.stdout)
        # Both examples take the worker count first; the hash must not depend on it (fixed-order reductions).
        hashes = {}
        for workers in ("1", "2", "3"):
            r = run([exe, workers], env=run_env)
            check(f"{name} {workers} exits 0", r.returncode == 0, r.stdout + r.stderr)
            hashes[workers] = hash_of(r.stdout)
            check(f"{name} {workers} prints one state-hash line", hashes[workers] is not None, r.stdout)
            if name == "custom_forces":
                check(f"custom_forces {workers} matches its sequential loop",
                      "matches the sequential loop bitwise" in r.stdout, r.stdout)
        check(f"{name}: one hash for 1, 2 and 3 workers", len(set(hashes.values())) == 1, str(hashes))
        if name == "hello_world":
            r = run([exe, "2", "seq"], env=run_env)
            check("hello_world with the seq executor gives the same hash", hash_of(r.stdout) == hashes["1"], r.stdout)
            m = re.search(r"lowest bar point: z = ([-+0-9.e]+) m; contacts: (\d+)", r.stdout)
            # The bar rests on the floor: its lowest point near the contact distance (0.01 m), never through it.
            check("hello_world's bar rests on the floor", m and 0.0 < float(m.group(1)) < 0.02 and int(m.group(2)) > 0,
                  r.stdout)

    # Static: libphysflow.a plus Libs.private and Requires.private must leave no symbol undefined. Libraries that
    # other packages' .pc files list but this system lacks the development file of (hwloc's -ludev) are dropped.
    r = run([pkg_config, "--static", "--libs", "physflow"], env=env)
    check("pkg-config --static --libs physflow", r.returncode == 0, r.stderr)
    static_flags, dropped = [], []
    for f in shlex.split(r.stdout):
        if f == "-lphysflow":
            static_flags.append(os.path.join(libdir, "libphysflow.a"))
        elif f.startswith("-l") and not linker_finds(f[2:]) and not any(
                os.path.exists(os.path.join(d[2:], f"lib{f[2:]}.so")) for d in static_flags if d.startswith("-L")):
            dropped.append(f)
        else:
            static_flags.append(f)
    exe = os.path.join(tmp, "hello_world_static")
    r = run([cc, "-std=c11", os.path.join(source_dir, "examples", "hello_world.c"), "-o", exe]
            + san_flags + [f"-I{d}" for d in incs] + static_flags, env=env)
    check("hello_world links statically with pkg-config --static", r.returncode == 0,
          r.stderr + f"\nflags: {static_flags}")
    if r.returncode == 0:
        r = run([exe])  # no LD_LIBRARY_PATH: libphysflow is inside
        check("the static hello_world runs without the shared library", r.returncode == 0 and hash_of(r.stdout),
              r.stdout + r.stderr)
    if dropped:
        print(f"note: dropped {' '.join(dropped)} from the static link (no development file on this system)")

finish()
