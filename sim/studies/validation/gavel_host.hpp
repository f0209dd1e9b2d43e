// The server's CPU while Gavel measured its pairs (sim/studies/validation/gavel.cpp, docs/models/host-cpu.md): the
// profiler's rounds, which other tasks shared a pair's server, and how many threads each job type runs.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace vgpusim::gavel {

// Each job family's runnable data loaders (a job type's name without its batch size -> loaders).
using Loaders = std::map<std::string, double>;

// The loaders each family's code starts (the counts the validation's fit starts from).
Loaders default_loaders();

// The families of these job types in the order the fit visits them: Gavel's job table's, then any other.
std::vector<std::string> fit_families(const std::vector<std::string>& names);

// A job type's runnable threads: its main thread and its data loaders (at most its GPU's share of the server's).
double job_threads(const std::string& name, const Loaders& loaders);

// The profiler's tasks in queue order: every job alone (second empty), then the pairs.
using ProfilerQueue = std::vector<std::pair<std::string, std::string>>;
ProfilerQueue profiler_queue();

// The other tasks of the profiler's round that measured the pair (a, b) of these job types; none where the pair is
// not in the profiler's table (no background known).
ProfilerQueue round_mates(const ProfilerQueue& queue, const std::string& a, const std::string& b);

// The threads of those tasks.
double round_background(const ProfilerQueue& mates, const Loaders& loaders);

}  // namespace vgpusim::gavel
