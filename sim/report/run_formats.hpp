// The outputs of a scenario run. A built-in format is one file, sim/report/formats/<name>.cpp, defining
// `RunFormat <name>_run_format()`, and its name in VGPUSIM_RUN_FORMATS (CMakeLists.txt), which generates the list;
// other formats (a plug-in, a test) call register_run_format.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "sim/report/output_format.hpp"
#include "sim/report/timeline.hpp"
#include "sim/run/metrics.hpp"

namespace vgpusim {

// What a run's outputs are made from.
struct RunReport {
  const Results& results;
  const Timeline* timeline = nullptr;  // the recording, when a format that needs one was asked for
};
using RunFormat = OutputFormat<RunReport>;

// Every run format: the built-in ones in the order of VGPUSIM_RUN_FORMATS, then registered ones.
const std::deque<RunFormat>& run_formats();
// nullptr when unknown.
const RunFormat* find_run_format(const std::string& name);
// Adds a format. Throws std::invalid_argument when its name is taken or it cannot render.
void register_run_format(RunFormat format);

// The built-in renderings, also for direct use.
std::string results_table(const Results& r);  // for people; fixed precision, so golden tests catch any change
std::string results_json(const Results& r);   // schema vgpusim.results/1 (docs/results-schema.md)
// results.csv: long (tidy) form, one row per tenant or GPU and metric, each with the run's metadata.
std::string results_csv(const Results& r);
// One metric of a tenant (or of a GPU: tenant and workload empty), as results.csv and the sweep CSV list them.
struct MetricRow {
  std::string tenant, gpu, workload, metric;
  double value = 0;
  double ci95 = 0;  // 95% half-width; NaN when none
  std::string unit;
  std::string dcgm_field;  // the DCGM field that measures the same thing on a real GPU, when one does
};
std::vector<MetricRow> tidy_metrics(const Results& r);
// The tidy CSV's header and one run's rows; `extra` columns (a sweep's varied keys) go after the run's metadata.
std::string tidy_csv_header(const std::vector<std::string>& extra_columns);
std::string tidy_csv_rows(const Results& r, const std::vector<std::string>& extra_values);
// A CSV field: as it is, or quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);
// One UTF-8 HTML document with inline CSS and inline SVG charts: no script, no external reference. Every text
// that comes from the scenario is escaped. docs/report.md describes it.
std::string results_html(const Results& r);
// The stylesheet of the HTML pages (the run report, the sweep page): one look for both.
const char* report_css();

}  // namespace vgpusim
