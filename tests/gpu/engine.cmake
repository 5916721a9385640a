# The engine on the cuda backend (real proofs, worker counts, cancellation); skips without a GPU.
cuzk_add_test(cuzk_gpu_engine_test SOURCES engine_cuda_test.cpp LIBS cuzk_engine)
add_dependencies(cuzk_gpu_tests cuzk_gpu_engine_test)
