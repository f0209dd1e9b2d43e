// A private MPS control daemon (own pipe and log directories under /tmp) for the MPS co-run form.
// The daemon is told to quit with `echo quit | nvidia-cuda-mps-control` under the same two directory variables.
#include "hwcal/mps_daemon.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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
  const CommandResult quit = run_command({control_path_}, environment_, "quit\n", kCommandTimeout_s);
  const std::string log_directory = root_ + "/log";
  // Quit is asynchronous: wait, bounded, until the daemon no longer answers.
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(kStopWait_s * 1e9);
  bool answers = daemon_answers(control_path_, environment_);
  while (answers && monotonic_ns() < end_ns) {
    usleep(200000);
    answers = daemon_answers(control_path_, environment_);
  }
  if (answers) {
    emergency_mps_stop();  // last resort: quit once more, the way the signal handler would (disarms)
  } else {
    disarm_emergency_mps_stop();
  }
  out.set("quit_exit_status", quit.exit_status);
  out.set("quit_output", quit.output);
  out.set("stopped", !answers);
  out.set("control_log_tail", tail_of_file(log_directory + "/control.log", 2000));
  out.set("server_log_tail", tail_of_file(log_directory + "/server.log", 2000));
  std::error_code ignored;
  if (!answers) std::filesystem::remove_all(root_, ignored);  // else keep the logs for a person to read
  return out;
}

}  // namespace vgpusim::hwcal
