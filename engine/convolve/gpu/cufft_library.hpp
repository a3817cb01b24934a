// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once
// cuFFT, loaded at run time (dlopen of libcufft.so.12) rather than linked: the toolkit's cuFFT is a 290 MB shared
// library (its static archive is larger still), far beyond what the plugin should carry, and a plugin that needs
// only the driver keeps loading without it. Without cuFFT the FFT path is unavailable: algorithm=auto filters by
// direct summation, algorithm=fft fails with CudaError naming the library.
#include <cufft.h>

namespace cudafilters::cuda_detail {

struct CufftLibrary {
    decltype(&cufftCreate) create;
    decltype(&cufftDestroy) destroy;
    decltype(&cufftSetAutoAllocation) setAutoAllocation;
    decltype(&cufftMakePlanMany) makePlanMany;
    decltype(&cufftSetWorkArea) setWorkArea;
    decltype(&cufftSetStream) setStream;
    decltype(&cufftExecR2C) execR2C;
    decltype(&cufftExecC2R) execC2R;
};

// The loaded library, or null when it cannot be loaded (cufftLoadError() says why). Loaded once per process.
const CufftLibrary* cufftLibrary();
const char* cufftLoadError();

// Throws CudaError naming libcufft.so.12 and why it could not be loaded.
const CufftLibrary& requireCufft();

// Throws CudaError naming `call` when `status` is not CUFFT_SUCCESS.
void checkCufft(cufftResult status, const char* call);
#define CUDAFILTERS_CHECK_CUFFT(expr) ::cudafilters::cuda_detail::checkCufft((expr), #expr)

// A cuFFT plan handle, destroyed with the owner.
class CufftPlan {
public:
    CufftPlan();  // cufftCreate; throws CudaError
    ~CufftPlan();
    CufftPlan(const CufftPlan&) = delete;
    CufftPlan& operator=(const CufftPlan&) = delete;
    cufftHandle get() const { return handle_; }

private:
    cufftHandle handle_ = 0;
};

}  // namespace cudafilters::cuda_detail
