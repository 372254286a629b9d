#include "system/graph_host.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace xpusim::system {

namespace {

std::size_t index_of(const Scenario& s, const std::string& name) {
  const auto at = std::find_if(s.graph.begin(), s.graph.end(),
                               [&](const ScenarioKernel& x) { return x.name == name; });
  return static_cast<std::size_t>(at - s.graph.begin());
}

}  // namespace

GraphHost::GraphHost(const Scenario& s, const ResolvedScenario& r, std::vector<Workload*> workloads,
                     Chip& chip, const kernel::KernelRegistry& kernels)
    : s_(s),
      r_(r),
      workloads_(std::move(workloads)),
      chip_(chip),
      kernels_(kernels),
      nodes_(s.graph.size()),
      order_(chip.command_processor().queues()),
      next_(order_.size(), 0),
      waiting_(order_.size(), false),
      issuing_(order_.size(), false) {}

Result<std::unique_ptr<GraphHost>> GraphHost::start(const Scenario& s, const ResolvedScenario& r,
                                                    std::vector<Workload*> workloads, Chip& chip,
                                                    const kernel::KernelRegistry& kernels) {
  std::unique_ptr<GraphHost> h(new GraphHost(s, r, std::move(workloads), chip, kernels));
  // Signals first: an entry another waits for through a packet (another queue, or after_any)
  // gets one, before anything is launched.
  for (std::size_t i = 0; i < s.graph.size(); ++i) {
    const ScenarioKernel& g = s.graph[i];
    for (const std::string& dep : g.after) {
      const std::size_t p = index_of(s, dep);
      if (s.graph[p].queue != g.queue && h->nodes_[p].signal == 0) {
        h->nodes_[p].signal = chip.new_signal();
      }
    }
    for (const std::string& dep : g.after_any) {
      const std::size_t p = index_of(s, dep);
      if (h->nodes_[p].signal == 0) h->nodes_[p].signal = chip.new_signal();
    }
    h->order_[g.queue].push_back(i);
  }
  for (std::uint32_t q = 0; q < h->order_.size(); ++q) {
    if (auto st = h->issue(q); !st) return st.errors();
  }
  return h;
}

Status GraphHost::issue(std::uint32_t q) {
  issuing_[q] = true;
  while (!waiting_[q] && next_[q] < order_[q].size()) {
    const std::size_t i = order_[q][next_[q]++];
    if (auto st = issue_node(i); !st) {
      // The queue's host thread stops at its error: this entry and the queue's later ones will
      // never complete, so what waits for them on other queues fails rather than hangs.
      nodes_[i].failed = true;
      for (std::size_t at = next_[q] - 1; at < order_[q].size(); ++at) {
        if (const std::uint64_t sig = nodes_[order_[q][at]].signal; sig != 0) {
          chip_.fail_signal(sig);
        }
      }
      next_[q] = order_[q].size();
      issuing_[q] = false;
      return st;
    }
  }
  issuing_[q] = false;
  return Ok{};
}

Status GraphHost::issue_node(std::size_t i) {
  const ScenarioKernel& g = s_.graph[i];
  Node& n = nodes_[i];
  LaunchOptions first{.queue = g.queue};
  for (const std::string& dep : g.after) {
    const std::size_t p = index_of(s_, dep);
    if (s_.graph[p].queue == g.queue) {
      first.barrier = true;  // in-order queue: the barrier bit waits for every earlier packet
    } else {
      first.wait_all.push_back(nodes_[p].signal);
    }
  }
  for (const std::string& dep : g.after_any)
    first.wait_any.push_back(nodes_[index_of(s_, dep)].signal);
  n.issued = true;
  if (!g.is_workload()) {
    first.completion_signal = n.signal;
    auto id = chip_.launch(*r_.graph[i].kernel, g.launch, r_.graph[i].args, {}, first);
    if (!id) return located(i, id.errors());
    n.launches.push_back(*id);
    return Ok{};
  }
  // A workload: its launches as one group; the queue waits for it to finish.
  waiting_[g.queue] = true;
  const std::uint32_t q = g.queue;
  auto group = chip_.begin_group(
      {.queue = q, .first = std::move(first), .signal = n.signal, .finished = [this, q] {
         waiting_[q] = false;
         if (issuing_[q]) return;  // issue() goes on by itself
         if (auto st = issue(q); !st) {
           errors_.insert(errors_.end(), st.errors().begin(), st.errors().end());
         }
       }});
  if (!group) return located(i, group.errors());
  n.group = *group;
  const Status st = workloads_[i]->setup(chip_, kernels_, r_.graph[i].params);
  chip_.end_group();
  if (!st) return located(i, st.errors());
  return Ok{};
}

std::vector<Error> GraphHost::located(std::size_t i, const std::vector<Error>& errors) const {
  const ScenarioKernel& g = s_.graph[i];
  const config::SourcePos pos = g.is_workload()         ? g.workload_pos
                                : g.launch_pos.line > 0 ? g.launch_pos
                                                        : g.name_pos;
  std::vector<Error> out;
  for (const Error& e : errors)
    out.push_back(s_.error_at(pos, fmt::format("kernels.{}", g.name), e.message));
  return out;
}

std::vector<std::uint32_t> GraphHost::launches(std::size_t i) const {
  const Node& n = nodes_[i];
  if (n.group != ~0u) return chip_.group_launches(n.group);
  return n.launches;
}

bool GraphHost::finished(std::size_t i) const {
  const Node& n = nodes_[i];
  if (!n.issued) return false;
  if (n.group != ~0u) return chip_.group_finished(n.group);
  return !n.launches.empty() && chip_.run(n.launches.front()).done;
}

}  // namespace xpusim::system
