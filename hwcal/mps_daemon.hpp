// A private MPS control daemon (own pipe and log directories under /tmp) for the MPS co-run form.
// It is always stopped: by stop(), the destructor, atexit, or the termination signal handler.
#pragma once

#include <string>
#include <vector>

#include "hwcal/json.hpp"

namespace vgpusim::hwcal {

class MpsDaemon {
 public:
  // Starts `control_path -d`; throws HwcalError (after cleaning up) when the daemon does not come up.
  explicit MpsDaemon(std::string control_path);
  ~MpsDaemon();
  MpsDaemon(const MpsDaemon&) = delete;
  MpsDaemon& operator=(const MpsDaemon&) = delete;

  // CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY, for the clients.
  const std::vector<std::string>& client_environment() const { return environment_; }
  // Sends quit, waits for the daemon to go, removes the directories. Idempotent.
  // Returns {"quit_exit_status", "stopped", "control_log_tail", "server_log_tail"}.
  Json stop();

 private:
  std::string control_path_;
  std::string root_;  // mkdtemp directory holding pipe/ and log/
  std::vector<std::string> environment_;
  bool running_ = false;
};

}  // namespace vgpusim::hwcal
