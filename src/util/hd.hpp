#pragma once
// Function qualifiers for code shared by the host compiler and nvcc.
//
// CUZK_HD marks a function that is compiled for both sides; inside it, `#ifdef __CUDA_ARCH__`
// selects the device implementation (the field's PTX multiply-add chains) and the host
// implementation otherwise. Under a plain C++ compiler the qualifiers vanish.

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_HD_NOINLINE __host__ __device__
#define CUZK_DEVICE __device__ __forceinline__
#else
#define CUZK_HD inline
#define CUZK_HD_NOINLINE
#define CUZK_DEVICE inline
#endif
