// Child processes for the multi-process experiments: spawn this program again, talk over pipes, never wait forever.
// Children die with the parent (PR_SET_PDEATHSIG); a signal to the parent kills them and stops a private MPS daemon.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vgpusim::hwcal {

// A child with its stdin and stdout connected to the parent by pipes (line protocol); stderr is inherited.
class ChildProcess {
 public:
  // extra_environment: "NAME=value" entries added to (or replacing those in) this process's environment.
  ChildProcess(const std::string& executable, const std::vector<std::string>& arguments,
               const std::vector<std::string>& extra_environment);
  ~ChildProcess();  // kills (SIGKILL) and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Throws HwcalError when the child closed its input (it exited).
  void send_line(const std::string& line);
  // Best effort, for farewells ("quit"): false, and no throw, when the child is already gone.
  bool try_send_line(const std::string& line) noexcept;
  // The next line without its newline; throws HwcalError on timeout or when the child closed its stdout.
  std::string read_line(double timeout_s);
  // The next protocol line ("ready ...", "done ...", "result ...", "error ..."); other lines (stray library output)
  // are passed to stderr and skipped. Same timeout and errors as read_line.
  std::string read_reply(double timeout_s);
  // Closes the child's stdin, waits up to timeout_s, then kills it; returns the wait status text.
  std::string finish(double timeout_s);

 private:
  void kill_and_reap();
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string pending_;
  bool reaped_ = false;
};

struct CommandResult {
  int exit_status = -1;  // -1: did not exit normally (signal or timeout)
  bool timed_out = false;
  std::string output;    // stdout and stderr, at most 64 KiB
};

// Runs argv[0] (a path) with extra environment entries, feeding stdin_text; kills it after timeout_s.
CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment,
                          const std::string& stdin_text, double timeout_s);

std::optional<std::string> find_on_path(std::string_view program);

// Processes of this user (other than this one) whose /proc/PID/comm starts with `comm_prefix` and whose initial
// environment holds the entry `environment_entry` ("NAME=value"): how a daemon started with a private variable is
// found again. comm is at most 15 characters ("nvidia-cuda-mps" for the MPS control daemon and server).
std::vector<pid_t> find_processes(std::string_view comm_prefix, const std::string& environment_entry);
// Whether `pid` still exists (kill(pid, 0); a zombie counts as existing).
bool process_exists(pid_t pid);
// A process as seen once (from /proc/PID/stat): a later check against its comm and start time is not fooled by the
// pid having been reused.
struct ProcessIdentity {
  pid_t pid = 0;
  std::string comm;
  unsigned long long start_ticks = 0;  // clock ticks after boot
};
// nullopt when `pid` is gone, a zombie, or unreadable.
std::optional<ProcessIdentity> process_identity(pid_t pid);
// Whether that process still runs: same pid, comm and start time, not a zombie.
bool still_running(const ProcessIdentity& process);
std::string self_executable();  // /proc/self/exe resolved

// SIGTERM/SIGINT/SIGHUP/SIGABRT: kill children, run the emergency MPS stop, then die of the same signal.
void install_termination_handlers();

// Set while a private MPS daemon runs: what the signal handler (and atexit) runs to stop it.
void arm_emergency_mps_stop(const std::string& control_path, const std::vector<std::string>& environment);
void disarm_emergency_mps_stop();
// Sends "quit" to the armed daemon (async-signal-safe) and disarms; no-op when disarmed.
void emergency_mps_stop();

// Child side of the line protocol (stdin/stdout of a child process).
std::optional<std::string> read_parent_line();
void write_parent_line(const std::string& line);

}  // namespace vgpusim::hwcal
