// Parameter declarations and values: texts for people, defaults, typed access.
#include "sim/core/params.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace vgpusim {
namespace {

[[noreturn]] void undeclared(const std::string& kind, const std::string& name) {
  throw std::logic_error(kind + " parameter '" + name + "' was never declared");
}

ParamSpec declared(std::string owner, std::string name, ParamType type, std::string help, std::string source) {
  ParamSpec p;
  p.owner = std::move(owner);
  p.name = std::move(name);
  p.type = type;
  p.help = std::move(help);
  p.source = std::move(source);
  return p;
}

}  // namespace

std::string ParamSpec::type_text() const {
  switch (type) {
    case ParamType::Number:
      return whole ? "integer" : std::string(units::dim_noun(dim));
    case ParamType::Choice:
      return fmt::format("{}", fmt::join(words, " | "));
    case ParamType::Text:
      return "name";
    case ParamType::Flag:
      return "true | false";
  }
  return "";
}

std::string ParamSpec::default_text() const {
  switch (type) {
    case ParamType::Number:
      return whole ? std::to_string(static_cast<long long>(default_value)) : units::format(default_value, dim);
    case ParamType::Choice:
    case ParamType::Text:
      return default_word.empty() ? "(none)" : default_word;
    case ParamType::Flag:
      return default_flag ? "true" : "false";
  }
  return "";
}

std::string ParamSpec::range_text() const {
  if (type != ParamType::Number) return "";
  if (whole) return fmt::format("{} to {}", static_cast<long long>(min), static_cast<long long>(max));
  const bool low = std::isfinite(min), high = std::isfinite(max);
  if (low && high) return fmt::format("{} to {}", units::format(min, dim), units::format(max, dim));
  if (low) return fmt::format("at least {}", units::format(min, dim));
  if (high) return fmt::format("at most {}", units::format(max, dim));
  return "";
}

ParamSpec number_param(std::string owner, std::string name, units::Dim dim, double default_value, double min,
                       double max, std::string help, std::string source) {
  ParamSpec p = declared(std::move(owner), std::move(name), ParamType::Number, std::move(help), std::move(source));
  p.dim = dim;
  p.default_value = default_value;
  p.min = min;
  p.max = max;
  return p;
}

ParamSpec choice_param(std::string owner, std::string name, std::vector<std::string> words, std::string help,
                       std::string source) {
  ParamSpec p = declared(std::move(owner), std::move(name), ParamType::Choice, std::move(help), std::move(source));
  p.words = std::move(words);
  p.default_word = p.words.empty() ? "" : p.words.front();
  return p;
}

ParamSpec text_param(std::string owner, std::string name, std::string default_word, std::string help,
                     std::string source) {
  ParamSpec p = declared(std::move(owner), std::move(name), ParamType::Text, std::move(help), std::move(source));
  p.default_word = std::move(default_word);
  return p;
}

ParamSpec flag_param(std::string owner, std::string name, bool default_flag, std::string help, std::string source) {
  ParamSpec p = declared(std::move(owner), std::move(name), ParamType::Flag, std::move(help), std::move(source));
  p.default_flag = default_flag;
  return p;
}

ParamSpec whole_param(std::string owner, std::string name, long long default_value, long long min, long long max,
                      std::string help, std::string source) {
  ParamSpec p = number_param(std::move(owner), std::move(name), units::Dim::Count, static_cast<double>(default_value),
                             static_cast<double>(min), static_cast<double>(max), std::move(help), std::move(source));
  p.whole = true;
  return p;
}

ParamSpec per_tenant(ParamSpec p) {
  p.per_tenant = true;
  return p;
}

ParamValues ParamValues::defaults(const std::vector<ParamSpec>& specs) {
  ParamValues v;
  for (const ParamSpec& s : specs) {
    switch (s.type) {
      case ParamType::Number:
        v.numbers_[s.name] = s.default_value;
        break;
      case ParamType::Choice:
      case ParamType::Text:
        v.words_[s.name] = s.default_word;
        break;
      case ParamType::Flag:
        v.flags_[s.name] = s.default_flag;
        break;
    }
  }
  return v;
}

double ParamValues::get(const std::string& name) const {
  const auto it = numbers_.find(name);
  if (it == numbers_.end()) undeclared("number", name);
  return it->second;
}

void ParamValues::set(const std::string& name, double value) { numbers_[name] = value; }

const std::string& ParamValues::word(const std::string& name) const {
  const auto it = words_.find(name);
  if (it == words_.end()) undeclared("choice or text", name);
  return it->second;
}

void ParamValues::set_word(const std::string& name, const std::string& word) { words_[name] = word; }

bool ParamValues::flag(const std::string& name) const {
  const auto it = flags_.find(name);
  if (it == flags_.end()) undeclared("flag", name);
  return it->second;
}

void ParamValues::set_flag(const std::string& name, bool value) { flags_[name] = value; }

bool ParamValues::has(const std::string& name) const {
  return numbers_.count(name) != 0 || words_.count(name) != 0 || flags_.count(name) != 0;
}

ParamValues with_overrides(const std::vector<ParamSpec>& specs, const ParamOverrides& overrides) {
  ParamValues values = ParamValues::defaults(specs);
  for (const ParamSpec& p : specs) {
    if (p.type != ParamType::Number) continue;
    const auto it = overrides.find(p.qualified());
    if (it != overrides.end()) values.set(p.name, it->second);
  }
  return values;
}

}  // namespace vgpusim
