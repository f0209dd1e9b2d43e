// NeuSight's measured per-op graphs (github.com/sitar-lab/NeuSight, scripts/asplos; MIT): DIR/label/<GPU>/<case>.csv
// (one torch.fx node per row: op, target, input shapes, dtype, measured latency) beside <case>.json (the measured
// end-to-end latency), DIR/device_configs/<GPU>.json and DIR/summary/summary.csv (NeuSight's and a roofline's
// predictions of the same cases).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/workload/fx_graph.hpp"

namespace vgpusim {

struct NeusightOp {
  FxNode node;
  double forward = 0, backward = 0, accumulate = 0;  // s, measured alone (0: not measured)
  int repeat = 1;                                    // num_layer for the one traced layer's ops, else 1
};

struct NeusightCase {
  std::string gpu;    // the folder's name, e.g. "Tesla_T4"
  std::string id;     // the file's stem, e.g. "bert_large-inf-512-8"
  std::string model;  // "bert_large"
  bool training = false;
  int seq = 0, batch = 0, layers = 1;
  std::string option;            // "" or what follows the batch ("fusion", "dp4", ...)
  double forward_latency = 0;    // s, measured end to end
  double backward_latency = 0;   // s, training: the backward pass and the gradient accumulation
  std::vector<NeusightOp> ops;
  double measured() const { return forward_latency + (training ? backward_latency : 0); }
};

struct NeusightDevice {
  std::string name;  // "Tesla T4"
  double memory = 0;     // bytes
  double bandwidth = 0;  // B/s
  double sms = 0;
  double clock = 0;  // Hz
  double fp32 = 0;   // FLOP/s of FP32 GEMMs: SingleFLOPs, or SingleFLOPsMM (AMD's matrix cores) where it has none
  double l2 = 0;     // bytes
};

// What summary.csv predicts for one case (s; 0 = not given).
struct NeusightPredictions {
  double neusight = 0, roofline = 0, habitat = 0;
};

// The GPU folders under DIR/label, sorted.
std::vector<std::string> neusight_gpus(const std::string& dir);
// Every case of one GPU folder that has both files, sorted by id. Throws InputError on a malformed file.
std::vector<NeusightCase> read_neusight_cases(const std::string& dir, const std::string& gpu);
// The cases of a GPU folder with only the end-to-end latency (.json, no .csv), sorted.
std::vector<std::string> neusight_cases_without_profile(const std::string& dir, const std::string& gpu);
// num_layer of a case's .json.
int read_neusight_layers(const std::string& json_path);
// One profile's ops alone (no latency file): the traced layer's nodes repeat `layers` times.
std::vector<NeusightOp> read_neusight_profile(const std::string& csv_path, int layers);
NeusightCase read_neusight_case(const std::string& csv_path, const std::string& json_path, const std::string& gpu);
// DIR/device_configs/<gpu>.json, when present.
std::optional<NeusightDevice> read_neusight_device(const std::string& dir, const std::string& gpu);
// DIR/summary/summary.csv by (gpu, case id); empty when the file is absent.
std::map<std::pair<std::string, std::string>, NeusightPredictions> read_neusight_summary(const std::string& dir);

// Shapes as the profiles write them: "[[8, 512], [1]]" (input_shapes) or "(8, 512)" (output_shape). Elements that
// are not lists of whole numbers are left out; "" and "[]" give none.
std::vector<TensorShape> parse_shape_list(const std::string& text);
std::optional<TensorShape> parse_shape(const std::string& text);

}  // namespace vgpusim
