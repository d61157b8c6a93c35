#!/usr/bin/env bash
# Everything the tests need, then the tests. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
