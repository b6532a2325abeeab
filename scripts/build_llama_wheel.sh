#!/usr/bin/env bash
# Build (once) a llama-cpp-python wheel of a named build kind and print its path.
#   bash scripts/build_llama_wheel.sh portable|native VERSION PYTHON
#
#   portable  one wheel for every x86-64 CPU with AVX2, FMA and F16C (x86-64-v3: Intel
#             Haswell 2013+, AMD Zen 2017+); no AVX-512, no AMX. On other architectures:
#             that architecture's generic baseline.
#   native    -march=native for this CPU minus AMX (whose kernels crash in the first decode,
#             ggml-org/llama.cpp#20824); kept in a folder keyed by this CPU's flags.
#
# llama.cpp's default GGML_NATIVE=ON compiles for the build machine's CPU, and pip's wheel
# cache hands that wheel to the next machine. So the wheel is built with explicit flags and
# --no-cache-dir (it never enters pip's cache) into
#   ${VERILOOP_WHEEL_DIR:-~/.cache/veriloop/wheels}/llama-cpp-python-VERSION-TAG/
# and reused from there. Progress goes to stderr; stdout is only the wheel's path.
set -euo pipefail

build="${1:?usage: build_llama_wheel.sh portable|native VERSION PYTHON}"
version="${2:?usage: build_llama_wheel.sh portable|native VERSION PYTHON}"
python_bin="${3:?usage: build_llama_wheel.sh portable|native VERSION PYTHON}"

# shellcheck source=scripts/llama_portable_flags.sh
source "$(dirname "$0")/llama_portable_flags.sh"  # portable_cmake_args, portable_tag, no_amx
build_flags=()
case "$build" in
  portable)
    tag="$portable_tag"
    cmake_args=("${portable_cmake_args[@]}") ;;
  native)
    cpu_hash="$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | sha256sum | cut -c1-12)"
    tag="native-noamx-${cpu_hash}"
    cmake_args=(-DGGML_NATIVE=ON "${no_amx[@]}")
    # -march=native turns AMX on where the CPU has it; explicit -mno-* flags win over it.
    build_flags=(-mno-amx-tile -mno-amx-int8 -mno-amx-bf16) ;;
  *)
    echo "error: the llama.cpp build must be 'portable' or 'native', not '$build'" >&2
    exit 2 ;;
esac
cmake_args+=(-DLLAVA_BUILD=OFF)

wheel_dir="${VERILOOP_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/veriloop/wheels}/llama-cpp-python-${version}-${tag}"
wheel="$(ls "$wheel_dir"/llama_cpp_python-"$version"-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ]; then
  echo "Building llama-cpp-python ${version} (${tag}); about 6 minutes on 2 cores..." >&2
  rm -rf "$wheel_dir.tmp" && mkdir -p "$wheel_dir.tmp"
  CMAKE_ARGS="${cmake_args[*]}" CFLAGS="${build_flags[*]:-}" CXXFLAGS="${build_flags[*]:-}" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
    "$python_bin" -m pip --disable-pip-version-check -q wheel --no-deps --no-cache-dir \
      --no-binary llama-cpp-python -w "$wheel_dir.tmp" "llama-cpp-python==${version}" >&2
  rm -rf "$wheel_dir" && mv "$wheel_dir.tmp" "$wheel_dir"
  wheel="$(ls "$wheel_dir"/llama_cpp_python-"$version"-*.whl | head -n1)"
fi
echo "$wheel"
