#pragma once
// Function qualifiers for code shared by the host compiler and nvcc.
//
// CUZK_HD marks a function that is compiled for both sides; inside it, `#ifdef __CUDA_ARCH__`
// selects the device implementation (the field's PTX multiply-add chains) and the host
// implementation otherwise. Under a plain C++ compiler the qualifiers vanish.
//
// CUZK_HD_OUTLINE marks a whole point formula (an addition or doubling: 10-30 field
// multiplications, 10^4-10^5 instructions for G2). nvcc compiles it once per translation unit
// and calls it, instead of inlining it into every kernel and every other formula that uses it:
// forced inlining made one G2 MSM translation unit take over ten minutes of ptxas. The call
// costs a few dozen instructions against thousands in the body. The host keeps `inline`.

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_HD_NOINLINE __host__ __device__
#define CUZK_HD_OUTLINE __host__ __device__ __noinline__
#define CUZK_DEVICE __device__ __forceinline__
#else
#define CUZK_HD inline
#define CUZK_HD_NOINLINE
#define CUZK_HD_OUTLINE inline
#define CUZK_DEVICE inline
#endif
