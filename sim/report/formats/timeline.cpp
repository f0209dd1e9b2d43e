// Run format `timeline`: a Chrome trace of the run (Perfetto, chrome://tracing), recorded by sim/report/timeline.
#include <stdexcept>

#include "sim/report/run_formats.hpp"

namespace vgpusim {

RunFormat timeline_run_format() {
  return {"timeline", "", "a Chrome trace of the run: kernels, slices, switches, utilization, memory (--timeline FILE)",
          true, [](const RunReport& r) -> std::string {
            if (!r.timeline) throw std::logic_error("the timeline format needs the run recorded");
            return r.timeline->to_json();
          }};
}

}  // namespace vgpusim
