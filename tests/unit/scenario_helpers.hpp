// Shared by the tests that run scenario text through the whole pipeline or expect it to be refused.
#pragma once

#include <string>

#include "sim/io/gpu_catalog.hpp"
#include "sim/run/metrics.hpp"
#include "sim/run/runs.hpp"
#include "sim/scenario/loader.hpp"

namespace vgpusim::testing_support {

inline Results run_text(const std::string& text, const std::string& file = "test.yaml") {
  return run_scenario(load_scenario_text(text, file, builtin_catalog()));
}

// The loader's message for `text`, or "(no error)".
inline std::string error_of(const std::string& text, const std::string& file) {
  try {
    load_scenario_text(text, file, builtin_catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace vgpusim::testing_support
