#!/usr/bin/env bash
# Build refgraph, download a real project (the `requests` sdist from PyPI,
# pinned), index it, and ask it a few questions.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin refgraph
bin=target/release/refgraph
demo=target/demo
if [ ! -d "$demo/requests-2.32.3" ]; then
  rm -rf "$demo" && mkdir -p "$demo"
  python3 -m pip download --quiet --no-deps --no-binary requests requests==2.32.3 -d "$demo"
  tar -xzf "$demo"/requests-2.32.3.tar.gz -C "$demo"
fi
repo="$demo/requests-2.32.3"
set -x
"$bin" index "$repo"
"$bin" --repo "$repo" status
"$bin" --repo "$repo" find Session.request
"$bin" --repo "$repo" overview src/requests/sessions.py --limit 15
