// Declared model parameters. Every constant a model uses is one typed ParamSpec (a number with its unit and bounds,
// a choice among words, a text or a flag; its default, help and source), owned by the model that declares it and
// named `owner.name` wherever it leaves that model (calibration files, `vgpusim list models`, the docs). The same
// declaration drives the scenario loader, calibration files, the model listing and the parameter tables of
// docs/models/*.md.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace vgpusim {

enum class ParamType {
  Number,  // a quantity with a unit (units::Dim), stored in SI, within inclusive bounds
  Choice,  // one of a fixed list of words
  Text,    // a free word that the model checks itself (e.g. a profile name)
  Flag,    // true or false
};

struct ParamSpec {
  std::string owner;  // the model that declares it, e.g. "timeslice"; its qualified name is owner.name
  std::string name;   // its key where a scenario sets it, e.g. "slice"
  ParamType type = ParamType::Number;
  units::Dim dim = units::Dim::Count;                     // Number: what it measures
  double default_value = 0;                               // Number, SI
  double min = -std::numeric_limits<double>::infinity();  // Number: inclusive bounds, SI
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> words;  // Choice: the allowed words
  std::string default_word;        // Choice and Text; a Text without a default must be given where the model needs it
  bool default_flag = false;       // Flag
  bool per_tenant = false;         // set once per tenant, under tenants[].share
  std::string help;                // one sentence
  std::string source;              // where the default comes from

  std::string qualified() const { return owner + "." + name; }
  // For people and the docs: "time", "fraction", "proportional | in_order", "name", "true | false".
  std::string type_text() const;
  // The default as a scenario would write it: "1.024 ms", "proportional", "false"; "(none)" for a Text without one.
  std::string default_text() const;
  // A Number's bounds, e.g. "1 us to 10 s", "at least 0 s"; "" when unbounded or not a number.
  std::string range_text() const;
};

// Readable declarations. A choice's default is its first word.
ParamSpec number_param(std::string owner, std::string name, units::Dim dim, double default_value, double min,
                       double max, std::string help, std::string source);
ParamSpec choice_param(std::string owner, std::string name, std::vector<std::string> words, std::string help,
                       std::string source);
ParamSpec text_param(std::string owner, std::string name, std::string default_word, std::string help,
                     std::string source);
ParamSpec flag_param(std::string owner, std::string name, bool default_flag, std::string help, std::string source);
// The same parameter, set per tenant (tenants[].share).
ParamSpec per_tenant(ParamSpec p);

// Resolved parameter values of one model (or one tenant's per-tenant ones), by name, in SI. Every declared
// parameter is present once resolved; asking for one that is not is a bug.
class ParamValues {
 public:
  ParamValues() = default;
  static ParamValues defaults(const std::vector<ParamSpec>& specs);

  double get(const std::string& name) const;
  void set(const std::string& name, double value);
  const std::string& word(const std::string& name) const;  // Choice or Text
  void set_word(const std::string& name, const std::string& word);
  bool flag(const std::string& name) const;
  void set_flag(const std::string& name, bool value);
  bool has(const std::string& name) const;

 private:
  std::map<std::string, double> numbers_;
  std::map<std::string, std::string> words_;
  std::map<std::string, bool> flags_;
};

// Fitted values of number parameters by qualified name (e.g. "timeslice.slice"), as a calibration file holds them.
using ParamOverrides = std::map<std::string, double>;

// The defaults of `specs`, with every Number parameter whose qualified name `overrides` holds set to that value.
ParamValues with_overrides(const std::vector<ParamSpec>& specs, const ParamOverrides& overrides);

}  // namespace vgpusim
