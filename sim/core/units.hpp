// Physical units: the one place where scenario text such as "80GiB", "2ms" or "$1.20/h" becomes an SI double,
// and where SI doubles are formatted back for people.
#pragma once

#include <limits>
#include <string>
#include <string_view>

namespace vgpusim::units {

// Binary multiples of a byte.
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * kKiB;
inline constexpr double kGiB = 1024.0 * kMiB;
// A value that is not known or does not exist (NaN).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What a value measures. Every value inside vgpusim is stored in the SI (or plain) unit named here.
enum class Dim {
  Count,      // plain number, no unit
  Bytes,      // bytes
  Time,       // seconds
  Bandwidth,  // bytes per second ("100Gbps" is converted from bits)
  Frequency,  // hertz
  Flops,      // floating-point operations
  FlopRate,   // floating-point operations per second
  Ratio,      // plain fraction; "25%" = 0.25
  Money,      // US dollars
  MoneyRate,  // US dollars per second ("$1.20/h" = 1.2/3600)
  Power,      // watts
  Rate,       // events per second ("40/s", "2400/min")
};

// A short name for messages and docs, e.g. "time" or "bandwidth".
std::string_view dim_name(Dim dim);
// The same without its article, e.g. "time", "amount of floating-point work": a type name in tables.
std::string_view dim_noun(Dim dim);
// An example of accepted text, e.g. "2ms" for Dim::Time.
std::string_view dim_example(Dim dim);

struct ParseResult {
  bool ok = false;
  double value = 0.0;  // SI
  std::string error;   // "expected a time such as '2ms'" when !ok
};

// Parses `text` as a quantity of dimension `dim`. Dimensioned quantities need their unit (a bare "120" for a
// time is refused, since seconds vs milliseconds is the classic mistake); Count and Ratio accept plain numbers.
ParseResult parse(std::string_view text, Dim dim);

// Formats an SI value for people with a fitting prefix and 4 significant digits, e.g. 0.002 s -> "2 ms",
// 85899345920 B -> "80 GiB", 4.8e12 B/s -> "4.8 TB/s".
std::string format(double si, Dim dim);

}  // namespace vgpusim::units
