#include "paimon_rowid/rowid/read_by_row_id.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "arrow/api.h"

namespace paimon_rowid {
namespace {

constexpr const char* kStaleContext =
    "the planner snapshot is stale or the row ids come from a different table.";

// Streams the planned groups in plan order, reading up to `threads` groups at once on its
// own worker threads (started on the first ReadNext). Workers run at most `window` groups
// ahead of the consumer, so memory is bounded by the window, not by the plan.
class PlannedGroupReader : public arrow::RecordBatchReader {
 public:
  PlannedGroupReader(std::shared_ptr<const RowIdRead> read, std::shared_ptr<arrow::Schema> schema,
                     std::vector<std::pair<size_t, std::vector<RowRange>>> plan, int threads)
      : read_(std::move(read)),
        schema_(std::move(schema)),
        plan_(std::move(plan)),
        results_(plan_.size()),
        threads_(std::max(1, std::min<int>(threads, static_cast<int>(plan_.size())))),
        window_(2 * static_cast<size_t>(threads_)) {}

  ~PlannedGroupReader() override { Stop(); }

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    *out = nullptr;
    while (consumed_ < plan_.size()) {
      const size_t i = consumed_;
      Result<std::shared_ptr<arrow::RecordBatch>> result;
      if (threads_ == 1) {
        result = read_->ReadGroup(plan_[i].first, plan_[i].second);
      } else {
        if (workers_.empty()) Start();
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return results_[i].has_value(); });
        result = std::move(*results_[i]);
        results_[i].reset();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++consumed_;
      }
      cv_.notify_all();
      if (!result.ok()) {
        Stop();
        consumed_ = plan_.size();
        return result.status();
      }
      if (*result && (*result)->num_rows() > 0) {
        *out = std::move(*result);
        return Status::OK();
      }
    }
    Stop();
    return Status::OK();
  }

 private:
  void Start() {
    for (int t = 0; t < threads_; ++t) workers_.emplace_back([this] { Work(); });
  }

  void Work() {
    while (true) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] {
          return stop_ || started_ >= plan_.size() || started_ < consumed_ + window_;
        });
        if (stop_ || started_ >= plan_.size()) return;
        i = started_++;
      }
      auto result = read_->ReadGroup(plan_[i].first, plan_[i].second);
      {
        std::lock_guard<std::mutex> lock(mu_);
        results_[i] = std::move(result);
      }
      cv_.notify_all();
    }
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::shared_ptr<const RowIdRead> read_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<std::pair<size_t, std::vector<RowRange>>> plan_;
  std::vector<std::optional<Result<std::shared_ptr<arrow::RecordBatch>>>> results_;
  const int threads_;
  const size_t window_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> workers_;
  size_t started_ = 0;   // next plan index a worker takes (guarded by mu_)
  size_t consumed_ = 0;  // next plan index ReadNext returns (written under mu_)
  bool stop_ = false;
};

}  // namespace

Result<std::shared_ptr<RowIdRead>> RowIdRead::Make(std::shared_ptr<const Table> table,
                                                   std::vector<std::string> projection,
                                                   std::shared_ptr<const RowIdIndex> index) {
  if (std::find(projection.begin(), projection.end(), system_fields::kRowId) == projection.end()) {
    projection.push_back(system_fields::kRowId);
  }
  std::shared_ptr<RowIdRead> out(new RowIdRead());
  ReadOptions options;
  options.fields = std::move(projection);
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
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::make_shared<PlannedGroupReader>(shared_from_this(), read_->output_schema(),
                                              std::move(plan), threads);
}

}  // namespace paimon_rowid
