// Declared model parameters. Every constant a model uses is one typed ParamSpec (a number with its unit and bounds,
// a choice among words, a text or a flag; its default, help and source), owned by the model that declares it and
// named `owner.name` wherever it leaves that model (calibration files, `vgpusim list models`, the docs). The same
// declaration drives the scenario loader, calibration files, the model listing and the parameter tables of
// docs/models/*.md.
#pragma once

#include <array>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
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
  bool whole = false;              // Number: a whole number (a count), read as an integer
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
// A whole number (Dim::Count) within inclusive bounds.
ParamSpec whole_param(std::string owner, std::string name, long long default_value, long long min, long long max,
                      std::string help, std::string source);
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
  bool operator==(const ParamValues&) const = default;

 private:
  std::map<std::string, double> numbers_;
  std::map<std::string, std::string> words_;
  std::map<std::string, bool> flags_;
};

// Fitted values of number parameters by qualified name (e.g. "timeslice.slice"), as a calibration file holds them.
using ParamOverrides = std::map<std::string, double>;

// The defaults of `specs`, with every Number parameter whose qualified name `overrides` holds set to that value.
ParamValues with_overrides(const std::vector<ParamSpec>& specs, const ParamOverrides& overrides);

// A model's parameters as a typed struct `T`: each entry binds one ParamSpec to the member of `T` it fills (in the
// style of ns-3's attribute accessors and gem5's generated Params), so a model reads `p.slice` and a misspelled
// name does not compile, while the declaration stays the one source of the parameter's name, default, bounds, help
// and source. A model keeps one table (a function-local static) and reads its struct once, where it is built:
//
//   const ParamTable<TimeSliceTimes>& t = ...;   // .add(&TimeSliceTimes::slice, number_param("timeslice", ...))
//   TimeSliceTimes times = t.read(setup.params);
//
// The struct's members carry no defaults of their own: `defaults()` reads them from the declarations.
template <class T>
class ParamTable {
 public:
  // A Number into a double member.
  ParamTable& add(double T::*member, ParamSpec spec) {
    expect(spec, ParamType::Number, "a number");
    return bind(std::move(spec), [member](T& t, const ParamValues& v, const std::string& n) { t.*member = v.get(n); },
                [member](const T& t, ParamValues& v, const std::string& n) { v.set(n, t.*member); });
  }
  // A whole Number into an int member.
  ParamTable& add(int T::*member, ParamSpec spec) {
    if (spec.type != ParamType::Number || !spec.whole) wrong(spec, "a whole number");
    return bind(
        std::move(spec), [member](T& t, const ParamValues& v, const std::string& n) { t.*member = static_cast<int>(v.get(n)); },
        [member](const T& t, ParamValues& v, const std::string& n) { v.set(n, t.*member); });
  }
  // A Choice or a Text into a string member.
  ParamTable& add(std::string T::*member, ParamSpec spec) {
    if (spec.type != ParamType::Choice && spec.type != ParamType::Text) wrong(spec, "a choice or a text");
    return bind(std::move(spec),
                [member](T& t, const ParamValues& v, const std::string& n) { t.*member = v.word(n); },
                [member](const T& t, ParamValues& v, const std::string& n) { v.set_word(n, t.*member); });
  }
  // A Flag into a bool member.
  ParamTable& add(bool T::*member, ParamSpec spec) {
    expect(spec, ParamType::Flag, "a flag");
    return bind(std::move(spec), [member](T& t, const ParamValues& v, const std::string& n) { t.*member = v.flag(n); },
                [member](const T& t, ParamValues& v, const std::string& n) { v.set_flag(n, t.*member); });
  }
  // A Choice into an enum member whose values 0, 1, ... are the choice's words in their declared order.
  template <class E>
    requires std::is_enum_v<E>
  ParamTable& add(E T::*member, ParamSpec spec) {
    expect(spec, ParamType::Choice, "a choice");
    std::vector<std::string> words = spec.words;
    return bind(
        std::move(spec),
        [member, words](T& t, const ParamValues& v, const std::string& n) {
          const std::string& w = v.word(n);
          for (size_t i = 0; i < words.size(); ++i)
            if (words[i] == w) {
              t.*member = static_cast<E>(i);
              return;
            }
          throw std::logic_error("parameter '" + n + "' holds '" + w + "', which is not one of its words");
        },
        [member, words](const T& t, ParamValues& v, const std::string& n) {
          v.set_word(n, words.at(static_cast<size_t>(t.*member)));
        });
  }
  // A Number into element `i` of an array member (one parameter per op class, say).
  template <size_t N>
  ParamTable& add(std::array<double, N> T::*member, size_t i, ParamSpec spec) {
    expect(spec, ParamType::Number, "a number");
    if (i >= N) throw std::logic_error("parameter '" + spec.qualified() + "' bound past the end of its array");
    return bind(
        std::move(spec), [member, i](T& t, const ParamValues& v, const std::string& n) { (t.*member)[i] = v.get(n); },
        [member, i](const T& t, ParamValues& v, const std::string& n) { v.set(n, (t.*member)[i]); });
  }
  // Another model's table, read into a member (a component the model uses: the contention model inside MPS). Its
  // parameters keep their owner and sit beside this table's under their own names.
  template <class U>
  ParamTable& include(U T::*member, const ParamTable<U>& other) {
    for (const auto& f : other.fields_)
      bind(f.spec, [member, read = f.read](T& t, const ParamValues& v, const std::string& n) { read(t.*member, v, n); },
           [member, write = f.write](const T& t, ParamValues& v, const std::string& n) { write(t.*member, v, n); });
    return *this;
  }

  const std::vector<ParamSpec>& specs() const { return specs_; }
  // Every member from `values`, which must hold every declared parameter (ParamValues::defaults does).
  T read(const ParamValues& values) const {
    T t{};
    for (const Field& f : fields_) f.read(t, values, f.spec.name);
    return t;
  }
  T defaults() const { return read(ParamValues::defaults(specs_)); }
  // The defaults with the Number parameters `overrides` holds (by qualified name) set to those values.
  T with(const ParamOverrides& overrides) const { return read(with_overrides(specs_, overrides)); }
  // The struct's values by name again (a fit that writes what it found; a listing).
  ParamValues values(const T& t) const {
    ParamValues v;
    for (const Field& f : fields_) f.write(t, v, f.spec.name);
    return v;
  }

 private:
  template <class U>
  friend class ParamTable;
  struct Field {
    ParamSpec spec;
    std::function<void(T&, const ParamValues&, const std::string&)> read;
    std::function<void(const T&, ParamValues&, const std::string&)> write;
  };

  ParamTable& bind(ParamSpec spec, std::function<void(T&, const ParamValues&, const std::string&)> read,
                   std::function<void(const T&, ParamValues&, const std::string&)> write) {
    for (const ParamSpec& s : specs_)
      if (s.name == spec.name) throw std::logic_error("parameter '" + spec.qualified() + "' declared twice");
    specs_.push_back(spec);
    fields_.push_back({std::move(spec), std::move(read), std::move(write)});
    return *this;
  }
  static void expect(const ParamSpec& spec, ParamType type, const char* what) {
    if (spec.type != type) wrong(spec, what);
  }
  [[noreturn]] static void wrong(const ParamSpec& spec, const char* what) {
    throw std::logic_error("parameter '" + spec.qualified() + "' is bound to a member that holds " + what);
  }

  std::vector<ParamSpec> specs_;
  std::vector<Field> fields_;
};

}  // namespace vgpusim
