#!/usr/bin/env python3
"""Language-server bridge benchmark: `refgraph verify` against the real servers
on real code (the projects `bench/run.py` downloads into bench/work/, copied to
a scratch folder so nothing is written into bench/work).

Per server and project it prints: sites asked, ready seconds (from the first
request that needed the server: finding and probing its binary, spawning,
initializing, loading), verified
sites per second on the warm server with one request in flight and with the
default pipelining, the server's peak RSS (its whole process tree, sampled from
/proc), refgraph's own overhead (time spent outside waiting on the server, as a
share of the time spent waiting on it, at one request in flight), and the
static graph's precision/recall as measured by the server.

    python3 bench/verify.py                      # every case whose server is installed
    python3 bench/verify.py pyright tsls         # some
    python3 bench/verify.py --bin target/release/refgraph --budget 600

Every number is measured here, on this machine, in this run. Runs start from
the same freshly built index (a verify run stores its answers; the next run
would have nothing left to ask).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
WORK_DIR = [WORK]

# name: (server, language, bench/work project, repo folder inside it,
#        paths for the precision/recall run, paths for the two throughput runs)
CASES = {
    # Django's sources live in a subfolder with its pyproject.toml: pyright must
    # run there, not at the repository root.
    "pyright": ("pyright", "python", "django", "", ["Django-5.1.4/django/core"],
                ["Django-5.1.4/django/core/cache", "Django-5.1.4/django/core/files"]),
    # An npm package: no tsconfig.json.
    "tsls": ("typescript-language-server", "typescript", "zod", "package", [], ["src/v4/core"]),
    # One crate of the vendored set (each crate is its own Cargo root).
    "rust-analyzer": ("rust-analyzer", "rust", "rust-vendor", "", ["vendor/regex-syntax-0.8.12"],
                      ["vendor/regex-syntax-0.8.12/src/hir"]),
}


def children_tree(pid):
    """pid's descendants, each with its top-level child (the server it belongs to)."""
    parent = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parent[int(d)] = ppid
    out = {}
    for p in parent:
        chain, q = [], p
        while q in parent and q != pid and q > 1:
            chain.append(q)
            q = parent[q]
        if q == pid and chain:
            out[p] = chain[-1]
    return out


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class PeakRss:
    """Samples the RSS of each server process tree under `pid` every 0.2 s."""

    def __init__(self, pid):
        self.pid, self.peak, self.stop = pid, 0, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            per_server = {}
            for p, top in children_tree(self.pid).items():
                per_server[top] = per_server.get(top, 0) + rss_kb(p)
            if per_server:
                self.peak = max(self.peak, max(per_server.values()))
            self.stop.wait(0.2)

    def done(self):
        self.stop.set()
        self.thread.join()
        return self.peak / 1024


def servers_found(binary):
    # exits 1 when a server is missing; the list is printed all the same
    out = subprocess.run([binary, "servers", "--json"], capture_output=True, text=True)
    return {s["name"] for s in json.loads(out.stdout) if s["found"]}


def prepare(binary, project, sub, scratch):
    """A copy of the project with a fresh index, and a saved copy of the index."""
    src = WORK_DIR[0] / project
    if not src.exists():
        sys.exit(f"bench/work/{project} is missing: run `python3 bench/run.py {project}` first")
    dest = scratch / project
    if not dest.exists():
        shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".refgraph"))
    repo = dest / sub if sub else dest
    t = time.time()
    subprocess.run([binary, "--repo", str(repo), "status"], check=True, capture_output=True)
    print(f"  indexed {repo} in {time.time() - t:.1f} s", file=sys.stderr)
    shutil.copytree(repo / ".refgraph", scratch / f"{project}.index", dirs_exist_ok=True)
    return repo


def restore(repo, scratch, project):
    shutil.rmtree(repo / ".refgraph")
    shutil.copytree(scratch / f"{project}.index", repo / ".refgraph")


def verify(binary, repo, paths, args):
    cmd = [binary, "--repo", str(repo), "verify", "--json", *args, *paths]
    t = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = PeakRss(proc.pid)
    out, err = proc.communicate()
    peak = sampler.done()
    wall = time.time() - t
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err[-2000:]}")
    return json.loads(out), peak, wall


def main_root(report, language):
    roots = [r for r in report.get("roots", []) if r["language"] == language and not r.get("skipped")]
    return roots[0] if roots else None


def warm_rate(root):
    """Sites answered per second once the server was ready (the first request waits for it)."""
    if not root or not root["checked"]:
        return None
    warm = root["seconds"] - (root.get("ready_seconds") or 0.0)
    return root["checked"] / warm if warm > 0 else None


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", choices=[[], *CASES], help="cases to run (default: all)")
    ap.add_argument("--bin", default=os.environ.get("REFGRAPH_BIN", str(ROOT / "target" / "debug" / "refgraph")))
    ap.add_argument("--budget", default="600")
    ap.add_argument("--work", default=str(WORK), help="where bench/run.py put the projects")
    ap.add_argument("--scratch", default=None, help="scratch folder (default: a new one under /tmp)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--quick", action="store_true",
                    help="precision/recall on the throughput paths too (minutes instead of tens of minutes)")
    a = ap.parse_args()
    WORK_DIR[0] = Path(a.work)
    binary = str(Path(a.bin).resolve())
    found = servers_found(binary)
    scratch = Path(a.scratch or tempfile.mkdtemp(prefix="refgraph-verify-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for name in a.cases or list(CASES):
            server, language, project, sub, paths, rate_paths = CASES[name]
            if server not in found:
                print(f"skipping {name}: {server} is not installed (refgraph servers install)", file=sys.stderr)
                continue
            print(f"{name}: {project}/{sub} {' '.join(paths)}", file=sys.stderr)
            repo = prepare(binary, project, sub, scratch)
            runs = {}
            for label, args, p in [
                ("c1", ["--concurrency", "1", "--no-discover", "--budget", a.budget], rate_paths),
                ("cN", ["--no-discover", "--budget", a.budget], rate_paths),
                ("full", ["--budget", a.budget], rate_paths if a.quick else paths),
            ]:
                restore(repo, scratch, project)
                report, peak, wall = verify(binary, repo, p, args)
                runs[label] = (report, peak, wall)
                r = main_root(report, language)
                print(f"  {label}: {wall:.1f} s, {json.dumps(report['languages'].get(language, {}))}, "
                      f"root {json.dumps(r)}", file=sys.stderr)
            c1, cN, full = (main_root(runs[k][0], language) for k in ("c1", "cN", "full"))
            overhead = None
            if c1 and c1["server_seconds"] > 0:
                outside = c1["seconds"] - (c1.get("ready_seconds") or 0.0) - c1["server_seconds"]
                overhead = 100.0 * max(outside, 0.0) / c1["server_seconds"]
            lv = runs["full"][0]["languages"].get(language, {})
            judged = lv.get("confirmed", 0) + lv.get("retargeted", 0) + lv.get("refuted", 0)
            known = lv.get("confirmed", 0) + lv.get("retargeted", 0) + lv.get("resolved_unresolved", 0) + lv.get("discovered", 0)
            rows.append({
                "server": server,
                "project": f"{project}/{sub or '.'} {' '.join(rate_paths if a.quick else paths)}".strip(),
                "rate_project": " ".join(rate_paths),
                "sites": runs["full"][0]["sites"],
                "rate_sites": runs["c1"][0]["sites"],
                "checked": c1["checked"] if c1 else 0,
                "ready_s": c1.get("ready_seconds") if c1 else None,
                "rate_c1": warm_rate(c1),
                "rate_cN": warm_rate(cN),
                "rss_mb": max(v[1] for v in runs.values()),
                "overhead_pct": overhead,
                "precision": 100.0 * lv["confirmed"] / judged if judged else None,
                "recall": 100.0 * lv["confirmed"] / known if known else None,
                "full_s": runs["full"][2],
                "unchecked": lv.get("unchecked", 0) + lv.get("unanswered", 0),
            })
    finally:
        if not a.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    print()
    print(f"{'server':<27} {'project (precision/recall run)':<40} {'sites':>6} {'ready s':>8} {'sites/s c=1':>11} {'sites/s c=8':>11} "
          f"{'peak RSS MB':>11} {'overhead':>8} {'precision':>9} {'recall':>7} {'full s':>7} {'unanswered':>10}")
    for r in rows:
        print(f"{r['server']:<27} {r['project']:<40} {r['sites']:>6} {fmt(r['ready_s'], '.1f'):>8} "
              f"{fmt(r['rate_c1'], '.1f'):>11} {fmt(r['rate_cN'], '.1f'):>11} {r['rss_mb']:>11.0f} "
              f"{fmt(r['overhead_pct'], '.1f') + '%' if r['overhead_pct'] is not None else '-':>8} "
              f"{fmt(r['precision'], '.1f'):>9} {fmt(r['recall'], '.1f'):>7} {r['full_s']:>7.1f} {r['unchecked']:>10}")
    print("\nsites/s: answered sites per second once the server was ready, on the throughput paths "
          "(no discovery); overhead: (wall - start - time waiting on the server) / time waiting on the "
          "server, at one request in flight.")
    for r in rows:
        print(f"  throughput paths for {r['server']}: {r['rate_project']} ({r['rate_sites']} sites)")
    json.dump(rows, sys.stderr)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
