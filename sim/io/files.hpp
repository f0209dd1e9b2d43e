// Files in and out: whole text files read in one go, and outputs written atomically (a temporary file, then a
// rename), so that a reader never sees half a file and a failed run leaves no partial output.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace vgpusim {

// The most a text input (scenario, calibration, raw, plan shard) may hold.
inline constexpr size_t kMaxTextFile = size_t{64} << 20;

// The whole file as text. Throws InputError "PATH: cannot open the WHAT" when it cannot be read, and when it is a
// directory or holds more than kMaxTextFile bytes (a pipe or a device is read up to that).
std::string read_text_file(const std::string& path, const std::string& what);

// An output written to a temporary file beside its final path, not yet in place.
struct StagedFile {
  std::string path;  // final
  std::string tmp;
};
// Writes `content` to a temporary file in `dir` (created if needed) for `dir/name`. Refuses (InputError naming the
// path) a target that exists and is not a regular file (a symbolic link, directory or device is never replaced),
// a directory that cannot be created and a file that cannot be written.
StagedFile stage_file(const std::string& dir, const std::string& name, const std::string& content);
// The same for a path "dir/name" ("name" alone: the current directory).
StagedFile stage_file(const std::string& path, const std::string& content);
// Renames staged files into place, in order; on a failure removes the temporary files not yet renamed and throws
// InputError naming the path.
void commit_staged(const std::vector<StagedFile>& files);
// Removes staged files' temporary files.
void discard_staged(const std::vector<StagedFile>& files);

// Writes every (path, content) all or nothing: each is staged first, and only when all are written are they put in
// place, so an output that cannot be written leaves none of them. Throws InputError naming the path.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

// Writes `content` to `dir/name` through a temporary file and a rename, so a reader never sees half a file.
// Creates `dir` if needed. Throws InputError naming the path on failure.
void write_atomically(const std::string& dir, const std::string& name, const std::string& content);
// The same for a path "dir/name" ("name" alone: the current directory).
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace vgpusim
