// A strict reader over yaml-cpp nodes: every key it reads must be declared in a Section (the same tables that
// generate docs/scenario-reference.md), unknown keys are errors with a "did you mean", and every error names
// FILE:LINE:COL and the key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/errors.hpp"
#include "sim/core/names.hpp"
#include "sim/core/params.hpp"
#include "sim/core/units.hpp"

namespace vgpusim {

// One key a section accepts, as documented. Its default lives here and nowhere else: the reader uses
// `default_value` when the key is absent, and the reference prints it.
struct KeySpec {
  std::string name;
  std::string type;  // for docs: "time", "string", "list of tenants", ...
  bool required = false;
  // The value used when the key is absent, written as a file would write it ("1", "0 s", "exact"); "" when there is
  // none: the key is required, optional without a value, or its default is computed (then see default_text).
  std::string default_value;
  std::string help;
  std::string default_text = {};  // for docs: a default computed by the reader, e.g. "until every tenant is done"

  // What the reference prints as its default.
  const std::string& documented_default() const { return default_value.empty() ? default_text : default_value; }
};

// A YAML mapping's accepted keys. `path` is the documented location, e.g. "tenants[].workload.training".
struct Section {
  std::string path;
  std::string help;
  std::vector<KeySpec> keys;
  // True when keys are not fixed (e.g. `sharing:` is keyed by GPU id); only the value sections are checked.
  bool open = false;
};

// Where a node came from, for messages: "FILE:LINE:COL" (1-based), or "FILE (--set)" for command-line overrides.
std::string where(const std::string& file, const YAML::Node& node);

[[noreturn]] void fail_at(const std::string& file, const YAML::Node& node, const std::string& path,
                          const std::string& what);

class MapReader {
 public:
  // Fails unless `node` is a mapping.
  MapReader(const std::string& file, const YAML::Node& node, std::string path, const Section& section);

  bool has(const std::string& key) const;
  YAML::Node node(const std::string& key) const;  // must exist (fails naming the missing key and its parent)
  std::string child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  const std::string& file() const { return file_; }

  // Typed values. An absent key takes its KeySpec's default_value; without one it is an error naming the key. A
  // default the reader cannot use (not of the type asked for) is a bug: std::logic_error.
  std::string string(const std::string& key) const;
  std::string choice(const std::string& key, const std::vector<std::string>& choices) const;  // one of `choices`
  double quantity(const std::string& key, units::Dim dim) const;
  long long integer(const std::string& key, long long min, long long max) const;
  bool boolean(const std::string& key) const;
  // A Number parameter under its name, in SI, within its bounds (fails naming them).
  double number_param(const ParamSpec& p) const;

  // Fails on the first key (in file order) that the section does not declare.
  void finish() const;

 private:
  const KeySpec& spec(const std::string& key) const;
  // The node for `key`: the file's, or one made of the key's default value; fails when there is neither.
  YAML::Node value(const std::string& key) const;
  [[noreturn]] void bad_default(const std::string& key, const std::string& why) const;

  std::string file_;
  YAML::Node node_;
  std::string path_;
  const Section& section_;
};

// Parses YAML text; a syntax error becomes an InputError "FILE:LINE:COL: YAML syntax error: ...".
YAML::Node parse_yaml(const std::string& text, const std::string& file);

// A data file's `sources:` mapping (source key -> citation), as the catalogs use.
std::map<std::string, std::string> read_sources(const std::string& file, const YAML::Node& node);

// Reads a scalar node as a quantity, failing with the unit's expectation.
double read_quantity(const std::string& file, const YAML::Node& node, const std::string& path, units::Dim dim);
std::string read_string(const std::string& file, const YAML::Node& node, const std::string& path);

}  // namespace vgpusim
