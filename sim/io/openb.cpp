// Importer of the Alibaba openb cluster trace CSVs (nodes and pods), read as published: header checked by
// name, every number validated, errors name the file, line and column.
#include "sim/io/openb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/io/text_fields.hpp"
#include "sim/io/yaml_reader.hpp"

namespace vgpusim {
namespace {

// A CSV file whose header must be exactly `columns`, or their first `min_columns` alone when given (the multigpu
// pod lists have no times); calls `row(cells, line_number)` for each data line.
template <typename RowFn>
void read_exact_csv(const std::string& path, const std::vector<std::string>& columns, RowFn row,
                    size_t min_columns = 0) {
  read_csv(
      path, CsvQuotes::none,
      [&](const CsvHeader& h) {
        const bool shorter = min_columns > 0 && h.names.size() == min_columns &&
                             std::equal(h.names.begin(), h.names.end(), columns.begin());
        if (!shorter && h.names != columns)
          throw InputError(fmt::format("{}:{}: expected the header '{}', found '{}'", path, h.line,
                                       fmt::join(columns, ","), h.text));
      },
      [&](const CsvRow& r) { row(r.cells, r.line); });
}

// A node's or pod's CPU (milli-cores) or memory (MiB): the largest node of the trace has 128,000 milli-cores and
// ~1 TiB; a value beyond 1e12 (a billion cores, an exabyte) is not a machine but an overflow waiting to happen.
double field_resource(const std::string& path, size_t line, const std::string& column, const std::string& text) {
  const double v = field_number(path, line, column, text);
  if (v > 1e12) throw InputError(fmt::format("{}:{}: {}: at most 1e12, found '{}'", path, line, column, text));
  return v;
}

}  // namespace

std::vector<ClusterNode> read_openb_nodes(const std::string& path, bool gpu_nodes_only) {
  std::vector<ClusterNode> nodes;
  read_exact_csv(path, {"sn", "cpu_milli", "memory_mib", "gpu", "model"},
                 [&](const std::vector<std::string>& c, size_t line) {
                   ClusterNode n;
                   n.name = c[0];
                   n.cpu_milli = field_resource(path, line, "cpu_milli", c[1]);
                   n.memory_mib = field_resource(path, line, "memory_mib", c[2]);
                   n.gpus = field_integer(path, line, "gpu", c[3]);
                   if (n.gpus > 64)
                     throw InputError(
                         fmt::format("{}:{}: gpu: at most 64 GPUs per node, found {}", path, line, n.gpus));
                   n.gpu_model = c[4];
                   if (n.gpus > 0 || !gpu_nodes_only) nodes.push_back(std::move(n));
                 });
  return nodes;
}

std::vector<ClusterJob> read_openb_pods(const std::string& path, size_t limit) {
  std::vector<ClusterJob> jobs;
  read_exact_csv(path,
                 {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
                  "creation_time", "deletion_time", "scheduled_time"},
                 [&](const std::vector<std::string>& c, size_t line) {
                   if (limit > 0 && jobs.size() >= limit) return;
                   ClusterJob j;
                   j.name = c[0];
                   j.cpu_milli = field_resource(path, line, "cpu_milli", c[1]);
                   j.memory_mib = field_resource(path, line, "memory_mib", c[2]);
                   j.num_gpu = field_integer(path, line, "num_gpu", c[3]);
                   const int milli = field_integer(path, line, "gpu_milli", c[4]);
                   if (milli > 1000)
                     throw InputError(fmt::format("{}:{}: gpu_milli: expected 0..1000, found {}", path, line, milli));
                   // A GPU pod with gpu_milli 0 or 1000 holds whole GPUs; a sharing pod (num_gpu 1) holds a fraction.
                   j.gpu_units = j.num_gpu == 0 ? 0 : (milli == 0 ? kGpuUnits : milli * kUnitsPerMilliGpu);
                   if (c.size() < 11) {  // no times: arrival in row order, 1 s apart, and the pod never leaves
                     j.arrival_s = static_cast<double>(line - 2);
                     j.duration_s = std::numeric_limits<double>::infinity();
                     jobs.push_back(std::move(j));
                     return;
                   }
                   if (!c[5].empty()) j.gpu_models = split_fields(c[5], '|');
                   j.arrival_s = field_number(path, line, "creation_time", c[8]);
                   const double deletion = field_number(path, line, "deletion_time", c[9]);
                   if (deletion < j.arrival_s)
                     throw InputError(fmt::format("{}:{}: deletion_time: {} is before creation_time {}", path, line,
                                                  deletion, j.arrival_s));
                   j.duration_s = deletion - j.arrival_s;
                   jobs.push_back(std::move(j));
                 },
                 5);
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const ClusterJob& a, const ClusterJob& b) { return a.arrival_s < b.arrival_s; });
  return jobs;
}

}  // namespace vgpusim
