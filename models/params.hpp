// Declared model parameters: every constant a model uses is one ParamSpec (name, unit, default, help, source),
// and the same table drives scenario parsing, validation, `vgpusim list models` and the docs.
#pragma once

#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/units.hpp"

namespace vgpusim {

struct ParamSpec {
  std::string name;    // key in the scenario, e.g. "slice"
  units::Dim dim;      // unit kind; values are stored in SI
  double default_value;
  std::string help;    // one sentence
  std::string source;  // where the default comes from
  double min = -std::numeric_limits<double>::infinity();  // inclusive bounds, SI
  double max = std::numeric_limits<double>::infinity();
};

// Resolved parameter values by name (SI). Every declared parameter is present once resolved.
class ParamValues {
 public:
  ParamValues() = default;
  static ParamValues defaults(const std::vector<ParamSpec>& specs) {
    ParamValues v;
    for (const ParamSpec& s : specs) v.values_[s.name] = s.default_value;
    return v;
  }
  void set(const std::string& name, double value) { values_[name] = value; }
  double get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw std::logic_error("parameter '" + name + "' was never declared");
    return it->second;
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, double>& all() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

}  // namespace vgpusim
