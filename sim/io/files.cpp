// Whole-file reads, and atomic writes through a temporary file in the target directory and a rename.
#include "sim/io/files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/core/errors.hpp"

namespace vgpusim {

std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the {}", path, what));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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
