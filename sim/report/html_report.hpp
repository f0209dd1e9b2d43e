// The self-contained HTML report of one run (`vgpusim run SCENARIO --report FILE`): vGPU loss bars, a tenant
// table, latency CDFs, utilization over time, warnings, prediction vs article. It formats; it computes nothing.
#pragma once

#include <string>

#include "sim/run/metrics.hpp"

namespace vgpusim {

// One UTF-8 HTML document with inline CSS and inline SVG charts: no script, no external reference. Every text
// that comes from the scenario is escaped. docs/report.md describes it.
std::string results_html(const Results& r);

}  // namespace vgpusim
