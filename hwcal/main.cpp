// vgpusim-hwcal: runs the calibration experiments on CUDA device 0 and writes one raw JSON file (schema
// vgpusim.hwcal.raw/1), rewritten atomically after every experiment so a killed run still leaves a valid file.
#include <cuda_runtime_api.h>
#include <sys/prctl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "hwcal/environment.hpp"
#include "hwcal/experiment.hpp"
#include "hwcal/nvml.hpp"
#include "hwcal/subprocess.hpp"
#include "hwcal/suites.hpp"

namespace {

using namespace vgpusim::hwcal;

constexpr int kExitOk = 0;
constexpr int kExitExperimentErrors = 1;
constexpr int kExitNoGpu = 2;
constexpr int kExitUsage = 64;

struct Suite {
  const char* name;
  double nominal_budget_s;
  void (*run)(RunContext&);
};

const std::vector<Suite>& suites() {
  static const std::vector<Suite> all = {
      {"bandwidth", kBandwidthBudget_s, run_bandwidth_suite}, {"compute", kComputeBudget_s, run_compute_suite},
      {"latency", kLatencyBudget_s, run_latency_suite},       {"launch", kLaunchBudget_s, run_launch_suite},
      {"timeslice", kTimesliceBudget_s, run_timeslice_suite}, {"telemetry", kTelemetryBudget_s, run_telemetry_suite},
      {"corun", kCorunBudget_s, run_corun_suite},
  };
  return all;
}

void print_usage(std::FILE* out) {
  std::fprintf(out,
               "usage: vgpusim-hwcal EXPERIMENT [--out DIR] [--budget-s SECONDS]\n"
               "  EXPERIMENT: all | identity | bandwidth | compute | latency | launch | timeslice | corun |\n"
               "              telemetry\n"
               "  --out DIR         write DIR/raw-<hostname>-<UTC time>.json (default: .)\n"
               "  --budget-s S      total time budget; each experiment's budget is scaled to fit\n"
               "                    (default: about 290 s for all)\n"
               "Runs on CUDA device 0 (choose with CUDA_VISIBLE_DEVICES). Reads GPU settings, never changes them.\n"
               "Exit status: 0 done, 1 some experiment failed (see its \"error\"), 2 no CUDA GPU, 64 usage.\n");
}

class RawFile {
 public:
  RawFile(std::string path, Json header) : path_(std::move(path)), document_(std::move(header)) {
    document_["experiments"] = Json::array();
  }
  void add(const Experiment& experiment) {
    if (experiment.error) ++errors_;
    experiments_.push_back(experiment.to_json());
  }
  void put(const char* key, Json value) { document_[key] = std::move(value); }
  int errors() const { return errors_; }
  const std::string& path() const { return path_; }

  // Temp file + rename: readers never see half a file.
  void write() {
    Json& list = document_["experiments"] = Json::array();
    for (const Json& experiment : experiments_) list.push_back(experiment);
    const std::string temporary = path_ + ".tmp";
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << document_text(document_);
      if (!out.good()) throw HwcalError("could not write " + temporary);
    }
    std::filesystem::rename(temporary, path_);
  }

 private:
  std::string path_;
  Json document_;
  std::vector<Json> experiments_;
  int errors_ = 0;
};

int run_children(int argc, char** argv) {
  // Children sleep until a shared CLOCK_MONOTONIC instant; the default timer slack (50 us) would wake them up to
  // 50 us late, each differently. 1 ns leaves the scheduler's wake-up latency (a few us on an idle core).
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::vector<std::string> arguments(argv + 3, argv + argc);
  const std::string mode = argc > 2 ? argv[2] : "";
  if (mode == "corun") return corun_child_main(arguments);
  if (mode == "probe") return probe_child_main(arguments);
  std::fprintf(stderr, "vgpusim-hwcal: unknown child mode '%s'\n", mode.c_str());
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "__child") return run_children(argc, argv);

  std::string experiment, out_directory = ".";
  double budget_s = 0;  // 0: nominal budgets
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      print_usage(stdout);
      return kExitOk;
    } else if (argument == "--out" && i + 1 < argc) {
      out_directory = argv[++i];
    } else if (argument == "--budget-s" && i + 1 < argc) {
      char* end = nullptr;
      budget_s = std::strtod(argv[++i], &end);
      if (end == nullptr || *end != '\0' || budget_s <= 0) {
        std::fprintf(stderr, "vgpusim-hwcal: --budget-s wants a positive number of seconds\n");
        return kExitUsage;
      }
    } else if (experiment.empty() && argument.rfind("-", 0) != 0) {
      experiment = argument;
    } else {
      std::fprintf(stderr, "vgpusim-hwcal: unexpected argument '%s'\n", argument.c_str());
      print_usage(stderr);
      return kExitUsage;
    }
  }
  std::vector<const Suite*> selected;
  for (const Suite& suite : suites()) {
    if (experiment == "all" || experiment == suite.name) selected.push_back(&suite);
  }
  if (selected.empty() && experiment != "identity") {
    std::fprintf(stderr, "vgpusim-hwcal: unknown experiment '%s'\n", experiment.c_str());
    print_usage(stderr);
    return kExitUsage;
  }

  int device_count = 0;
  const cudaError_t status = cudaGetDeviceCount(&device_count);
  if (status != cudaSuccess || device_count == 0) {
    const std::string reason = status != cudaSuccess ? std::string("cudaGetDeviceCount: ") + cudaGetErrorName(status) +
                                                           ": " + cudaGetErrorString(status)
                                                     : std::string("cudaGetDeviceCount returned 0 devices");
    std::fprintf(stderr, "vgpusim-hwcal: no CUDA GPU found (%s)\n", reason.c_str());
    return kExitNoGpu;
  }
  install_termination_handlers();
  try {
    HWCAL_CUDA(cudaSetDevice(0));
    HWCAL_CUDA(cudaFree(nullptr));  // creates the context now, outside any measurement

    double nominal_total_s = 0;
    for (const Suite* suite : selected) nominal_total_s += suite->nominal_budget_s;
    const double scale = budget_s > 0 && nominal_total_s > 0 ? budget_s / nominal_total_s : 1.0;

    std::filesystem::create_directories(out_directory);
    const std::string path =
        (std::filesystem::path(out_directory) / ("raw-" + host_name() + "-" + utc_timestamp(true) + ".json")).string();
    Json header = Json::object();
    header["schema"] = kRawSchema;
    Json tool = Json::object();
    tool["name"] = "vgpusim-hwcal";
    tool["version"] = VGPUSIM_HWCAL_VERSION;
    tool["experiment"] = experiment;
    tool["budget_s"] = nominal_total_s * scale;
    header["tool"] = tool;
    header["complete"] = false;  // true once every selected suite has run
    header["started_utc"] = utc_timestamp(false);
    header["finished_utc"] = Json();
    header["environment"] = environment_json(0);
    header["environment_after"] = Json();
    RawFile raw(path, header);
    raw.write();
    progress("writing " + path);

    RunContext context;
    context.device = query_device(0);
    context.executable = self_executable();
    context.budget_scale = scale;
    context.run_end = std::chrono::steady_clock::now() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(nominal_total_s * scale));
    context.emit = [&raw](Experiment&& finished) {
      raw.add(finished);
      raw.write();
    };
    for (const Suite* suite : selected) {
      progress(std::string("suite ") + suite->name);
      try {
        suite->run(context);
      } catch (const std::exception& failure) {  // setup of a whole suite failed (e.g. allocation)
        Experiment failed;
        failed.name = std::string(suite->name) + ".setup";
        failed.kind = suite->name;
        failed.error = failure.what();
        progress(failed.name + ": ERROR " + *failed.error);
        context.emit(std::move(failed));
      }
    }
    Json after = Json::object();
    after["nvml"] = nvml_snapshot(pci_bus_id(0));
    raw.put("environment_after", after);
    raw.put("finished_utc", utc_timestamp(false));
    raw.put("complete", true);
    raw.write();
    std::printf("%s\n", path.c_str());
    return raw.errors() > 0 ? kExitExperimentErrors : kExitOk;
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "vgpusim-hwcal: %s\n", failure.what());
    return kExitExperimentErrors;
  }
}
