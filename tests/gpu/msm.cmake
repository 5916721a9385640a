# GPU MSM tests (included by tests/gpu/CMakeLists.txt). The device suites skip without a GPU;
# msm_host_test.cpp checks the digit, key, plan and per-thread index math on the host and
# runs everywhere.
cuzk_add_gpu_test(cuzk_gpu_msm_test
  SOURCES msm_bls12_381_test.cu msm_bn254_test.cu msm_host_test.cpp)
