#!/usr/bin/env bash
# Everything the tests need, then the tests. CI runs exactly this.
#
# The language servers are real test dependencies: `refgraph servers install`
# puts the pinned versions into refgraph's prefix (~/.local/share/refgraph/servers,
# or $REFGRAPH_HOME/servers) and keeps any that are already there, so only the
# first run on a machine pays for them (rust-analyzer is a 20–45 minute build).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --bin refgraph
target/debug/refgraph servers install
target/debug/refgraph servers
cargo test --locked
