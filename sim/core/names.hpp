// "Did you mean": the closest known name to a misspelt one, for every message that refuses a name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vgpusim {

// Levenshtein distance (insertions, deletions, substitutions).
size_t edit_distance(std::string_view a, std::string_view b);
// Closest candidate within a small edit distance (at most a third of the word's length, and at least 2), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);
// "; did you mean 'x'?" for the closest candidate, or "" when none is close: to append to a message.
std::string did_you_mean_suffix(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace vgpusim
