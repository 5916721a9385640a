# The GPU prover's tests: host-only checks of the compact matrices and the synthesis index math
# (they run without a GPU), and the device checks (synthesis, witness staging, resident keys),
# which skip without one.
cuzk_add_gpu_test(cuzk_gpu_prover_test
  SOURCES prover_compact_test.cpp prover_synthesis_test.cu prover_key_test.cu
          prover_prove_test.cu prover_h_table_test.cpp prover_assignment_test.cpp)
