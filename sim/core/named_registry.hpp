// A registry of named entries (sharing modes, workload kinds, output formats): the built-in ones first, in the
// order their list gives, then those added at run time by a plug-in or a test. References to entries stay valid
// when more are added.
#pragma once

#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vgpusim {

template <typename Entry>
class Registry {
 public:
  // `kind` names an entry in messages ("sharing mode"); `check` throws std::invalid_argument for an entry that
  // cannot work (the registry itself refuses an empty or taken name).
  Registry(std::string kind, std::vector<Entry> builtin, std::function<void(const Entry&)> check)
      : kind_(std::move(kind)), check_(std::move(check)) {
    for (Entry& e : builtin) add(std::move(e));
  }

  const std::deque<Entry>& entries() const { return entries_; }

  // nullptr when unknown.
  const Entry* find(const std::string& name) const {
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  void add(Entry entry) {
    if (entry.name.empty()) throw std::invalid_argument("a " + kind_ + " needs a name");
    if (find(entry.name)) throw std::invalid_argument(kind_ + " '" + entry.name + "' is registered twice");
    if (check_) check_(entry);
    entries_.push_back(std::move(entry));
  }

 private:
  std::string kind_;
  std::function<void(const Entry&)> check_;
  std::deque<Entry> entries_;
};

}  // namespace vgpusim
