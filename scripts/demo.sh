#!/usr/bin/env bash
# Build refgraph, install the pinned language servers, download a real
# project (the `requests` 2.32.3 sdist from PyPI), index it, confirm its
# guessed edges with pyright, and ask it a few questions.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet --bin refgraph
bin=target/release/refgraph
"$bin" servers install
demo=target/demo
if [ ! -d "$demo/requests-2.32.3" ]; then
  rm -rf "$demo" && mkdir -p "$demo"
  python3 -m pip download --quiet --no-deps --no-binary requests requests==2.32.3 -d "$demo"
  tar -xzf "$demo"/requests-2.32.3.tar.gz -C "$demo"
fi
repo="$demo/requests-2.32.3"
set -x
"$bin" index "$repo"
"$bin" --repo "$repo" verify --budget 120
"$bin" --repo "$repo" status
"$bin" --repo "$repo" refs Session.request
"$bin" --repo "$repo" callers get_netrc_auth --depth 3
"$bin" --repo "$repo" overview src/requests/sessions.py --limit 15
