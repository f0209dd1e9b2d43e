// Compute suite: FP32 FMA dependency chains (ILP 8) on the full GPU and on k SMs, and a cuBLAS bf16 GEMM for
// the tensor-core rate. One FMA counts as 2 FLOP; a GEMM as 2 m n k FLOP.
#if VGPUSIM_HWCAL_CUBLAS
#include <cublas_v2.h>
#include <library_types.h>
#endif

#include <algorithm>
#include <cmath>

#include "hwcal/device_kernels.hpp"
#include "hwcal/environment.hpp"
#include "hwcal/nvml.hpp"
#include "hwcal/stats.hpp"
#include "hwcal/suites.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr unsigned kThreadsPerBlock = 256;
constexpr unsigned kScalingThreadsPerBlock = 1024;  // 32 warps: enough to hide FMA latency with ILP 8
constexpr unsigned kTrialIterations = 4096;
constexpr double kFullRunTarget_s = 0.02;
constexpr double kScalingRunTarget_s = 0.01;
constexpr unsigned kWarmups = 2;
constexpr unsigned kRepeats = 10;
constexpr unsigned kScalingRepeats = 3;
constexpr int kGemmSize = 8192;
constexpr unsigned kGemmWarmups = 3;
constexpr unsigned kGemmRepeats = 20;

double fma_flops(unsigned blocks, unsigned threads, unsigned iterations) {
  return 2.0 * kFmaIlp * static_cast<double>(iterations) * blocks * threads;
}

void run_full_gpu(RunContext& context, const Deadline& deadline, float* sink) {
  Experiment experiment;
  experiment.name = "compute.fp32_fma";
  experiment.kind = "compute";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    int resident = 0;
    HWCAL_CUDA(max_blocks_per_sm(ScalingKernel::fma_chain, kThreadsPerBlock, 0, &resident));
    LaunchShape shape;
    shape.threads_per_block = kThreadsPerBlock;
    shape.blocks = context.device.sm_count * static_cast<unsigned>(std::max(resident, 1));  // one full wave
    const unsigned iterations = calibrate_iterations(shape, sink, kFullRunTarget_s);
    const double flops = fma_flops(shape.blocks, shape.threads_per_block, iterations);
    e.params["kernel"] = "fp32_fma_chain";
    e.params["ilp"] = kFmaIlp;
    e.params["iterations_per_thread"] = iterations;
    e.params["blocks"] = shape.blocks;
    e.params["threads_per_block"] = shape.threads_per_block;
    e.params["resident_blocks_per_sm"] = resident;
    e.params["flops_per_repeat"] = flops;
    e.params["warmup_runs"] = kWarmups;
    const auto enqueue = [&] { HWCAL_CUDA(launch_fma_chain(sink, iterations, shape, nullptr)); };
    time_repeats(e, deadline, kWarmups, kRepeats, enqueue, flops, "flops_per_s");
  });
}

void run_sm_scaling(RunContext& context, const Deadline& deadline, float* sink) {
  Experiment experiment;
  experiment.name = "compute_sm_scaling.fp32_fma";
  experiment.kind = "compute_sm_scaling";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const DeviceInfo& device = context.device;
    const std::size_t shared_bytes = device.shared_per_block_optin_bytes;  // limits residency to one block per SM
    HWCAL_CUDA(allow_dynamic_shared(ScalingKernel::fma_chain, shared_bytes));
    int resident = 0;
    HWCAL_CUDA(max_blocks_per_sm(ScalingKernel::fma_chain, kScalingThreadsPerBlock, shared_bytes, &resident));
    DeviceBuffer<unsigned> smids(device.sm_count);
    LaunchShape shape;
    shape.threads_per_block = kScalingThreadsPerBlock;
    shape.dynamic_shared_bytes = shared_bytes;
    shape.block_smids = smids.get();
    shape.blocks = device.sm_count;
    // Every block does the same work, so the run time stays ~flat and the rate grows with k.
    const unsigned iterations = calibrate_iterations(shape, sink, kScalingRunTarget_s);
    const std::vector<unsigned> points = sm_scaling_points(device.sm_count);
    e.params["kernel"] = "fp32_fma_chain";
    e.params["ilp"] = kFmaIlp;
    e.params["iterations_per_thread"] = iterations;
    e.params["threads_per_block"] = kScalingThreadsPerBlock;
    e.params["flops_per_block"] = fma_flops(1, kScalingThreadsPerBlock, iterations);
    e.params["blocks_list"] = Json(points);
    e.params["dynamic_shared_bytes"] = shared_bytes;
    e.params["max_resident_blocks_per_sm"] = resident;
    e.params["repeats_per_point"] = kScalingRepeats;
    Json points_json = Json::array();
    for (const unsigned blocks : points) {
      shape.blocks = blocks;
      const double flops = fma_flops(blocks, kScalingThreadsPerBlock, iterations);
      const auto enqueue = [&] { HWCAL_CUDA(launch_fma_chain(sink, iterations, shape, nullptr)); };
      if (std::optional<ScalingPoint> point =
              time_scaling_point(e, deadline, kScalingRepeats, blocks, enqueue, smids, flops, "flops_per_s")) {
        point->json["flops_per_s_per_block"] = point->median_rate / blocks;
        points_json.push_back(point->json);
      }
      if (deadline.expired()) {
        e.truncated = e.truncated || blocks != points.back();
        break;
      }
    }
    e.summary["points"] = points_json;
  });
}

#if VGPUSIM_HWCAL_CUBLAS
class CublasHandle {
 public:
  CublasHandle() { HWCAL_CUBLAS(cublasCreate(&handle_)); }
  ~CublasHandle() { static_cast<void>(cublasDestroy(handle_)); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

void run_gemm(RunContext& context, const Deadline& deadline) {
  Experiment experiment;
  experiment.name = "gemm.bf16";
  experiment.kind = "gemm";
  run_experiment(context, std::move(experiment), [&](Experiment& e) {
    const int n = kGemmSize;
    const std::size_t elements = static_cast<std::size_t>(n) * n;
    const std::size_t bf16_bytes = 2;
    HWCAL_REQUIRE(3 * elements * bf16_bytes < free_device_memory_bytes() / 2, "not enough device memory for GEMM");
    DeviceBuffer<unsigned short> a(elements), b(elements), c(elements);  // bf16 storage
    HWCAL_CUDA(launch_fill_uniform_bf16(a.get(), elements, 21, nullptr));
    HWCAL_CUDA(launch_fill_uniform_bf16(b.get(), elements, 22, nullptr));
    c.zero();
    HWCAL_CUDA(cudaDeviceSynchronize());
    CublasHandle handle;
    HWCAL_CUBLAS(cublasSetStream(handle.get(), nullptr));
    const float alpha = 1.0f, beta = 0.0f;
    const double flops = 2.0 * n * static_cast<double>(n) * n;
    e.params["m"] = n;
    e.params["n"] = n;
    e.params["k"] = n;
    e.params["a_type"] = "bf16";
    e.params["b_type"] = "bf16";
    e.params["c_type"] = "bf16";
    e.params["compute_type"] = "CUBLAS_COMPUTE_32F";
    e.params["algorithm"] = "CUBLAS_GEMM_DEFAULT";
    e.params["data"] = "uniform in [-1, 1)";
    e.params["flops_per_repeat"] = flops;
    e.params["warmup_runs"] = kGemmWarmups;
    const auto enqueue = [&] {
      HWCAL_CUBLAS(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.get(), CUDA_R_16BF, n,
                                b.get(), CUDA_R_16BF, n, &beta, c.get(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
    };
    time_repeats(e, deadline, kGemmWarmups, kGemmRepeats, enqueue, flops, "flops_per_s");
    // Right after sustained load: the clocks the rates above ran at (SM clock idles far lower).
    e.summary["nvml_after"] = nvml_snapshot(pci_bus_id(context.device.ordinal));
  });
}
#else
void run_gemm(RunContext& context, const Deadline&) {
  Experiment experiment;
  experiment.name = "gemm.bf16";
  experiment.kind = "gemm";
  run_experiment(context, std::move(experiment), [](Experiment& e) { e.skipped = "built without cuBLAS"; });
}
#endif

}  // namespace

unsigned calibrate_iterations(LaunchShape shape, float* sink, double target_s) {
  const auto run = [&](unsigned iterations) {
    return time_with_events_s(nullptr, [&] { HWCAL_CUDA(launch_fma_chain(sink, iterations, shape, nullptr)); });
  };
  run(kTrialIterations);  // warm-up
  const double trial_s = std::max(run(kTrialIterations), 1e-6);
  const double scaled = kTrialIterations * target_s / trial_s / kFmaUnroll;
  return static_cast<unsigned>(std::clamp(std::round(scaled), 1.0, 16777216.0)) * kFmaUnroll;
}

void run_compute_suite(RunContext& context) {
  const Deadline deadline = context.suite_deadline(kComputeBudget_s);
  DeviceBuffer<float> sink(1);
  run_full_gpu(context, deadline, sink.get());
  run_sm_scaling(context, deadline, sink.get());
  run_gemm(context, deadline);
}

}  // namespace vgpusim::hwcal
