#!/usr/bin/env bash
# Rebuilds the browser search module from search-index/ into the default theme:
#   themes/default/static/errata-search.wasm (+ .stamp, see scripts/check-wasm-stamp)
# Uses rustup's wasm32 target when it is installed, else Debian's rustc-web toolchain with
# -Zbuild-std (see the project's wasm notes); wasm-opt (binaryen) shrinks the result if present.
#   scripts/build-wasm.sh [--install]   (--install: apt-get the Debian toolchain first)
set -euo pipefail
cd "$(dirname "$0")/.."
out=themes/default/static/errata-search.wasm
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/wasm}
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS='--cfg getrandom_backend="custom"'

if [ "${1:-}" = "--install" ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends rustc-web cargo-web rust-web-src rust-web-llvm lld-22 binaryen
fi

if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "build-wasm: rustup's wasm32-unknown-unknown target"
  cargo build --profile wasm --target wasm32-unknown-unknown -p errata-search-wasm --locked
elif [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust ]; then
  echo "build-wasm: Debian's rustc-web with -Zbuild-std"
  # Debian's cargo and rustc together: rustup's proxies would mix compilers (E0514).
  RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build -Zbuild-std=std,panic_abort \
    --profile wasm --target wasm32-unknown-unknown -p errata-search-wasm --locked
else
  echo "build-wasm: no wasm toolchain. Either: rustup target add wasm32-unknown-unknown" >&2
  echo "  or (Debian): scripts/build-wasm.sh --install" >&2
  exit 2
fi

built="$CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm/errata_search_wasm.wasm"
if command -v wasm-opt >/dev/null 2>&1; then
  # strip = true drops the target-features section, so name the features; never --all-features
  wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$built" -o "$out"
else
  cp "$built" "$out"
fi
scripts/wasm-stamp > "$out.stamp"
raw=$(stat -c %s "$out"); gz=$(gzip -9 -c "$out" | wc -c)
br=$( (command -v brotli >/dev/null && brotli -c -q 11 "$out" | wc -c) || echo "n/a")
echo "build-wasm: $out: $raw bytes raw, $gz gzip, $br brotli; stamp $(cat "$out.stamp")"
