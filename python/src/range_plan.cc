// Range-join planning (join/range_plan.h): one side's splits with their key bounds, and the
// cut of both sides into ranges. Bounds cross into Python as pyarrow scalars, None for
// unknown/unbounded.
#include "paimon_rowid/join/range_plan.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

#include "arrow/array.h"
#include "arrow/scalar.h"
#include "common.h"

namespace paimon_rowid::python {

namespace {

struct PyRangeSide {
  std::vector<std::shared_ptr<DataSplit>> splits;
  std::vector<SplitExtent> extents;
};

// A pyarrow scalar (None for a null pointer): exact for every key type (ns timestamps too).
nb::object ToPyScalar(const std::shared_ptr<arrow::Scalar>& scalar) {
  if (scalar == nullptr) return nb::none();
  auto array = Unwrap(arrow::MakeArrayFromScalar(*scalar, 1));
  return ToPyArrow(array)[0];
}

}  // namespace

void RegisterRangePlan(nb::module_& m) {
  nb::class_<PyRangeSide>(m, "RangeSide")
      .def("__len__", [](const PyRangeSide& s) { return s.splits.size(); })
      .def("splits", [](const PyRangeSide& s) { return s.splits; })
      .def("bounds",
           [](const PyRangeSide& s) {
             nb::list out;
             for (const auto& e : s.extents) {
               out.append(nb::make_tuple(ToPyScalar(e.bounds.lo), ToPyScalar(e.bounds.hi)));
             }
             return out;
           })
      .def("rows",
           [](const PyRangeSide& s) {
             std::vector<int64_t> out;
             for (const auto& e : s.extents) out.push_back(e.rows);
             return out;
           })
      .def("bytes", [](const PyRangeSide& s) {
        std::vector<int64_t> out;
        for (const auto& e : s.extents) out.push_back(e.bytes);
        return out;
      });

  m.def(
      "plan_range_side",
      [](std::shared_ptr<Table> table, const std::string& range_column, nb::object predicate) {
        auto filter = ConvertPredicateTuple(predicate);
        auto ranged = WithoutGil([&] { return PlanRangeSide(table, range_column, filter); });
        auto out = std::make_shared<PyRangeSide>();
        for (auto& r : ranged) {
          out->extents.push_back(std::move(r.extent));
          out->splits.push_back(std::make_shared<DataSplit>(std::move(r.split)));
        }
        return out;
      },
      nb::arg("table"), nb::arg("range_column"), nb::arg("partition_filter").none());

  m.def(
      "plan_range_tasks",
      [](const PyRangeSide& left, const PyRangeSide& right, int64_t num_ranges) {
        auto tasks =
            WithoutGil([&] { return PlanRangeTasks(left.extents, right.extents, num_ranges); });
        nb::list out;
        for (const auto& t : tasks) {
          out.append(
              nb::make_tuple(ToPyScalar(t.range.lo), ToPyScalar(t.range.hi), t.left, t.right));
        }
        return out;
      },
      nb::arg("left"), nb::arg("right"), nb::arg("num_ranges"));

  // Test seam (tests/test_range_join.py cross-checks the cut against pypaimon's own code):
  // PlanRangeTasks over synthetic int64-keyed extents (lo, hi, rows, bytes); lo/hi None =
  // unknown. Returns (lo, hi, left indices, right indices) with Python ints or None.
  using Extent = std::tuple<std::optional<int64_t>, std::optional<int64_t>, int64_t, int64_t>;
  m.def(
      "_plan_range_tasks_int64",
      [](const std::vector<Extent>& left, const std::vector<Extent>& right, int64_t num_ranges) {
        auto convert = [](const std::vector<Extent>& side) {
          std::vector<SplitExtent> out;
          for (const auto& [lo, hi, rows, bytes] : side) {
            SplitExtent e;
            if (lo && hi) {
              e.bounds.lo = std::make_shared<arrow::Int64Scalar>(*lo);
              e.bounds.hi = std::make_shared<arrow::Int64Scalar>(*hi);
            }
            e.rows = rows;
            e.bytes = bytes;
            out.push_back(std::move(e));
          }
          return out;
        };
        auto tasks = Unwrap(PlanRangeTasks(convert(left), convert(right), num_ranges));
        auto value = [](const std::shared_ptr<arrow::Scalar>& s) -> nb::object {
          if (s == nullptr) return nb::none();
          return nb::int_(static_cast<const arrow::Int64Scalar&>(*s).value);
        };
        nb::list out;
        for (const auto& t : tasks) {
          out.append(nb::make_tuple(value(t.range.lo), value(t.range.hi), t.left, t.right));
        }
        return out;
      },
      nb::arg("left"), nb::arg("right"), nb::arg("num_ranges"));
}

}  // namespace paimon_rowid::python
