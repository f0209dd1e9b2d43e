// Child processes for the multi-process experiments: spawn this program again, talk over pipes, never wait forever.
// Between fork and exec only async-signal-safe calls run: the CUDA runtime's threads make the parent multithreaded.
#include "hwcal/subprocess.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hwcal/check.hpp"
#include "hwcal/experiment.hpp"

extern char** environ;

namespace vgpusim::hwcal {
namespace {

constexpr std::size_t kMaxChildren = 32;
std::array<std::atomic<pid_t>, kMaxChildren> g_children{};

void register_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}

void unregister_child(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

// Strings and the pointer arrays into them, built before fork so the child only calls execve.
struct ExecImage {
  std::vector<std::string> argument_storage, environment_storage;
  std::vector<char*> argv, envp;

  ExecImage(const std::vector<std::string>& arguments, const std::vector<std::string>& extra_environment)
      : argument_storage(arguments) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string text(*entry);
      const std::string name = text.substr(0, text.find('='));
      bool replaced = false;
      for (const std::string& extra : extra_environment) {
        if (extra.substr(0, extra.find('=')) == name) replaced = true;
      }
      if (!replaced) environment_storage.push_back(text);
    }
    environment_storage.insert(environment_storage.end(), extra_environment.begin(), extra_environment.end());
    for (auto& argument : argument_storage) argv.push_back(argument.data());
    argv.push_back(nullptr);
    for (auto& entry : environment_storage) envp.push_back(entry.data());
    envp.push_back(nullptr);
  }
};

std::string wait_status_text(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

void sleep_ms(long milliseconds) {
  timespec pause{milliseconds / 1000, (milliseconds % 1000) * 1000000L};
  nanosleep(&pause, nullptr);
}

// Emergency MPS stop state: fixed storage, readable from a signal handler.
std::atomic<bool> g_mps_armed{false};
std::vector<std::string> g_mps_env_storage;
std::vector<char*> g_mps_envp;
std::string g_mps_control;

void on_termination(int signal_number) {
  for (auto& slot : g_children) {
    const pid_t pid = slot.load();
    if (pid > 0) kill(pid, SIGKILL);
  }
  emergency_mps_stop();
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

}  // namespace

ChildProcess::ChildProcess(const std::string& executable, const std::vector<std::string>& arguments,
                           const std::vector<std::string>& extra_environment) {
  std::vector<std::string> full_arguments{executable};
  full_arguments.insert(full_arguments.end(), arguments.begin(), arguments.end());
  ExecImage image(full_arguments, extra_environment);
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) throw HwcalError(std::string("pipe2: ") + std::strerror(errno));
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    throw HwcalError(std::string("pipe2: ") + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    execve(image.argv[0], image.argv.data(), image.envp.data());
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  if (pid < 0) {
    close(to_child[1]);
    close(from_child[0]);
    throw HwcalError(std::string("fork: ") + std::strerror(errno));
  }
  pid_ = pid;
  to_child_ = to_child[1];
  from_child_ = from_child[0];
  register_child(pid);
}

ChildProcess::~ChildProcess() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (!reaped_) kill_and_reap();
}

void ChildProcess::kill_and_reap() {
  if (pid_ <= 0 || reaped_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  unregister_child(pid_);
}

void ChildProcess::send_line(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = write(to_child_, text.data() + sent, text.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HwcalError("child " + std::to_string(pid_) + " closed its input: " + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
}

bool ChildProcess::try_send_line(const std::string& line) noexcept {
  if (to_child_ < 0) return false;
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = write(to_child_, text.data() + sent, text.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the child exited (SIGPIPE is ignored, see install_termination_handlers)
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string ChildProcess::read_line(double timeout_s) {
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  while (true) {
    const std::size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return line;
    }
    const std::int64_t left_ns = end_ns - monotonic_ns();
    if (left_ns <= 0) {
      throw HwcalError("child " + std::to_string(pid_) + " did not answer within " + std::to_string(timeout_s) +
                       " s");
    }
    pollfd watch{from_child_, POLLIN, 0};
    const int ready = poll(&watch, 1, static_cast<int>(std::min<std::int64_t>(left_ns / 1000000 + 1, 1000)));
    if (ready < 0 && errno != EINTR) throw HwcalError(std::string("poll: ") + std::strerror(errno));
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = read(from_child_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int status = 0;
      std::string how = "still running";
      for (int i = 0; i < 100; ++i) {  // give it 1 s to finish dying, for a useful message
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          reaped_ = true;
          unregister_child(pid_);
          how = wait_status_text(status);
          break;
        }
        sleep_ms(10);
      }
      throw HwcalError("child " + std::to_string(pid_) + " closed its output (" + how + ")");
    }
    pending_.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string ChildProcess::read_reply(double timeout_s) {
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  while (true) {
    const double left_s = static_cast<double>(end_ns - monotonic_ns()) * 1e-9;
    std::string line = read_line(std::max(left_s, 0.001));
    for (const char* verb : {"ready ", "done ", "result ", "error "}) {
      if (line.rfind(verb, 0) == 0) return line;
    }
    progress("child " + std::to_string(pid_) + " printed: " + line);
  }
}

std::string ChildProcess::finish(double timeout_s) {
  if (to_child_ >= 0) {
    close(to_child_);
    to_child_ = -1;
  }
  if (reaped_) return "already reaped";
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  int status = 0;
  while (monotonic_ns() < end_ns) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      unregister_child(pid_);
      return wait_status_text(status);
    }
    sleep_ms(10);
  }
  kill_and_reap();
  return "killed after " + std::to_string(timeout_s) + " s";
}

CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& extra_environment,
                          const std::string& stdin_text, double timeout_s) {
  CommandResult result;
  char output_path[] = "/tmp/vgpusim-hwcal-command-XXXXXX";
  const int output_fd = mkstemp(output_path);
  if (output_fd < 0) throw HwcalError(std::string("mkstemp: ") + std::strerror(errno));
  // Output goes to a file, not a pipe: a daemon started by the command may keep its stdout open forever.
  ExecImage image(argv, extra_environment);
  int input[2];
  if (pipe2(input, O_CLOEXEC) != 0) {
    close(output_fd);
    unlink(output_path);
    throw HwcalError(std::string("pipe2: ") + std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(input[0], STDIN_FILENO);
    dup2(output_fd, STDOUT_FILENO);
    dup2(output_fd, STDERR_FILENO);
    execve(image.argv[0], image.argv.data(), image.envp.data());
    _exit(127);
  }
  close(input[0]);
  close(output_fd);
  if (pid < 0) {
    close(input[1]);
    unlink(output_path);
    throw HwcalError(std::string("fork: ") + std::strerror(errno));
  }
  register_child(pid);
  if (!stdin_text.empty()) {
    const ssize_t written = write(input[1], stdin_text.data(), stdin_text.size());
    static_cast<void>(written);  // a command that ignores its input may have closed it
  }
  close(input[1]);
  const std::int64_t end_ns = monotonic_ns() + static_cast<std::int64_t>(timeout_s * 1e9);
  int status = 0;
  bool exited = false;
  while (!exited && monotonic_ns() < end_ns) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
    } else {
      sleep_ms(10);
    }
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    result.timed_out = true;
  }
  unregister_child(pid);
  if (exited && WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  std::ifstream output(output_path);
  std::ostringstream text;
  text << output.rdbuf();
  result.output = text.str().substr(0, 65536);
  unlink(output_path);
  return result;
}

std::optional<std::string> find_on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream directories(path);
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    if (directory.empty()) continue;
    const std::string candidate = directory + "/" + std::string(program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::vector<pid_t> find_processes(std::string_view comm_prefix, const std::string& environment_entry) {
  std::vector<pid_t> out;
  const pid_t self = getpid();
  std::error_code error;
  std::filesystem::directory_iterator entries("/proc", error);
  for (; !error && entries != std::filesystem::directory_iterator(); entries.increment(error)) {
    const std::filesystem::directory_entry& entry = *entries;
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    std::ifstream comm_file(entry.path() / "comm");
    std::string comm;
    if (!std::getline(comm_file, comm) || comm.rfind(comm_prefix, 0) != 0) continue;
    std::ifstream environ_file(entry.path() / "environ", std::ios::binary);  // unreadable for other users
    std::string variable;
    while (std::getline(environ_file, variable, '\0')) {
      if (variable == environment_entry) {
        out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

bool process_exists(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM); }

std::optional<ProcessIdentity> process_identity(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(stat_file, stat)) return std::nullopt;
  // "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so it ends at the last ')'.
  const std::size_t open = stat.find('(');
  const std::size_t close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string state, skipped;
  fields >> state;
  for (int field = 4; field < 22; ++field) fields >> skipped;  // ppid ... priority, nice, threads, itrealvalue
  ProcessIdentity out;
  fields >> out.start_ticks;  // field 22
  if (fields.fail() || state == "Z") return std::nullopt;
  out.pid = pid;
  out.comm = stat.substr(open + 1, close - open - 1);
  return out;
}

bool still_running(const ProcessIdentity& process) {
  const std::optional<ProcessIdentity> now = process_identity(process.pid);
  return now && now->comm == process.comm && now->start_ticks == process.start_ticks;
}

std::string self_executable() {
  char path[PATH_MAX + 1] = {};
  const ssize_t n = readlink("/proc/self/exe", path, PATH_MAX);
  if (n <= 0) throw HwcalError(std::string("readlink /proc/self/exe: ") + std::strerror(errno));
  return std::string(path, static_cast<std::size_t>(n));
}

void install_termination_handlers() {
  signal(SIGPIPE, SIG_IGN);  // a dead child's pipe must give EPIPE, not kill the parent
  struct sigaction action{};
  action.sa_handler = on_termination;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : {SIGTERM, SIGINT, SIGHUP, SIGABRT}) sigaction(signal_number, &action, nullptr);
  std::atexit(emergency_mps_stop);
}

void arm_emergency_mps_stop(const std::string& control_path, const std::vector<std::string>& environment) {
  g_mps_armed = false;
  g_mps_control = control_path;
  g_mps_env_storage = environment;
  for (const char* name : {"PATH", "LD_LIBRARY_PATH"}) {
    if (const char* value = std::getenv(name)) g_mps_env_storage.push_back(std::string(name) + "=" + value);
  }
  g_mps_envp.clear();
  for (auto& entry : g_mps_env_storage) g_mps_envp.push_back(entry.data());
  g_mps_envp.push_back(nullptr);
  g_mps_armed = true;
}

void disarm_emergency_mps_stop() { g_mps_armed = false; }

void emergency_mps_stop() {
  if (!g_mps_armed.exchange(false)) return;
  int input[2];
  if (pipe(input) != 0) return;
  char* argv[] = {g_mps_control.data(), nullptr};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(input[0], STDIN_FILENO);
    close(input[0]);
    close(input[1]);
    execve(argv[0], argv, g_mps_envp.data());
    _exit(127);
  }
  close(input[0]);
  if (pid > 0) {
    const ssize_t written = write(input[1], "quit\n", 5);
    static_cast<void>(written);
  }
  close(input[1]);
  if (pid <= 0) return;
  for (int i = 0; i < 1000; ++i) {  // up to 10 s
    if (waitpid(pid, nullptr, WNOHANG) == pid) return;
    sleep_ms(10);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

std::optional<std::string> read_parent_line() {
  static std::string pending;
  while (true) {
    const std::size_t newline = pending.find('\n');
    if (newline != std::string::npos) {
      std::string line = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      return line;
    }
    char buffer[1024];
    const ssize_t n = read(STDIN_FILENO, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    pending.append(buffer, static_cast<std::size_t>(n));
  }
}

void write_parent_line(const std::string& line) {
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = write(STDOUT_FILENO, text.data() + sent, text.size() - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; PR_SET_PDEATHSIG ends us
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace vgpusim::hwcal
