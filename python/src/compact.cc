// Data-evolution compaction (maint/compact.h): the embedded driver, and the pieces a Ray
// driver composes (plan, one group per call, the file a group writes, the COMPACT commit).
#include "paimon_rowid/maint/compact.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "common.h"
#include "paimon_rowid/catalog/table.h"

namespace paimon_rowid::python {
namespace {

using MessagePtr = std::shared_ptr<CommitMessage>;
using SplitPtr = std::shared_ptr<DataSplit>;

nb::dict ResultDict(const CompactResult& r) {
  nb::dict out;
  out["snapshot_id"] = r.snapshot_id ? nb::cast(*r.snapshot_id) : nb::none();
  out["groups_total"] = r.groups_total;
  out["groups_compacted"] = r.groups_compacted;
  out["files_removed"] = r.files_removed;
  out["files_written"] = r.files_written;
  out["rows_rewritten"] = r.rows_rewritten;
  out["bytes_before"] = r.bytes_before;
  out["bytes_written"] = r.bytes_written;
  out["attempts"] = r.attempts;
  return out;
}

CompactOptions MakeOptions(bool full, std::optional<int64_t> min_file_num, int threads,
                           std::string commit_user) {
  CompactOptions o;
  o.full = full;
  o.min_file_num = min_file_num;
  o.threads = threads;
  o.commit_user = std::move(commit_user);
  return o;
}

std::vector<CommitMessage> Owned(const std::vector<MessagePtr>& messages) {
  std::vector<CommitMessage> out;
  out.reserve(messages.size());
  for (const auto& m : messages) out.push_back(*m);
  return out;
}

}  // namespace

void RegisterCompact(nb::module_& m) {
  m.def(
      "compact",
      [](std::shared_ptr<Table> table, bool full, std::optional<int64_t> min_file_num, int threads,
         std::string commit_user, ProgressCounter* progress) {
        auto options = MakeOptions(full, min_file_num, threads, std::move(commit_user));
        options.progress = progress;
        auto result = WithoutGil([&] { return Compact(table, options); });
        return ResultDict(result);
      },
      nb::arg("table"), nb::arg("full"), nb::arg("min_file_num").none(), nb::arg("threads"),
      nb::arg("commit_user"), nb::arg("progress").none() = nb::none(),
      "Plans, compacts the due groups on the thread pool and commits one COMPACT snapshot.");
  m.def(
      "plan_compaction",
      [](std::shared_ptr<Table> table, bool full, std::optional<int64_t> min_file_num) {
        auto options = MakeOptions(full, min_file_num, 0, "");
        auto plan = WithoutGil([&] { return PlanCompaction(table, options); });
        std::vector<SplitPtr> groups;
        for (auto& g : plan.groups) groups.push_back(std::make_shared<DataSplit>(std::move(g)));
        return std::make_tuple(plan.snapshot_id, std::move(groups), plan.groups_total);
      },
      nb::arg("table"), nb::arg("full"), nb::arg("min_file_num").none());
  m.def(
      "compact_group",
      [](std::shared_ptr<Table> table, SplitPtr split) {
        auto msg = WithoutGil([&] { return CompactGroup(table, *split); });
        return std::make_shared<CommitMessage>(std::move(msg));
      },
      nb::arg("table"), nb::arg("split"));
  m.def(
      "compacted_file_path",
      [](std::shared_ptr<Table> table, SplitPtr split) {
        return Unwrap(CompactedFilePath(table, *split));
      },
      nb::arg("table"), nb::arg("split"));
  m.def(
      "commit_compaction",
      [](std::shared_ptr<Table> table, const std::vector<MessagePtr>& messages,
         std::string commit_user) {
        auto owned = Owned(messages);
        return WithoutGil([&] { return CommitCompaction(table, owned, commit_user); });
      },
      nb::arg("table"), nb::arg("messages"), nb::arg("commit_user"));
  m.def(
      "compaction_tally",
      [](const std::vector<MessagePtr>& messages) {
        CompactResult r;
        TallyCompaction(Owned(messages), &r);
        return ResultDict(r);
      },
      nb::arg("messages"));
}

}  // namespace paimon_rowid::python
