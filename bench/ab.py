#!/usr/bin/env python3
"""Interleaved A/B of the 10-file update between builds of refgraph.

    python3 bench/ab.py rust-vendor 8 /tmp/refgraph-old target/release/refgraph

On a project of bench/run.py (downloaded there first), each round edits the
same 10 files as run.py's reindex10 (a function appended to each), runs
`refgraph index` with one build, restores the files and brings the index back
with that build; the builds take turns, so load on a shared machine falls on
both alike. Prints, per build, the median, min and max of the update's own
`seconds` and the median CPU time (user + system) of the process.

Both builds use the project's one `.refgraph`: they must share the schema
version (an update that re-extracts more than the 10 files stops the run).
"""
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    name, rounds, bins = sys.argv[1], int(sys.argv[2]), [str(Path(b).resolve()) for b in sys.argv[3:]]
    repo = run.project_root(run.fetch(name))
    lang = run.PROJECTS[name][2]
    files = random.Random(7).sample(run.source_files(repo, lang), 10)
    originals = {f: f.read_bytes() for f in files}
    snippet = {
        "python": "\n\ndef refgraph_bench_added_{i}():\n    return {i}\n",
        "typescript": "\nexport function refgraphBenchAdded{i}() {{ return {i} }}\n",
        "rust": "\npub fn refgraph_bench_added_{i}() -> u32 {{ {i} }}\n",
    }[lang]

    def index(b):
        r0 = os.times()
        out = subprocess.run([b, "index", "--no-progress", "--json"], cwd=repo,
                             capture_output=True, text=True, check=True)
        r1 = os.times()
        cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
        return json.loads(out.stdout), cpu * 1000

    wall = {b: [] for b in bins}
    cpu = {b: [] for b in bins}
    for b in bins:
        index(b)
    for _ in range(rounds):
        for b in bins:
            try:
                for i, f in enumerate(files):
                    f.write_bytes(originals[f] + snippet.format(i=i).encode())
                s, c = index(b)
                if s["extracted"] != 10:
                    sys.exit(f"{b} re-extracted {s['extracted']} files, not 10: "
                             "the builds do not share a schema version")
                wall[b].append(s["seconds"] * 1000)
                cpu[b].append(c)
            finally:
                for f, data in originals.items():
                    f.write_bytes(data)
            index(b)
    print(f"{name}: 10-file update, {rounds} interleaved rounds, load {os.getloadavg()[0]:.1f} at the end")
    for b in bins:
        w = wall[b]
        print(f"  {b}: median {statistics.median(w):.0f} ms (min {min(w):.0f}, max {max(w):.0f}),"
              f" CPU median {statistics.median(cpu[b]):.0f} ms")


if __name__ == "__main__":
    main()
