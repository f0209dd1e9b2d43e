// Calibration of the roofline's op classes (models/gpu/roofline.hpp) from Vidur's profiled PyTorch ops
// (scenarios/measurements/vidur/<gpu>_<model>_mlp_median_ms.csv): per GPU, the GEMMs' tensor and memory
// efficiencies, and each elementwise class's traffic and overhead, minimizing the mean absolute percentage error.
#pragma once

#include <string>
#include <vector>

#include "models/gpu/roofline.hpp"
#include "sim/io/calibration_file.hpp"

namespace vgpusim {

// One measured op: the work llm_op_kernel gives it and its median time.
struct VidurCase {
  std::string gpu;    // catalog name
  std::string model;  // from the file name, e.g. "Llama-2-7b-hf"
  std::string op;     // Vidur's name, e.g. "mlp_up_proj"
  std::string id;     // "<model> <op> tokens N tp T"
  KernelSpec kernel;
  double measured = 0;  // s
};

struct VidurSkip {
  std::string gpu, reason;
};

// Every op of every *_mlp_median_ms.csv in `dir`, on the GPU its prefix names (or `gpu` when given). Files of a GPU
// outside the catalog and ops without a time are listed in `skipped`. Throws InputError when there is no file.
std::vector<VidurCase> read_vidur_cases(const std::string& dir, const std::string& gpu,
                                        std::vector<VidurSkip>& skipped);

// The op-class parameters fitted on `cases` (one GPU's), starting from `base` (the GPU's other parameters);
// `source` starts each value's `from`.
std::vector<FittedValue> fit_vidur_ops(const std::vector<const VidurCase*>& cases, const GpuSpec& gpu,
                                       const RooflineParams& base, const std::string& source);

// The source every Vidur-fitted value names first.
inline constexpr const char* kVidurSource = "microsoft/vidur 7d47513 profiled ops";

// Replaces the op-class values of `c` (a calibration of the cases' GPU) with those fitted on `cases`, the other
// parameters as `c` sets them.
void add_vidur_fit(Calibration& c, const std::vector<const VidurCase*>& cases);

// `vgpusim fit --vidur DIR -o OUT_DIR`: fits every GPU in DIR on all its models and writes the values into
// OUT_DIR/<gpu>.yaml (the GPU's calibration file, whose other values are kept; a new file when there is none).
int fit_vidur_command(const std::string& dir, const std::string& out_dir);

}  // namespace vgpusim
