// Declared model parameters: every constant a model uses is one ParamSpec (name, unit, default, help, source),
// and the same table drives scenario parsing, validation, `vgpusim list models` and the docs.
#pragma once

#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace vgpusim {

struct ParamSpec {
  std::string name;    // key in the scenario, e.g. "slice"
  units::Dim dim;      // unit kind; values are stored in SI
  double default_value;
  std::string help;    // one sentence
  std::string source;  // where the default comes from
  double min = -std::numeric_limits<double>::infinity();  // inclusive bounds, SI
  double max = std::numeric_limits<double>::infinity();
  // A choice parameter (e.g. a scheduler name) takes one of these words instead of a number; the first is the
  // default unless `default_choice` says otherwise.
  std::vector<std::string> choices = {};
  std::string default_choice = {};
  bool text = false;  // a free word (e.g. a profile name), checked by the model; default in default_choice

  bool is_choice() const { return !choices.empty() || text; }
  std::string default_word() const { return default_choice.empty() && !choices.empty() ? choices.front() : default_choice; }
};

// Resolved parameter values by name (SI). Every declared parameter is present once resolved.
class ParamValues {
 public:
  ParamValues() = default;
  static ParamValues defaults(const std::vector<ParamSpec>& specs) {
    ParamValues v;
    for (const ParamSpec& s : specs) {
      if (s.is_choice())
        v.words_[s.name] = s.default_word();
      else
        v.values_[s.name] = s.default_value;
    }
    return v;
  }
  void set_word(const std::string& name, const std::string& word) { words_[name] = word; }
  const std::string& word(const std::string& name) const {
    auto it = words_.find(name);
    if (it == words_.end()) throw std::logic_error("choice parameter '" + name + "' was never declared");
    return it->second;
  }
  void set(const std::string& name, double value) { values_[name] = value; }
  double get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw std::logic_error("parameter '" + name + "' was never declared");
    return it->second;
  }
  bool has(const std::string& name) const { return values_.count(name) != 0 || words_.count(name) != 0; }
  const std::map<std::string, double>& all() const { return values_; }
  const std::map<std::string, std::string>& all_words() const { return words_; }

 private:
  std::map<std::string, double> values_;
  std::map<std::string, std::string> words_;
};

}  // namespace vgpusim
