// CPU test of hwcal's process handling and co-run bookkeeping: farewells to children that already exited, the
// MPS daemon's lookup of processes by their environment and re-check by pid, comm and start time, and a co-run
// pair cut by its budget before any repeat.
// Links the CUDA runtime but calls no CUDA function (ctest hwcal/process_test); exits 1 if a check failed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hwcal/corun.hpp"
#include "hwcal/experiment.hpp"
#include "hwcal/subprocess.hpp"
#include "hwcal/test_checks.hpp"

namespace {

using namespace vgpusim::hwcal;

using vgpusim::hwcal::testing::check;

void sleep_s(double seconds) { sleep_until_monotonic_ns(monotonic_ns() + static_cast<std::int64_t>(seconds * 1e9)); }

std::unique_ptr<ChildProcess> exited_child() {
  auto child = std::make_unique<ChildProcess>("/bin/sh", std::vector<std::string>{"-c", "exit 3"},
                                              std::vector<std::string>{});
  // Until it has exited (so its end of the pipe is closed), however busy the machine; WNOWAIT leaves it unreaped,
  // for finish() to collect its status.
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(child->pid()), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  return child;
}

void test_farewell_to_exited_child() {
  const auto child = exited_child();
  bool threw = false;
  try {
    child->send_line("quit");
  } catch (const HwcalError&) {
    threw = true;
  }
  check(threw, "send_line to an exited child throws (what dropped the later co-run forms)");
  check(!child->try_send_line("quit"), "try_send_line to an exited child says false");
  check(child->finish(5) == "exit status 3", "the exited child is reaped with its status");

  // end_children: one child exited, one alive (cat ends when its input closes); no throw, one note.
  const std::vector<std::string> none;
  std::array<std::unique_ptr<ChildProcess>, 2> children{exited_child(),
                                                        std::make_unique<ChildProcess>("/bin/cat", none, none)};
  std::vector<std::string> notes;
  try {
    notes = end_children(children);
  } catch (const std::exception& failure) {
    check(false, std::string("end_children threw: ") + failure.what());
  }
  check(notes.size() == 1 && notes[0].find("had exited before quit (exit status 3)") != std::string::npos,
        "end_children notes the exited child: " + (notes.empty() ? std::string("(none)") : notes[0]));
}

void test_find_processes() {
  const std::string entry = "VGPUSIM_HWCAL_PROCESS_TEST=" + std::to_string(getpid());
  ChildProcess sleeper("/bin/sleep", {"30"}, {entry});
  std::vector<pid_t> found;
  for (int i = 0; i < 100 && found.empty(); ++i) {  // until it has exec'd sleep (comm changes at exec)
    found = find_processes("sleep", entry);
    if (found.empty()) sleep_s(0.02);
  }
  check(found == std::vector<pid_t>{sleeper.pid()}, "find_processes finds the child by comm and environment");
  check(find_processes("sleep", entry + "0").empty(), "another value of the variable matches nothing");
  check(find_processes("nvidia-cuda-mps", entry).empty(), "another comm matches nothing");
  check(process_exists(sleeper.pid()), "process_exists: running child");
  const std::optional<ProcessIdentity> identity = process_identity(sleeper.pid());
  check(identity && identity->pid == sleeper.pid() && identity->comm == "sleep" && identity->start_ticks > 0,
        "process_identity: pid, comm and start time of the running child");
  check(identity && still_running(*identity), "still_running: running child");
  check(!process_identity(0) && !process_identity(-1), "process_identity: no process for pid 0 or -1");
  const pid_t pid = sleeper.pid();
  kill(pid, SIGKILL);
  // Reaped by its owner, so that its destructor does not signal a pid that may have been reused by then.
  const std::string how = sleeper.finish(5);
  check(how == std::string("killed by signal ") + strsignal(SIGKILL), "finish reports the kill: " + how);
  check(!process_exists(pid), "process_exists: reaped child");
  check(identity && !still_running(*identity), "still_running: reaped child");
}

class FakeExecutor : public PairExecutor {
 public:
  SlotTiming run_alone(int, const WorkloadSpec&) override {
    ++calls;
    return timing(1.0);
  }
  std::array<SlotTiming, 2> run_together(const WorkloadSpec&, const WorkloadSpec&) override {
    ++calls;
    return {timing(2.0), timing(3.0)};
  }
  int calls = 0;

 private:
  static SlotTiming timing(double seconds) {
    SlotTiming out;
    out.device_s = out.host_s = seconds;
    out.device_end_ns = static_cast<std::uint64_t>(seconds * 1e9);
    out.host_end_ns = static_cast<std::int64_t>(seconds * 1e9);
    return out;
  }
};

void test_corun_budget() {
  std::vector<Experiment> emitted;
  RunContext context;
  context.emit = [&](Experiment&& experiment) { emitted.push_back(std::move(experiment)); };
  CorunSetup setup;
  for (std::size_t k = 0; k < setup.solo_full_s.size(); ++k) setup.solo_full_s[k] = {1.0};
  CorunForm form;
  form.form = "streams";
  form.pairs = {{WorkloadKind::compute, WorkloadKind::memory}};
  form.repeats = 2;

  FakeExecutor cut;
  run_corun_form(context, Deadline(0), setup, form, cut);
  check(emitted.size() == 1 && cut.calls == 0, "a pair with no time left runs nothing");
  if (emitted.size() == 1) {
    const Experiment& e = emitted[0];
    check(e.skipped == "time budget used up before the first repeat" && !e.error,
          "a pair cut before its first repeat is skipped, with the reason");
    check(member(e.summary, "slowdown_a") == nullptr, "and writes no null slowdowns");
  }

  emitted.clear();
  FakeExecutor full;
  run_corun_form(context, Deadline(1000), setup, form, full);
  check(emitted.size() == 1 && full.calls == 6, "a pair with time runs its repeats");
  if (emitted.size() == 1) {
    const Json* slowdown = member(emitted[0].summary, "slowdown_a");
    const bool two = slowdown != nullptr && number_of(*slowdown) && std::abs(*number_of(*slowdown) - 2) < 1e-12;
    check(!emitted[0].skipped && two, "and its slowdown is co-run over solo");
  }
}

}  // namespace

int main() {
  signal(SIGPIPE, SIG_IGN);  // as vgpusim-hwcal does (install_termination_handlers)
  test_farewell_to_exited_child();
  test_find_processes();
  test_corun_budget();
  return vgpusim::hwcal::testing::verdict("hwcal process test");
}
