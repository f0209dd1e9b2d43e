// Whole-file reads, and atomic writes through a temporary file in the target directory and a rename.
#include "sim/io/files.hpp"

#include <fmt/format.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "sim/core/errors.hpp"

namespace vgpusim {

std::string read_text_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(fmt::format("{}: the {} is a directory, not a file", path, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the {}", path, what));
  // Read in chunks up to the limit (a pipe or /dev/zero has no size to ask for first).
  std::string text;
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxTextFile)
      throw InputError(fmt::format("{}: the {} is over the {} MiB that text inputs may hold", path, what,
                                   kMaxTextFile >> 20));
  }
  return text;
}

namespace {
// "dir/name" of a path ("name" alone: the current directory).
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}
}  // namespace

StagedFile stage_file(const std::string& dir, const std::string& name, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path final_path = fs::path(dir) / name;
  if (name.empty()) throw InputError(fmt::format("{}: an output needs a file name, not a directory", dir));
  const fs::file_status existing = fs::symlink_status(final_path, ec);
  if (!ec && fs::exists(existing) && !fs::is_regular_file(existing))
    throw InputError(fmt::format("{}: {} exists there; outputs replace only regular files", final_path.string(),
                                 fs::is_symlink(existing)     ? "a symbolic link"
                                 : fs::is_directory(existing) ? "a directory"
                                                              : "a device, pipe or socket"));
  ec.clear();
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the output directory: {}", dir, ec.message()));
  // A fresh temporary file of its own (O_EXCL: never one planted there, O_NOFOLLOW: never through a link).
  static std::atomic<unsigned long> counter{0};
  const fs::path tmp =
      fs::path(dir) / fmt::format(".{}.tmp.{}.{}", name, static_cast<long>(::getpid()), counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(fmt::format("{}: cannot write the output (in {})", final_path.string(), dir));
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool closed = ::close(fd) == 0;
  if (done < content.size() || !closed) {
    fs::remove(tmp, ec);
    throw InputError(fmt::format("{}: cannot write the output (in {})", final_path.string(), dir));
  }
  return {final_path.string(), tmp.string()};
}

StagedFile stage_file(const std::string& path, const std::string& content) {
  const auto [dir, name] = split_path(path);
  return stage_file(dir, name, content);
}

void commit_staged(const std::vector<StagedFile>& files) {
  namespace fs = std::filesystem;
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    fs::rename(files[i].tmp, files[i].path, ec);
    if (ec) {
      discard_staged({files.begin() + static_cast<std::ptrdiff_t>(i), files.end()});
      throw InputError(fmt::format("{}: cannot put the output in place: {}", files[i].path, ec.message()));
    }
  }
}

void discard_staged(const std::vector<StagedFile>& files) {
  for (const StagedFile& f : files) {
    std::error_code ec;
    std::filesystem::remove(f.tmp, ec);
  }
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<StagedFile> staged;
  try {
    for (const auto& [path, content] : files) staged.push_back(stage_file(path, content));
  } catch (...) {
    discard_staged(staged);
    throw;
  }
  commit_staged(staged);
}

void write_atomically(const std::string& dir, const std::string& name, const std::string& content) {
  commit_staged({stage_file(dir, name, content)});
}

void write_file_atomically(const std::string& path, const std::string& content) {
  commit_staged({stage_file(path, content)});
}

}  // namespace vgpusim
