// Physical units: parsing of unit-bearing scenario text into SI doubles and formatting back for people.
// Decimal prefixes are powers of 1000, binary ones (KiB, MiB, ...) powers of 1024; bits are 1/8 byte.
#include "sim/core/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <utility>
#include <vector>

namespace vgpusim::units {
namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

const std::vector<Suffix>& suffixes(Dim dim) {
  static const std::vector<Suffix> bytes = {
      {"B", 1},        {"KB", 1e3},           {"kB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},     {"TB", 1e12},          {"PB", 1e15},          {"KiB", 1024.0},
      {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"PiB", 1125899906842624.0}};
  static const std::vector<Suffix> bandwidth = [] {
    std::vector<Suffix> v;
    static const std::array<Suffix, 12> byte_units = {{{"B/s", 1},
                                                        {"KB/s", 1e3},
                                                        {"kB/s", 1e3},
                                                        {"MB/s", 1e6},
                                                        {"GB/s", 1e9},
                                                        {"TB/s", 1e12},
                                                        {"KiB/s", 1024.0},
                                                        {"MiB/s", 1048576.0},
                                                        {"GiB/s", 1073741824.0},
                                                        {"TiB/s", 1099511627776.0},
                                                        {"GBps", 1e9},
                                                        {"MBps", 1e6}}};
    static const std::array<Suffix, 10> bit_units = {{{"bps", 1 / 8.0},
                                                      {"Kbps", 1e3 / 8},
                                                      {"kbps", 1e3 / 8},
                                                      {"Mbps", 1e6 / 8},
                                                      {"Gbps", 1e9 / 8},
                                                      {"Tbps", 1e12 / 8},
                                                      {"b/s", 1 / 8.0},
                                                      {"Mb/s", 1e6 / 8},
                                                      {"Gb/s", 1e9 / 8},
                                                      {"Tb/s", 1e12 / 8}}};
    v.insert(v.end(), byte_units.begin(), byte_units.end());
    v.insert(v.end(), bit_units.begin(), bit_units.end());
    return v;
  }();
  static const std::vector<Suffix> time = {{"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ms", 1e-3},
                                           {"s", 1},     {"min", 60},  {"h", 3600},          {"d", 86400}};
  static const std::vector<Suffix> frequency = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
  static const std::vector<Suffix> flops = {{"FLOP", 1},     {"KFLOP", 1e3},  {"MFLOP", 1e6}, {"GFLOP", 1e9},
                                            {"TFLOP", 1e12}, {"PFLOP", 1e15}, {"EFLOP", 1e18}};
  static const std::vector<Suffix> flop_rate = {
      {"FLOPS", 1},      {"KFLOPS", 1e3},  {"MFLOPS", 1e6},  {"GFLOPS", 1e9},    {"TFLOPS", 1e12},
      {"PFLOPS", 1e15},  {"FLOP/s", 1},    {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}};
  static const std::vector<Suffix> ratio = {{"", 1}, {"%", 0.01}};
  static const std::vector<Suffix> count = {{"", 1}};
  static const std::vector<Suffix> power = {{"W", 1}, {"kW", 1e3}, {"MW", 1e6}};
  static const std::vector<Suffix> rate = {{"/s", 1},           {"/ms", 1e3},          {"/min", 1 / 60.0},
                                           {"/h", 1 / 3600.0},  {"/day", 1 / 86400.0}, {"/d", 1 / 86400.0}};
  static const std::vector<Suffix> money = {{"", 1}};
  static const std::vector<Suffix> money_rate = {{"/s", 1},           {"/min", 1 / 60.0},  {"/h", 1 / 3600.0},
                                                 {"/hr", 1 / 3600.0}, {"/hour", 1 / 3600.0}, {"/day", 1 / 86400.0},
                                                 // 730 h per month: the convention of cloud price lists.
                                                 {"/month", 1 / (730.0 * 3600.0)}};
  switch (dim) {
    case Dim::Count: return count;
    case Dim::Bytes: return bytes;
    case Dim::Time: return time;
    case Dim::Bandwidth: return bandwidth;
    case Dim::Frequency: return frequency;
    case Dim::Flops: return flops;
    case Dim::FlopRate: return flop_rate;
    case Dim::Ratio: return ratio;
    case Dim::Money: return money;
    case Dim::MoneyRate: return money_rate;
    case Dim::Power: return power;
    case Dim::Rate: return rate;
  }
  return count;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

ParseResult fail(Dim dim, std::string_view text) {
  ParseResult r;
  if (dim == Dim::Count)
    r.error = fmt::format("expected a number, found '{}'", text);
  else
    r.error = fmt::format("expected {} such as '{}', found '{}'", dim_name(dim), dim_example(dim), text);
  return r;
}

}  // namespace

std::string_view dim_name(Dim dim) {
  switch (dim) {
    case Dim::Count: return "a number";
    case Dim::Bytes: return "a size";
    case Dim::Time: return "a time";
    case Dim::Bandwidth: return "a bandwidth";
    case Dim::Frequency: return "a frequency";
    case Dim::Flops: return "an amount of floating-point work";
    case Dim::FlopRate: return "a floating-point rate";
    case Dim::Ratio: return "a fraction";
    case Dim::Money: return "an amount of money";
    case Dim::MoneyRate: return "a price per time";
    case Dim::Power: return "a power";
    case Dim::Rate: return "a rate";
  }
  return "a value";
}

std::string_view dim_noun(Dim dim) {
  std::string_view name = dim_name(dim);
  for (std::string_view article : {"an ", "a "})
    if (name.substr(0, article.size()) == article) return name.substr(article.size());
  return name;
}

std::string_view dim_example(Dim dim) {
  switch (dim) {
    case Dim::Count: return "8";
    case Dim::Bytes: return "80GiB";
    case Dim::Time: return "2ms";
    case Dim::Bandwidth: return "4.8TB/s";
    case Dim::Frequency: return "1.98GHz";
    case Dim::Flops: return "1.2TFLOP";
    case Dim::FlopRate: return "67TFLOPS";
    case Dim::Ratio: return "25%";
    case Dim::Money: return "$12.50";
    case Dim::MoneyRate: return "$1.20/h";
    case Dim::Power: return "700W";
    case Dim::Rate: return "40/s";
  }
  return "";
}

ParseResult parse(std::string_view text, Dim dim) {
  std::string_view s = trim(text);
  const bool money = dim == Dim::Money || dim == Dim::MoneyRate;
  if (money) {
    if (s.empty() || s.front() != '$') return fail(dim, text);
    s.remove_prefix(1);
  }
  if (dim == Dim::Count && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    // Hexadecimal integers, for register values such as RmPVMRL=0x00180011.
    unsigned long long hex = 0;
    const auto [hend, hec] = std::from_chars(s.data() + 2, s.data() + s.size(), hex, 16);
    if (hec != std::errc() || hend != s.data() + s.size()) return fail(dim, text);
    ParseResult r;
    r.ok = true;
    r.value = static_cast<double>(hex);
    return r;
  }
  double number = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || !std::isfinite(number)) return fail(dim, text);
  const std::string_view unit = trim(std::string_view(end, static_cast<size_t>(s.data() + s.size() - end)));
  for (const Suffix& suffix : suffixes(dim)) {
    if (suffix.text == unit) {
      ParseResult r;
      r.value = number * suffix.factor;
      // A number that overflows once in SI units (1e300TiB) is as bad as one that does not parse.
      if (!std::isfinite(r.value)) return fail(dim, text);
      r.ok = true;
      return r;
    }
  }
  return fail(dim, text);
}

namespace {

struct Prefix {
  double factor;
  std::string_view name;
};

std::string with_prefix(double si, std::string_view base, const std::vector<Prefix>& prefixes) {
  const double mag = std::fabs(si);
  const Prefix* chosen = &prefixes.front();
  for (const Prefix& p : prefixes)
    if (mag >= p.factor * 0.9999995) chosen = &p;
  return fmt::format("{:.4g} {}{}", si / chosen->factor, chosen->name, base);
}

// Function-local tables: format() may run during other files' static initialization (a registry built then).
const std::vector<Prefix>& decimal() {
  static const std::vector<Prefix> p = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}};
  return p;
}
const std::vector<Prefix>& decimal_upper_k() {
  static const std::vector<Prefix> p = {{1, ""}, {1e3, "K"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}};
  return p;
}

// Sizes print with binary prefixes (memory is binary-sized) unless they are a whole number of kilobytes but not of
// MiB, i.e. were written in decimal units ("16GB").
bool prints_binary(double bytes) {
  if (bytes < 1024) return false;
  const bool decimal =
      bytes == std::floor(bytes) && std::fmod(bytes, 1000.0) == 0.0 && std::fmod(bytes, 1048576.0) != 0.0;
  return !decimal;
}

}  // namespace

std::string format(double si, Dim dim) {
  switch (dim) {
    case Dim::Count: return fmt::format("{:.6g}", si);
    case Dim::Bytes:
      if (prints_binary(si))
        return with_prefix(si, "B", {{1, ""}, {1024.0, "Ki"}, {1048576.0, "Mi"}, {1073741824.0, "Gi"},
                                     {1099511627776.0, "Ti"}});
      return with_prefix(si, "B", decimal_upper_k());
    case Dim::Time:
      if (si == 0) return "0 s";
      return with_prefix(si, "s", {{1e-9, "n"}, {1e-6, "u"}, {1e-3, "m"}, {1, ""}});
    case Dim::Bandwidth: return with_prefix(si, "B/s", decimal_upper_k());
    case Dim::Frequency: return with_prefix(si, "Hz", decimal());
    case Dim::Flops: return with_prefix(si, "FLOP", decimal_upper_k());
    case Dim::FlopRate: return with_prefix(si, "FLOPS", decimal_upper_k());
    case Dim::Ratio: return fmt::format("{:.4g}%", si * 100);
    case Dim::Money: return fmt::format("${:.2f}", si);
    case Dim::MoneyRate: return fmt::format("${:.4g}/h", si * 3600);
    case Dim::Power: return with_prefix(si, "W", decimal());
    case Dim::Rate: return fmt::format("{:.4g}/s", si);
  }
  return fmt::format("{}", si);
}

}  // namespace vgpusim::units
