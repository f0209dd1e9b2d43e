// A private MPS control daemon (own pipe and log directories under /tmp) for the MPS co-run form.
// The daemon is told to quit with `echo quit | nvidia-cuda-mps-control` under the same two directory variables.
#include "hwcal/mps_daemon.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "hwcal/check.hpp"
#include "hwcal/experiment.hpp"
#include "hwcal/subprocess.hpp"

namespace vgpusim::hwcal {
namespace {

constexpr double kCommandTimeout_s = 20;
constexpr double kStartWait_s = 10;
constexpr double kStopWait_s = 15;

std::string tail_of_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream file(path);
  if (!file) return "";
  std::ostringstream text;
  text << file.rdbuf();
  const std::string all = text.str();
  return all.size() > max_bytes ? all.substr(all.size() - max_bytes) : all;
}

constexpr double kQueryTimeout_s = 5;
constexpr double kKillWait_s = 5;  // after SIGTERM, before SIGKILL
constexpr const char* kMpsComm = "nvidia-cuda-mps";  // comm (15 characters) of the control daemon and the servers

// The daemon answers get_server_list (exit 0) while it runs; the control client fails when none is there.
bool daemon_answers(const std::string& control_path, const std::vector<std::string>& environment) {
  return run_command({control_path}, environment, "get_server_list\n", kQueryTimeout_s).exit_status == 0;
}

}  // namespace

MpsDaemon::MpsDaemon(std::string control_path) : control_path_(std::move(control_path)) {
  char root[] = "/tmp/vgpusim-hwcal-mps-XXXXXX";
  if (mkdtemp(root) == nullptr) throw HwcalError(std::string("mkdtemp: ") + std::strerror(errno));
  root_ = root;
  const std::string pipe_directory = root_ + "/pipe";
  const std::string log_directory = root_ + "/log";
  if (mkdir(pipe_directory.c_str(), 0700) != 0 || mkdir(log_directory.c_str(), 0700) != 0) {
    std::filesystem::remove_all(root_);
    throw HwcalError(std::string("mkdir under ") + root_ + ": " + std::strerror(errno));
  }
  environment_ = {"CUDA_MPS_PIPE_DIRECTORY=" + pipe_directory, "CUDA_MPS_LOG_DIRECTORY=" + log_directory};
  // Armed before the start: a signal arriving during the start must still stop the daemon.
  arm_emergency_mps_stop(control_path_, environment_);
  running_ = true;
  const CommandResult started = run_command({control_path_, "-d"}, environment_, "", kCommandTimeout_s);
  if (started.exit_status != 0) {
    const std::string output = started.output;
    stop();
    throw HwcalError("'" + control_path_ + " -d' failed (" +
                     (started.timed_out ? std::string("timed out") : "exit " + std::to_string(started.exit_status)) +
                     "): " + output);
  }
  // `-d` returns once it has forked the daemon; wait until the daemon answers.
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(kStartWait_s * 1e9);
  bool answered = daemon_answers(control_path_, environment_);
  while (!answered && monotonic_ns() < end_ns) {
    usleep(100000);
    answered = daemon_answers(control_path_, environment_);
  }
  record(daemon_processes());
  if (!answered) {
    const std::string log = tail_of_file(log_directory + "/control.log", 2000);
    stop();
    throw HwcalError("the MPS control daemon did not answer within " + std::to_string(kStartWait_s) +
                     " s; control.log: " + log);
  }
}

MpsDaemon::~MpsDaemon() {
  try {
    stop();
  } catch (...) {  // a destructor must not throw; stop() already did what it could
  }
}

Json MpsDaemon::stop() {
  Json out = Json::object();
  if (!running_) return out;
  running_ = false;
  // The emergency stop stays armed until the daemon is known to be gone, should anything below throw.
  // Before the quit, while the daemon still answers: its servers are learned only from it.
  record(daemon_processes());
  const CommandResult quit = run_command({control_path_}, environment_, "quit\n", kCommandTimeout_s);
  const std::string log_directory = root_ + "/log";
  // Quit is asynchronous: wait, bounded, until the daemon no longer answers and its processes are gone.
  const auto gone = [&] { return !daemon_answers(control_path_, environment_) && live_daemon_processes().empty(); };
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(kStopWait_s * 1e9);
  bool stopped = gone();
  while (!stopped && monotonic_ns() < end_ns) {
    usleep(200000);
    stopped = gone();
  }
  Json killed = Json::array();
  if (!stopped) {
    emergency_mps_stop();  // quit once more, the way the signal handler would (disarms)
    usleep(500000);
    // Last resort: the daemon's own pids. A daemon that ignores quit must not outlive the run.
    killed = Json(kill_daemon_processes());
    stopped = gone();
    // Something survived even the kill: armed again, so that atexit and the signal handler try once more.
    if (!stopped) arm_emergency_mps_stop(control_path_, environment_);
  } else {
    disarm_emergency_mps_stop();
  }
  std::vector<pid_t> recorded_pids;
  for (const ProcessIdentity& process : recorded_) recorded_pids.push_back(process.pid);
  out["quit_exit_status"] = quit.exit_status;
  out["quit_output"] = quit.output;
  out["daemon_pids"] = Json(recorded_pids);
  out["killed_pids"] = killed;
  out["stopped"] = stopped;
  out["control_log_tail"] = tail_of_file(log_directory + "/control.log", 2000);
  out["server_log_tail"] = tail_of_file(log_directory + "/server.log", 2000);
  std::error_code ignored;
  if (stopped) std::filesystem::remove_all(root_, ignored);  // else keep the logs for a person to read
  return out;
}

std::vector<pid_t> MpsDaemon::daemon_processes() const {
  std::vector<pid_t> pids = find_processes(kMpsComm, environment_.front());  // CUDA_MPS_PIPE_DIRECTORY=...
  // Servers may not carry the variable: take the ones the daemon lists (one pid per line), if they are MPS.
  const CommandResult servers = run_command({control_path_}, environment_, "get_server_list\n", kQueryTimeout_s);
  if (servers.exit_status == 0) {
    std::istringstream lines(servers.output);
    long long pid = 0;
    while (lines >> pid) {
      std::ifstream comm_file("/proc/" + std::to_string(pid) + "/comm");
      std::string comm;
      if (pid > 0 && std::getline(comm_file, comm) && comm.rfind(kMpsComm, 0) == 0) {
        pids.push_back(static_cast<pid_t>(pid));
      }
    }
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

void MpsDaemon::record(const std::vector<pid_t>& pids) {
  for (const pid_t pid : pids) {
    const std::optional<ProcessIdentity> process = process_identity(pid);
    if (!process || process->comm.rfind(kMpsComm, 0) != 0) continue;
    const bool known = std::any_of(recorded_.begin(), recorded_.end(), [&](const ProcessIdentity& other) {
      return other.pid == process->pid && other.start_ticks == process->start_ticks;
    });
    if (!known) recorded_.push_back(*process);
  }
}

std::vector<pid_t> MpsDaemon::live_daemon_processes() const {
  std::vector<pid_t> pids = daemon_processes();
  for (const ProcessIdentity& process : recorded_) {
    if (still_running(process)) pids.push_back(process.pid);
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

std::vector<pid_t> MpsDaemon::kill_daemon_processes() {
  // Found again now, and the recorded ones only if still the same processes: a pid of a process that is gone may
  // have been reused.
  const std::vector<pid_t> pids = live_daemon_processes();
  for (const pid_t pid : pids) kill(pid, SIGTERM);
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(kKillWait_s * 1e9);
  const auto any_left = [&] { return std::any_of(pids.begin(), pids.end(), process_exists); };
  while (any_left() && monotonic_ns() < end_ns) usleep(50000);
  for (const pid_t pid : pids) {
    if (process_exists(pid)) kill(pid, SIGKILL);
  }
  return pids;
}

}  // namespace vgpusim::hwcal
