// Files built into the program (tools/cmake/embed_files.cmake), so that it runs without the source tree.
#pragma once

namespace vgpusim {

struct EmbeddedFile {
  const char* path;  // relative to the repository root, e.g. "models/calibration/h200.yaml"
  const char* text;
};

}  // namespace vgpusim
