#!/usr/bin/env python3
"""The run viewer in a browser: physflow run --threads 2 --html writes the default scene's page, headless Chromium
(Debian's chromium, tools/setup-deps; WebGL through SwiftShader) opens it from disk and the page's own self-check
(written into the DOM) is read back: no error (window.onerror and console.error), a WebGL canvas with pixels drawn
(read back with readPixels), as many distinct worker colours in the worker view as workers, one timeline row per
worker. The page names no outside resource (it must open with no network). The screenshot of the last frame goes to
the build folder (viewer-heterogeneous.png; docs/viewer.png is a copy). Skipped, saying why, only where Chromium
cannot start."""
import json
import os
import re
import shutil
import subprocess
import sys

from checks import check, finish

PHYSFLOW, OUTDIR = sys.argv[1], sys.argv[2]
SKIP = 77
FLAGS = ["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
         "--disable-gpu-sandbox", "--no-first-run", "--disable-extensions", "--window-size=1400,800"]


def chromium(*args, timeout=180):
    return subprocess.run([BROWSER, *FLAGS, *args], capture_output=True, text=True, timeout=timeout)


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
if not BROWSER:
    print("SKIP: no chromium on PATH (tools/setup-deps installs Debian's chromium)")
    sys.exit(SKIP)
try:
    probe = chromium("--dump-dom", "data:text/html,<p id=x>ok</p>", timeout=90)
except (OSError, subprocess.TimeoutExpired) as e:
    print(f"SKIP: chromium cannot start: {e}")
    sys.exit(SKIP)
if probe.returncode != 0 or "ok" not in probe.stdout:
    print(f"SKIP: chromium cannot start (exit {probe.returncode}): {probe.stderr[-500:]}")
    sys.exit(SKIP)

page = os.path.join(OUTDIR, "viewer-heterogeneous.html")
shot = os.path.join(OUTDIR, "viewer-heterogeneous.png")
r = subprocess.run([PHYSFLOW, "run", "--threads", "2", "--no-bind", "--html", page, "--force"], capture_output=True,
                   text=True, timeout=600)
check("physflow run --threads 2 --html", r.returncode == 0, r.stderr)

with open(page, encoding="utf-8") as f:
    text = f.read()
outside = re.findall(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=', text)
check("the page loads nothing from outside (no src or href)", outside == [], str(outside[:3]))

url = "file://" + os.path.abspath(page)
r = chromium("--virtual-time-budget=8000", "--dump-dom", url + "#paused")
m = re.search(r'<pre id="pf-selfcheck">([^<]*)</pre>', r.stdout)
check("the page wrote its self-check into the DOM", m is not None and m.group(1) != "", r.stderr[-2000:])
res = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")) if m and m.group(1) else {}
print("self-check:", json.dumps(res))
check("no error in the page", res.get("errors") == [], str(res.get("errors")))
check("a WebGL context", res.get("webgl") is True)
w, h = (res.get("canvas") or [0, 0])
check("the canvas has pixels drawn (over 2 % of it)", res.get("pixels_drawn", 0) > 0.02 * w * h,
      f"{res.get('pixels_drawn')} of {w}x{h}")
check("as many worker colours in the worker view as workers", res.get("worker_colours") == res.get("workers") == 2,
      f"{res.get('worker_colours')} colours, {res.get('workers')} workers")
check("one timeline row per worker", res.get("timeline_rows") == 2, str(res.get("timeline_rows")))
check("the last frame's timeline has spans", res.get("spans", 0) > 0)
check("every frame is in the page", res.get("frames", 0) > 1 and res.get("steps") == 300)

if os.path.exists(shot):
    os.remove(shot)
r = chromium("--virtual-time-budget=8000", f"--screenshot={shot}", url + "#paused&frame=last")
ok = os.path.exists(shot) and os.path.getsize(shot) > 20000
check("the screenshot of the last frame is written", ok, r.stderr[-1000:])
if ok:
    print(f"screenshot: {shot}")
finish()
