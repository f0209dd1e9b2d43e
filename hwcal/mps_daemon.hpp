// A private MPS control daemon (own pipe and log directories under /tmp) for the MPS co-run form.
// It is always stopped: by stop(), the destructor, atexit, or the termination signal handler.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "hwcal/json.hpp"
#include "hwcal/subprocess.hpp"

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
  // First records the daemon's processes while it still answers (servers included: get_server_list), then sends
  // quit and waits until the daemon no longer answers and none of its processes is left (those found by their
  // environment and those recorded, re-checked by comm and start time). If some remain, quits once more and then
  // kills (SIGTERM, then SIGKILL) the control daemon and its servers by pid; if even that leaves one, the
  // emergency stop is armed again, for atexit and the signal handler to retry. Removes the directories once all
  // are gone. Idempotent. Returns {"quit_exit_status", "quit_output", "daemon_pids", "killed_pids", "stopped",
  // "control_log_tail", "server_log_tail"}.
  Json stop();

 private:
  // The control daemon and servers started under this daemon's pipe directory (found by their environment) and
  // the servers it lists (only while it answers).
  std::vector<pid_t> daemon_processes() const;
  // Those that run now, plus the recorded ones that still run (same comm and start time).
  std::vector<pid_t> live_daemon_processes() const;
  std::vector<pid_t> kill_daemon_processes();   // returns the pids signalled
  void record(const std::vector<pid_t>& pids);  // adds the MPS processes among pids to recorded_

  std::string control_path_;
  std::string root_;  // mkdtemp directory holding pipe/ and log/
  std::vector<std::string> environment_;
  // The daemon processes seen once it answered after the start and at the start of stop(): a server orphaned by
  // the quit is neither listed by the daemon any more nor, if it lacks the variable, found by its environment.
  std::vector<ProcessIdentity> recorded_;
  bool running_ = false;
};

}  // namespace vgpusim::hwcal
