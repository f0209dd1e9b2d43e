// The registry of run formats.
#include "sim/report/run_formats.hpp"

#include <stdexcept>

namespace vgpusim {

std::vector<RunFormat> builtin_run_formats();  // generated: build/generated/builtin_run_formats.cpp

namespace {

void check(const RunFormat& f, const std::deque<RunFormat>& known) {
  if (f.name.empty() || !f.render) throw std::invalid_argument("a run format needs a name and a render");
  for (const RunFormat& k : known)
    if (k.name == f.name) throw std::invalid_argument("run format '" + f.name + "' is registered twice");
}

std::deque<RunFormat>& registry() {
  static std::deque<RunFormat> formats = [] {
    std::deque<RunFormat> built;
    for (RunFormat& f : builtin_run_formats()) {
      check(f, built);
      built.push_back(std::move(f));
    }
    return built;
  }();
  return formats;
}

}  // namespace

const std::deque<RunFormat>& run_formats() { return registry(); }

const RunFormat* find_run_format(const std::string& name) {
  for (const RunFormat& f : run_formats())
    if (f.name == name) return &f;
  return nullptr;
}

void register_run_format(RunFormat format) {
  check(format, registry());
  registry().push_back(std::move(format));
}

}  // namespace vgpusim
