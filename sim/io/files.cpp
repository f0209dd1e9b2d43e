// Whole-file reads, and atomic writes through a temporary file in the target directory and a rename.
#include "sim/io/files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "sim/core/errors.hpp"

namespace vgpusim {

std::string read_text_file(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status))
    throw InputError(fmt::format("{}: the {} is not a regular file ({})", path, what,
                                 fs::is_directory(status) ? "a directory" : "a device, pipe or socket"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the {}", path, what));
  // Read at most the limit (and one byte more, to tell a file that is over it).
  std::string text(kMaxTextFile + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxTextFile)
    throw InputError(fmt::format("{}: the {} is over the {} MiB that text inputs may hold", path, what,
                                 kMaxTextFile >> 20));
  return text;
}

void write_atomically(const std::string& dir, const std::string& name, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create directory {}: {}", dir, ec.message()));
  const fs::path final_path = fs::path(dir) / name;
  const fs::path tmp = fs::path(dir) / fmt::format(".{}.tmp.{}", name, static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("cannot write {}", tmp.string()));
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(
        fmt::format("cannot rename {} to {}: {}", tmp.string(), final_path.string(), ec.message()));
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return write_atomically(".", path, content);
  write_atomically(slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1), content);
}

}  // namespace vgpusim
