// Files in and out: whole text files read in one go, and outputs written atomically (a temporary file, then a
// rename), so that a reader never sees half a file and a failed run leaves no partial output.
#pragma once

#include <cstddef>
#include <string>

namespace vgpusim {

// The most a text input (scenario, calibration, raw, plan shard) may hold.
inline constexpr size_t kMaxTextFile = size_t{64} << 20;

// The whole file as text. Throws InputError "PATH: cannot open the WHAT" when it cannot be read, and when it is
// not a regular file (a directory, /dev/zero) or holds more than kMaxTextFile bytes.
std::string read_text_file(const std::string& path, const std::string& what);

// Writes `content` to `dir/name` through a temporary file and a rename, so a reader never sees half a file.
// Creates `dir` if needed. Throws std::runtime_error on failure.
void write_atomically(const std::string& dir, const std::string& name, const std::string& content);
// The same for a path "dir/name" ("name" alone: the current directory).
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace vgpusim
