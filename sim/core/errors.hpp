// The error every reader throws for bad input (a scenario, a catalog, a trace, a calibration file): the command
// line turns it into exit status 2 and prints what() as it is.
#pragma once

#include <stdexcept>

namespace vgpusim {

// A bad input. what() is the whole message, "FILE:LINE:COL: key.path: ..." where the place is known.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vgpusim
