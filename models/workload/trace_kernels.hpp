// Each recorded kernel's work from the evidence its trace holds: the launching framework op's input shapes through
// the operator model (models/gpu/op_model.hpp), else its launch configuration and name (op_bound), else its recorded
// time (collectives). The recorded time on the source GPU calibrates the kernel; on another GPU its time follows the
// operator model's ratio between the two. Method: docs/trace-replay.md, "Kernels on another GPU".
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/gpu/op_model.hpp"
#include "models/workload/trace_replay.hpp"

namespace vgpusim {

// Where a kernel's work came from.
enum class KernelEvidence : uint8_t {
  Shapes,    // its framework op's input shapes and dtype, through the operator model
  Launch,    // a kernel without usable shapes: bound by its name, its SM fill from its recorded grid
  Name,      // a kernel without shapes or grid: bound by its name alone
  Recorded,  // a collective's kernel: its recorded time on any GPU
  Copy,      // a memcpy or memset: its recorded time as memory traffic
};
inline constexpr size_t kKernelEvidenceKinds = static_cast<size_t>(KernelEvidence::Copy) + 1;
const char* kernel_evidence_name(KernelEvidence e);  // "shapes", "launch", "name", "recorded", "copy"

// The kernel `kernel` launched by `op` as the operator model sees it, from the op's input shapes and types; the
// kernel's name says whether an FP32 GEMM ran on the tensor cores (TF32). None when the op is not one the model
// knows, or its inputs have no shapes.
std::optional<OpKernel> op_kernel_from_shapes(const KinetoCpuOp& op, const KinetoOp& kernel);

// Infers the work of a trace's ops on their source GPU, counting the evidence each used.
class TraceKernels {
 public:
  // `shapes` false: every kernel by its name and grid, as if the trace had no shapes (the rule shapes replace).
  TraceKernels(const KinetoTrace& trace, const GpuSpec& source, const RooflineParams& perf, bool shapes = true);
  // The work of trace op `i` whose solo time on the source GPU is `solo` (s): replayed there it takes `solo`.
  KernelSpec work(size_t i, double solo);
  const std::array<size_t, kKernelEvidenceKinds>& counts() const { return counts_; }
  // The counts as named figures ("kernels_from_shapes", ...), for results.
  std::vector<std::pair<std::string, double>> facts() const;

 private:
  const KinetoTrace& trace_;
  const GpuSpec& source_;
  const RooflineParams& perf_;
  bool shapes_;
  OpDevice device_;
  std::map<OpKernel, std::pair<std::shared_ptr<const OpGraph>, double>> graphs_;  // one graph per distinct kernel
  std::array<size_t, kKernelEvidenceKinds> counts_{};
};

}  // namespace vgpusim
