#include "paimon_rowid/rowid/read_by_row_id.h"

#include <algorithm>

#include "arrow/api.h"
#include "paimon_rowid/exec/executor.h"

namespace paimon_rowid {
namespace {

constexpr const char* kStaleContext = kStaleRowIdContext;

using GroupPlan = std::vector<std::pair<size_t, std::vector<RowRange>>>;

// Streams the planned groups in plan order, reading up to `threads` groups at once on the
// shared executor (from the first ReadNext on) and at most 2 x threads ahead of the
// consumer, so memory is bounded by that window, not by the plan. With one thread every
// group is read on the consumer's thread. Groups that select no row are skipped.
class PlannedGroupReader : public arrow::RecordBatchReader {
 public:
  PlannedGroupReader(std::shared_ptr<const RowIdRead> read, std::shared_ptr<arrow::Schema> schema,
                     std::shared_ptr<const GroupPlan> plan, int threads)
      : schema_(std::move(schema)),
        groups_(Executor::Default(), static_cast<int64_t>(plan->size()),
                ThreadsFor(threads, plan->size()), 2 * int64_t{ThreadsFor(threads, plan->size())},
                [read = std::move(read), plan](int64_t i) {
                  return read->ReadGroup((*plan)[i].first, (*plan)[i].second);
                }) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    while (auto next = groups_.Next()) {
      // After an error the map returns nullopt: later calls end the stream cleanly.
      ARROW_ASSIGN_OR_RAISE(auto batch, std::move(*next));
      if (batch && batch->num_rows() > 0) {
        *out = std::move(batch);
        return Status::OK();
      }
    }
    return Status::OK();
  }

 private:
  static int ThreadsFor(int threads, size_t groups) {
    return std::max(1, std::min<int>(threads, static_cast<int>(groups)));
  }

  std::shared_ptr<arrow::Schema> schema_;
  OrderedMap<std::shared_ptr<arrow::RecordBatch>> groups_;
};

}  // namespace

Result<std::shared_ptr<RowIdRead>> RowIdRead::Make(std::shared_ptr<const Table> table,
                                                   std::vector<std::string> projection,
                                                   std::shared_ptr<const RowIdIndex> index,
                                                   const RowIdReadOptions& read_options) {
  if (std::find(projection.begin(), projection.end(), system_fields::kRowId) == projection.end()) {
    projection.push_back(system_fields::kRowId);
  }
  std::shared_ptr<RowIdRead> out(new RowIdRead());
  ReadOptions options;
  options.fields = std::move(projection);
  options.pool = read_options.pool;
  ARROW_ASSIGN_OR_RAISE(out->read_, TableRead::Make(table, std::move(options)));
  out->table_ = std::move(table);
  out->index_ = std::move(index);
  return out;
}

const std::shared_ptr<arrow::Schema>& RowIdRead::output_schema() const {
  return read_->output_schema();
}

Result<std::vector<std::pair<size_t, std::vector<RowRange>>>> RowIdRead::Plan(
    const std::vector<std::shared_ptr<arrow::Array>>& ids) const {
  // Route every id, then sort (group, id) pairs once: runs fall out of the sorted ids.
  std::vector<std::pair<int32_t, int64_t>> routed;
  for (const auto& array : ids) {
    if (array->length() == 0) continue;
    if (array->type_id() != arrow::Type::INT64) {
      return Status::TypeError("row ids must be int64, got ", array->type()->ToString());
    }
    const auto& ints = static_cast<const arrow::Int64Array&>(*array);
    ARROW_ASSIGN_OR_RAISE(auto owners, index_->Route(ints, kStaleContext));
    const int64_t* values = ints.raw_values();
    for (int64_t i = 0; i < ints.length(); ++i) routed.emplace_back(owners[i], values[i]);
  }
  std::sort(routed.begin(), routed.end());
  std::vector<std::pair<size_t, std::vector<RowRange>>> plan;
  for (size_t i = 0; i < routed.size(); ++i) {
    const auto [g, id] = routed[i];
    if (plan.empty() || plan.back().first != static_cast<size_t>(g)) {
      plan.push_back({static_cast<size_t>(g), {}});
    }
    auto& runs = plan.back().second;
    if (!runs.empty() && id <= runs.back().to + 1) {
      runs.back().to = std::max(runs.back().to, id);  // duplicate or adjacent
    } else {
      runs.push_back({id, id});
    }
  }
  return plan;
}

Result<std::shared_ptr<arrow::RecordBatch>> RowIdRead::ReadGroup(
    size_t group, const std::vector<RowRange>& runs) const {
  DataSplit split = index_->SplitOf(group, runs);
  return read_->ReadGroup(split, split.groups[0]);
}

Result<std::shared_ptr<arrow::RecordBatchReader>> RowIdRead::Read(
    const std::vector<std::shared_ptr<arrow::Array>>& ids, int threads) const {
  ARROW_ASSIGN_OR_RAISE(auto plan, Plan(ids));
  threads = Executor::ResolveThreads(threads);
  return std::make_shared<PlannedGroupReader>(shared_from_this(), read_->output_schema(),
                                              std::make_shared<const GroupPlan>(std::move(plan)),
                                              threads);
}

}  // namespace paimon_rowid
