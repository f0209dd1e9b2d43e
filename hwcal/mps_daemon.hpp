// A private MPS control daemon (own pipe and log directories under /tmp) for the MPS co-run form.
// It is always stopped: by stop(), the destructor, atexit, or the termination signal handler.
#pragma once

#include <sys/types.h>

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
  // Sends quit, waits for the daemon to go; if it still answers, quits once more and then kills (SIGTERM, then
  // SIGKILL) the control daemon and its servers by pid. Removes the directories once it is gone. Idempotent.
  // Returns {"quit_exit_status", "quit_output", "daemon_pids", "killed_pids", "stopped", "control_log_tail",
  // "server_log_tail"}.
  Json stop();

 private:
  // The control daemon and servers started under this daemon's pipe directory (found by their environment) and
  // the servers it lists.
  std::vector<pid_t> daemon_processes() const;
  std::vector<pid_t> kill_daemon_processes();  // returns the pids signalled

  std::string control_path_;
  std::string root_;  // mkdtemp directory holding pipe/ and log/
  std::vector<std::string> environment_;
  std::vector<pid_t> started_pids_;  // the daemon processes seen once it answered
  bool running_ = false;
};

}  // namespace vgpusim::hwcal
