# GPU NTT tests (included by CMakeLists.txt): the host emulation of the kernels' index math
# (runs everywhere) and the per-curve differential tests (skip without a GPU).
cuzk_add_gpu_test(cuzk_gpu_ntt_test
  SOURCES ntt_emulation_test.cu ntt_bls12_381_test.cu ntt_bn254_test.cu)
