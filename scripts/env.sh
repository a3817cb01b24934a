# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the project scripts: finds nvcc and picks the CUDA architectures to build.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
# Build machine code for the GPU in this machine; without one (CI, a laptop) one architecture is enough to
# compile-check the kernels. Override with CUDA_ARCH="8.6 9.0".
if [ -z "${CUDA_ARCH:-}" ]; then
  CUDA_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sort -u | paste -sd' ' || true)
  [ -n "$CUDA_ARCH" ] || CUDA_ARCH=9.0
fi
cuda_arch_option() { echo "-Dcuda-arch=$(echo $CUDA_ARCH | tr ' ' ',')"; }
