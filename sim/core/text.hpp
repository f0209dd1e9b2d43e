// Small text helpers shared by the readers and the models.
#pragma once

#include <string_view>

namespace vgpusim {

// Whether `part` occurs in `text`.
inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

}  // namespace vgpusim
