// Reads PyTorch profiler (Kineto) Chrome-trace JSON (.json or .json.gz) into a KinetoTrace.
#pragma once

#include <optional>
#include <cstddef>
#include <string>

#include "models/workload/trace_replay.hpp"

namespace vgpusim {

// Reads a Kineto trace (.json or .json.gz) and keeps the GPU ops of `device` (default: the device with the most
// kernels). Memory stays bounded by the GPU ops: other events are dropped while parsing. A trace that holds more
// than `max_bytes` once decompressed (default 1 GiB; real traces are tens to hundreds of MiB) is refused. Throws TraceError.
KinetoTrace read_kineto_trace(const std::string& path, std::optional<int> device = std::nullopt,
                              size_t max_bytes = size_t{1} << 30);

}  // namespace vgpusim
