# Sourced by scripts/build_llama_wheel.sh and scripts/build_llama_server.sh: the CMake flags
# of the portable llama.cpp build, one list for both, in the array `portable_cmake_args`,
# and its name in `portable_tag`.
#   x86-64: x86-64-v3 (AVX2, FMA, F16C: Intel Haswell 2013+, AMD Zen 2017+); no AVX-512, no
#           AMX (whose kernels segfault in the first decode on Sapphire-Rapids-class CPUs).
#   other:  that architecture's generic baseline.
# shellcheck shell=bash
no_amx=(-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF)
if [ "$(uname -m)" = "x86_64" ]; then
  portable_tag="portable-x86-64-v3"
  portable_cmake_args=(-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON
                       -DGGML_BMI2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX_VNNI=OFF
                       -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF
                       -DGGML_AVX512_BF16=OFF "${no_amx[@]}")
else
  portable_tag="portable-$(uname -m)"
  portable_cmake_args=(-DGGML_NATIVE=OFF)
fi
