// The registry of run formats.
#include "sim/report/run_formats.hpp"

#include <stdexcept>

#include "sim/core/named_registry.hpp"

namespace vgpusim {

std::vector<RunFormat> builtin_run_formats();  // generated: build/generated/builtin_run_formats.cpp

namespace {

Registry<RunFormat>& registry() {
  static Registry<RunFormat> formats("run format", builtin_run_formats(), [](const RunFormat& f) {
    if (!f.render) throw std::invalid_argument("run format '" + f.name + "' cannot render");
  });
  return formats;
}

}  // namespace

const std::deque<RunFormat>& run_formats() { return registry().entries(); }
const RunFormat* find_run_format(const std::string& name) { return registry().find(name); }
void register_run_format(RunFormat format) { registry().add(std::move(format)); }

}  // namespace vgpusim
