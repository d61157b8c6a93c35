#!/usr/bin/env python3
"""MCP round-trip latency against the CLI, on real code (Django 5.1.4).

Copies bench/work/django/Django-5.1.4 to a temporary git repository (indexing
writes .refgraph/ into the project; the copy also gives `blast_radius` a
working-tree change), indexes it with the release binary, then measures:

- warm MCP: one `refgraph mcp` child spoken to over its stdio in JSON-RPC
  (initialize, notifications/initialized, tools/call), N calls per tool;
- CLI: the same query as a whole `refgraph` process, N times;
- the size in bytes of the `tools/list` result, all tools and a subset.

Queries run with `min_confidence: 0`, so no item is below the threshold:
nothing is verified on the spot or queued for the background, and both sides
measure the graph query itself (plus the freshness check every call makes).

    python3 bench/mcp.py                          # target/release/refgraph
    python3 bench/mcp.py --bin /path/to/refgraph --calls 50 --project DIR
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "bench" / "work" / "django" / "Django-5.1.4"
SYMBOL = "django.utils.functional.cached_property"
# The working-tree change blast_radius is asked about.
CHANGED = "django/utils/text.py"
SUBSET = "find_symbol,find_referencing_symbols,blast_radius"


class Mcp:
    """A `refgraph mcp` child spoken to in newline-delimited JSON-RPC."""

    def __init__(self, binary, repo, extra=()):
        self.p = subprocess.Popen(
            [str(binary), "--repo", str(repo), "mcp", *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.next_id = 0
        self.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        })
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        """The raw result line and the parsed result."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"refgraph mcp closed the connection during {method}")
            msg = json.loads(line)
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]

    def call(self, tool, args):
        r = self.request("tools/call", {"name": tool, "arguments": args})
        if r.get("isError"):
            raise RuntimeError(f"{tool}: {r['content'][0]['text']}")
        return r

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def timed(f, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        out.append((time.perf_counter() - t) * 1000)
    return out


def git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        check=True, stdout=subprocess.DEVNULL,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.environ.get("REFGRAPH_BIN", ROOT / "target" / "release" / "refgraph"))
    ap.add_argument("--calls", type=int, default=50)
    ap.add_argument("--symbol", default=SYMBOL)
    ap.add_argument("--project", default=PROJECT, help="the Django 5.1.4 sources (read only; copied)")
    args = ap.parse_args()
    project = Path(args.project)
    binary = Path(args.bin)
    if not binary.exists():
        sys.exit(f"{binary} not found: cargo build --release --bin refgraph (or pass --bin)")
    if not project.exists():
        sys.exit(f"{project} not found: python3 bench/run.py django downloads it")

    tmp = Path(tempfile.mkdtemp(prefix="refgraph-mcp-bench-"))
    repo = tmp / "django"
    try:
        shutil.copytree(project, repo, ignore=shutil.ignore_patterns(".refgraph"))
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "Django 5.1.4")
        changed = repo / CHANGED
        changed.write_text(changed.read_text().replace("def capfirst(x):\n", "def capfirst(x):\n    # edited\n", 1))
        t = time.perf_counter()
        subprocess.run([str(binary), "--repo", str(repo), "index", "--no-progress"], check=True,
                       stdout=subprocess.DEVNULL)
        index_s = time.perf_counter() - t

        n = args.calls
        queries = [
            # A key lookup: close to the fixed cost of a call (the freshness check).
            ("find_symbol", {"query": args.symbol}, ["find", args.symbol, "--json"]),
            ("find_referencing_symbols", {"symbol": args.symbol, "min_confidence": 0},
             ["refs", args.symbol, "--min-confidence", "0", "--json"]),
            ("blast_radius", {"min_confidence": 0}, ["blast-radius", "--min-confidence", "0", "--json"]),
        ]
        rows = []
        server = Mcp(binary, repo)
        try:
            server.call("index_status", {})  # waits for the server's first index update
            for tool, targs, cli in queries:
                first = server.call(tool, targs)
                answer = first["structuredContent"]
                items = len(answer.get("results", answer.get("impacted", [])))
                server.call(tool, targs)  # warm
                mcp = timed(lambda: server.call(tool, targs), n)

                def run_cli():
                    out = subprocess.run([str(binary), "--repo", str(repo), *cli],
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                    if out.returncode not in (0, 1):
                        raise RuntimeError(f"refgraph {' '.join(cli)} exited {out.returncode}")
                    return out

                run_cli()  # warm the page cache
                cli_ms = timed(run_cli, n)
                rows.append((tool, items, answer["total"], mcp, cli_ms))
            listing = json.dumps(server.request("tools/list", {}), separators=(",", ":"))
        finally:
            server.close()
        sub = Mcp(binary, repo, ["--tools", SUBSET])
        try:
            sub_listing = json.dumps(sub.request("tools/list", {}), separators=(",", ":"))
        finally:
            sub.close()

        files = subprocess.run([str(binary), "--repo", str(repo), "status", "--json"],
                               stdout=subprocess.PIPE, check=True)
        status = json.loads(files.stdout)
        print(f"Django 5.1.4: {sum(status['files'].values())} files, cold index {index_s:.1f} s; "
              f"{n} calls per row, min_confidence 0 (no verification); binary {binary}")
        print(f"symbol {args.symbol}; blast_radius: working tree vs HEAD ({CHANGED} edited)")
        print()
        print(f"{'query':<26} {'items':>6} {'total':>6} {'MCP p50':>9} {'MCP p95':>9} {'CLI p50':>9} {'CLI p95':>9}")
        for tool, items, total, mcp, cli_ms in rows:
            print(f"{tool:<26} {items:>6} {total:>6} {statistics.median(mcp):>7.1f}ms {pct(mcp, 0.95):>7.1f}ms "
                  f"{statistics.median(cli_ms):>7.1f}ms {pct(cli_ms, 0.95):>7.1f}ms")
        print()
        all_tools = len(json.loads(listing)["tools"])
        sub_tools = len(json.loads(sub_listing)["tools"])
        print(f"tools/list result: {len(listing.encode())} bytes ({all_tools} tools); "
              f"{len(sub_listing.encode())} bytes with --tools {SUBSET} ({sub_tools} tools)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
