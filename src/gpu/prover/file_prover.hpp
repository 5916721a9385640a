#pragma once
// The GPU prover behind `cuzk prove --backend cuda` (groth16::FileProver): each call checks the
// inputs on the host exactly as the CPU provers do (witness length, constant wire, the .r1cs
// when given), uploads the circuit, key and witness to the current device, proves one
// partition, verifies the proof on the host and frees the device memory again. One proof per
// upload: right for a command that proves once; a prover of many partitions keeps the circuit
// resident instead (the engine's cuda backend, src/engine/cuda_backend.hpp).
//
// Timings: upload_ms is the host time of the uploads; the stage fields are GPU times (CUDA
// events) as in prover.hpp; witness_check_ms adds the host checks to the witness upload.
// Thread-safety: stateless; concurrent calls share the device.

#include "gpu/prover/resident_circuit.hpp"
#include "groth16/files.hpp"

namespace cuzk::gpu::prover {

// `placement`: where the key's points go (resident_circuit.hpp); kAuto streams them from pinned
// host memory only when they do not fit in the device's free memory.
const groth16::FileProver& gpu_file_prover(KeyPlacement placement = KeyPlacement::kAuto);

}  // namespace cuzk::gpu::prover
