// The CPU tests' check: a failed condition is printed and counted, the test goes on; the count is the verdict.
#pragma once

#include <cstdio>
#include <string>

namespace vgpusim::hwcal::testing {

inline int& failures() {
  static int count = 0;
  return count;
}

inline void check(bool condition, const std::string& what) {
  if (!condition) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures();
  }
}

// Prints the verdict and returns the exit status.
inline int verdict(const char* test) {
  if (failures() == 0) std::printf("%s: all checks passed\n", test);
  return failures() == 0 ? 0 : 1;
}

}  // namespace vgpusim::hwcal::testing
