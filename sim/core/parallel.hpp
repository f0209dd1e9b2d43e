// Independent jobs on threads: the plan's candidates and a sweep's combinations.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace vgpusim {

// Calls job(i) for every i in [0, n) on up to `threads` threads (this one included; never more than n), each
// index once. A thread the system refuses leaves the work to those started. The first exception a job throws is
// rethrown here once every thread has stopped (the other jobs still run).
template <typename Job>
void run_parallel(size_t n, unsigned threads, const Job& job) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const size_t wanted = std::min<size_t>(std::max(1u, threads), std::max<size_t>(1, n));
  for (size_t t = 1; t < wanted; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace vgpusim
