#!/usr/bin/env python3
"""refgraph indexing benchmark on real, pinned open-source code.

Downloads the projects below from the package registries (once, into
bench/work/), indexes each with the release binary, and prints a table:
files, nodes, edges, cold index time and files/s, peak RSS, database size,
re-index after changing 10 files, no-change freshness check, `find` latency.

    python3 bench/run.py                 # all projects
    python3 bench/run.py django          # one
    python3 bench/run.py --no-build      # reuse target/release/refgraph
    python3 bench/run.py --bin PATH      # another build, as it is (A/B runs)

Every number is measured here, on this machine, in this run.
"""
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "bench" / "work"
BIN = ROOT / "target" / "release" / "refgraph"
# Re-index measurements are repeated; the median is reported.
REPEAT = 5

PROJECTS = {
    # name: (kind, spec, main language)
    "django": ("pypi", "Django==5.1.4", "python"),
    "effect": ("npm", "effect@3.12.0", "typescript"),
    "zod": ("npm", "zod@4.1.12", "typescript"),
    "rust-vendor": ("cargo", "bench/corpus-rust", "rust"),
    "rust-large": ("cargo", "bench/corpus-rust-large", "rust"),
    # The large-repository row: 18,295 Python files (180 MB) of real code,
    # the collections ansible ships in its sdist.
    "ansible": ("pypi", "ansible==9.13.0", "python"),
    # The 10,000-file row the targets name: ansible's sdist with whole
    # collections (ansible_collections/<namespace>/<collection>, in name
    # order) kept while the Python files stay within 10,000.
    "ansible-10k": ("subset", "ansible:10000", "python"),
}


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def fetch(name):
    kind, spec, _ = PROJECTS[name]
    dest = WORK / name
    if (dest / ".fetched").exists():
        return dest
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    dl = WORK / f"{name}.download"
    shutil.rmtree(dl, ignore_errors=True)
    dl.mkdir(parents=True)
    if kind == "pypi":
        pkg = spec.split("==")[0]
        sh([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", pkg, spec, "-d", str(dl)])
        (archive,) = list(dl.iterdir())
        if archive.name.endswith(".zip"):
            zipfile.ZipFile(archive).extractall(dest)
        else:
            tarfile.open(archive).extractall(dest, filter="data")
    elif kind == "npm":
        sh(["npm", "pack", "--silent", spec], cwd=dl, stdout=subprocess.DEVNULL)
        (archive,) = list(dl.glob("*.tgz"))
        tarfile.open(archive).extractall(dest, filter="data")
    elif kind == "subset":
        source, limit = spec.split(":")
        src = project_root(fetch(source))
        top = dest / src.name
        shutil.copytree(src, top, ignore=shutil.ignore_patterns(".refgraph", ".git"))
        colls = top / "ansible_collections"
        count = lambda d: sum(1 for _ in d.rglob("*.py"))
        budget = int(limit) - (count(top) - count(colls))
        for ns in sorted(p for p in colls.iterdir() if p.is_dir()):
            for coll in sorted(p for p in ns.iterdir() if p.is_dir()):
                n = count(coll)
                if n <= budget:
                    budget -= n
                else:
                    shutil.rmtree(coll)
    elif kind == "cargo":
        corpus = ROOT / spec
        sh(["cargo", "vendor", "--quiet", "--versioned-dirs", "--manifest-path", str(corpus / "Cargo.toml"), str(dest / "vendor")],
           stdout=subprocess.DEVNULL)
        for ck in dest.rglob(".cargo-checksum.json"):
            ck.unlink()
    shutil.rmtree(dl, ignore_errors=True)
    # A git work tree, so `index.head` is reported like on a real checkout.
    sh(["git", "init", "-q", str(dest)])
    sh(["git", "-C", str(dest), "add", "-A"], stdout=subprocess.DEVNULL)
    sh(["git", "-C", str(dest), "-c", "user.name=bench", "-c", "user.email=bench@localhost",
        "commit", "-qm", "pinned sources"], stdout=subprocess.DEVNULL)
    (dest / ".fetched").write_text(spec + "\n")
    return dest


def timed(args, repo):
    """Run refgraph; return (wall seconds, peak RSS MiB, parsed JSON stdout).
    The process's CPU seconds (user + system) are in the JSON as `cpu_s`."""
    cmd = ["/usr/bin/time", "-f", "%M %U %S", str(BIN), "--repo", str(repo), "--json", *args]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"refgraph {' '.join(args)} failed on {repo}:\n{p.stderr}")
    rss_kib, user, system = p.stderr.strip().splitlines()[-1].split()
    out = json.loads(p.stdout) if p.stdout.strip() else None
    if isinstance(out, dict):
        out["cpu_s"] = float(user) + float(system)
    return wall, int(rss_kib) / 1024, out


def source_files(repo, lang):
    exts = {"python": (".py",), "typescript": (".ts", ".tsx"), "rust": (".rs",)}[lang]
    out = []
    for dirpath, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in (".git", ".refgraph", "node_modules", "target", "dist")]
        out += [Path(dirpath) / f for f in files if f.endswith(exts)]
    return sorted(out)


def project_root(dest):
    """The project inside a download: an sdist or npm tarball unpacks into
    one folder (Django-5.1.4/, package/), and that folder is what a user
    opens (language servers resolve imports from it)."""
    entries = [e for e in dest.iterdir() if not e.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir() and entries[0].name != "vendor":
        return entries[0]
    return dest


def bench(name):
    repo = project_root(fetch(name))
    lang = PROJECTS[name][2]
    # Cold index (no database), REPEAT times: the median run is reported
    # (one run alone swings with the page cache and the machine's load),
    # with the largest peak RSS of all.
    colds = []
    for _ in range(REPEAT):
        shutil.rmtree(repo / ".refgraph", ignore_errors=True)
        colds.append(timed(["index", "--no-progress"], repo))
    cold_rss = max(c[1] for c in colds)
    cold_wall, _, summary = sorted(colds, key=lambda c: c[2]["seconds"])[len(colds) // 2]
    db = repo / ".refgraph" / "graph.db"
    # The database (with its WAL) and the copy of the facts kept beside it.
    stored = [*db.parent.glob("graph.db*"), db.parent / "scopes.bin"]
    db_mb = sum(f.stat().st_size for f in stored if f.exists()) / 2**20

    # No-change freshness check (what every query does first), best of 5.
    fresh = []
    for _ in range(5):
        wall, _, s = timed(["index", "--no-progress"], repo)
        fresh.append(s["seconds"])
    fresh_ms = min(fresh) * 1000

    # Change 10 files: append a new function to each, then re-index.
    rng = random.Random(7)
    files = rng.sample(source_files(repo, lang), 10)
    originals = {f: f.read_bytes() for f in files}
    snippet = {
        "python": "\n\ndef refgraph_bench_added_{i}():\n    return {i}\n",
        "typescript": "\nexport function refgraphBenchAdded{i}() {{ return {i} }}\n",
        "rust": "\npub fn refgraph_bench_added_{i}() -> u32 {{ {i} }}\n",
    }[lang]
    # Each edit is measured REPEAT times (edit, re-index, restore, re-index);
    # the median is reported, with the files the last run re-resolved.
    def measured(edit, extracted=10):
        ms = []
        for _ in range(REPEAT):
            try:
                for i, f in enumerate(files):
                    edit(i, f)
                _, _, s = timed(["index", "--no-progress"], repo)
                ms.append(s["seconds"] * 1000)
                assert extracted is None or s["extracted"] == extracted, s
            finally:
                for f, b in originals.items():
                    f.write_bytes(b)
            timed(["index", "--no-progress"], repo)
        return statistics.median(ms), s["resolved"]

    def appended(i, f):
        f.write_bytes(originals[f] + snippet.format(i=i).encode())

    reindex_ms, reindex_resolved = measured(appended)

    # Edit 10 function bodies: a comment line in the middle of each file
    # (everything below it moves; no definition is added or removed).
    comment = {"python": b"# refgraph bench edit\n", "typescript": b"// refgraph bench edit\n",
               "rust": b"// refgraph bench edit\n"}[lang]

    def commented(_, f):
        lines = originals[f].splitlines(keepends=True)
        mid = len(lines) // 2
        f.write_bytes(b"".join(lines[:mid] + [comment] + lines[mid:]))

    body_ms, body_resolved = measured(commented, extracted=None)

    # The first edit saved as editors save: the new text written beside the
    # file and renamed over it, which changes the folder too.
    def saved(i, f):
        tmp = f.with_name(f".{f.name}.refgraph-save")
        tmp.write_bytes(originals[f] + snippet.format(i=i).encode())
        os.replace(tmp, f)

    save_ms, _ = measured(saved)

    # find latency (whole process: start, open, freshness check, query).
    names = ["get", "parse", "Error", "run", "init"]
    lat = []
    for q in names * 2:
        wall, _, _ = timed(["find", q, "--limit", "5"], repo)
        lat.append(wall * 1000)
    return {
        "project": name,
        "files": summary["files"],
        "nodes": summary["nodes"],
        "edges": summary["edges"],
        "cold_s": summary["seconds"],
        "cold_cpu_s": summary["cpu_s"],
        "cold_wall_s": cold_wall,
        "files_per_s": summary["files"] / summary["seconds"],
        "peak_rss_mb": cold_rss,
        "db_mb": db_mb,
        "reindex10_ms": reindex_ms,
        "reindex10_resolved": reindex_resolved,
        "body10_ms": body_ms,
        "body10_resolved": body_resolved,
        "save10_ms": save_ms,
        "fresh_ms": fresh_ms,
        "find_p50_ms": statistics.median(lat),
        "diagnostics": len(summary["diagnostics"]),
    }


def main():
    global BIN
    argv = sys.argv[1:]
    if "-h" in argv or "--help" in argv:
        print(__doc__.strip())
        print("\nprojects: " + ", ".join(PROJECTS))
        return
    unknown = [a for a in argv if a.startswith("-") and a not in ("--bin", "--no-build")]
    if unknown:
        sys.exit(f"bench/run.py: unknown option {unknown[0]!r} (expected --no-build or --bin PATH; -h for help)")
    if "--bin" in argv:
        # Another build (an A/B run of two commits): used as it is.
        i = argv.index("--bin")
        BIN = Path(argv[i + 1]).resolve()
        del argv[i:i + 2]
        argv.append("--no-build")
    args = [a for a in argv if not a.startswith("--")]
    if "--no-build" not in argv:
        sh(["cargo", "build", "--release", "--quiet", "--bin", "refgraph"], cwd=ROOT)
    bad = [n for n in args if n not in PROJECTS]
    if bad:
        sys.exit(f"bench/run.py: unknown project {bad[0]!r} (expected one of: {', '.join(PROJECTS)})")
    names = args or list(PROJECTS)
    rows = [bench(n) for n in names]
    cols = [
        ("project", "{}"), ("files", "{}"), ("nodes", "{}"), ("edges", "{}"),
        ("cold_s", "{:.2f}"), ("cold_cpu_s", "{:.2f}"), ("files_per_s", "{:.0f}"), ("peak_rss_mb", "{:.0f}"),
        ("db_mb", "{:.1f}"), ("reindex10_ms", "{:.0f}"), ("reindex10_resolved", "{}"),
        ("body10_ms", "{:.0f}"), ("body10_resolved", "{}"), ("save10_ms", "{:.0f}"), ("fresh_ms", "{:.0f}"),
        ("find_p50_ms", "{:.1f}"), ("diagnostics", "{}"),
    ]
    cells = [[c for c, _ in cols]] + [[f.format(r[c]) for c, f in cols] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    print(f"\nrefgraph {subprocess.run([str(BIN), '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"{os.cpu_count()} cores")
    for j, row in enumerate(cells):
        print("| " + " | ".join(c.rjust(w) for c, w in zip(row, widths)) + " |")
        if j == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other work on the machine inflates wall times)")
    print("\ncold_s / fresh_ms / reindex10_ms: time inside `refgraph index` (update only);"
          f" cold_s: the median of {REPEAT} cold runs (the database deleted before each), cold_cpu_s its CPU seconds (user+system);"
          " reindex10: a new function appended to each of 10 files; body10: a comment line inserted"
          " in the middle of each of 10 files; save10: reindex10's edit saved as editors save (written beside the file,"
          f" renamed over it: the folder changes too) (all three: median of {REPEAT} runs); *_resolved: files whose edges were recomputed;"
          " peak_rss_mb: whole process, the largest of the cold runs; db_mb: graph.db with its WAL and .refgraph/scopes.bin; find_p50_ms: whole process (spawn + freshness check + query).")


if __name__ == "__main__":
    main()
