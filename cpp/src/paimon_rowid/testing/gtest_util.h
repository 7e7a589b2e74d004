// Status-aware GoogleTest assertions for the C++ unit tests (header-only, linked through
// pr_testing). `EXPECT_TRUE(x.ok())` only says "false" when it fails; these macros print the
// expression and the Status message, so a failing test tells why.
//
//   ASSERT_OK(expr)                   expr is an arrow::Status or an arrow::Result<T>; fails
//   EXPECT_OK(expr)                   (fatally / non-fatally) unless it is OK.
//   ASSERT_OK_AND_ASSIGN(lhs, rexpr)  rexpr is an arrow::Result<T>; fails fatally unless it is
//                                     OK, else moves the value into `lhs` (a declaration such
//                                     as `auto table` or an existing variable).
//   ASSERT_RAISES(code, expr)         fails unless expr's Status has arrow::StatusCode::code,
//   EXPECT_RAISES(code, expr)         e.g. ASSERT_RAISES(Invalid, DataType::Parse("int(")).
//
// ASSERT_OK, EXPECT_OK and the *_RAISES forms accept `<< "more context"` after them, like the
// GoogleTest ones; ASSERT_OK_AND_ASSIGN does not (it expands to statements). The ASSERT_*
// forms return from the enclosing function, so they may only be used in functions returning
// void (GoogleTest's rule). `lhs` of ASSERT_OK_AND_ASSIGN must not contain a bare comma (a
// structured binding needs a variable first).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "arrow/result.h"
#include "arrow/status.h"

namespace paimon_rowid::testing::internal {

inline const arrow::Status& StatusOf(const arrow::Status& status) { return status; }

template <typename T>
const arrow::Status& StatusOf(const arrow::Result<T>& result) {
  return result.status();
}

/// Predicate formatter for ASSERT_OK / EXPECT_OK.
template <typename T>
::testing::AssertionResult IsOk(const char* text, const T& value) {
  const arrow::Status& status = StatusOf(value);
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' failed: " << status.ToString();
}

/// Predicate formatter for ASSERT_RAISES / EXPECT_RAISES.
template <typename T>
::testing::AssertionResult HasCode(const char* code_text, const char* text, arrow::StatusCode code,
                                   const T& value) {
  const arrow::Status& status = StatusOf(value);
  if (status.code() == code) return ::testing::AssertionSuccess();
  // "::arrow::StatusCode::Invalid" -> "Invalid"
  const char* last_colon = std::strrchr(code_text, ':');
  if (last_colon != nullptr) code_text = last_colon + 1;
  if (status.ok()) {
    return ::testing::AssertionFailure()
           << "'" << text << "' succeeded; expected an error with code " << code_text;
  }
  return ::testing::AssertionFailure() << "'" << text << "' failed with " << status.ToString()
                                       << "; expected an error with code " << code_text;
}

}  // namespace paimon_rowid::testing::internal

#define ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::paimon_rowid::testing::internal::IsOk, expr)
#define EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::paimon_rowid::testing::internal::IsOk, expr)

#define ASSERT_RAISES(code, expr) \
  ASSERT_PRED_FORMAT2(::paimon_rowid::testing::internal::HasCode, ::arrow::StatusCode::code, expr)
#define EXPECT_RAISES(code, expr) \
  EXPECT_PRED_FORMAT2(::paimon_rowid::testing::internal::HasCode, ::arrow::StatusCode::code, expr)

#define PR_TESTING_JOIN_INNER(a, b) a##b
#define PR_TESTING_JOIN(a, b) PR_TESTING_JOIN_INNER(a, b)

// The Result lives in a uniquely named local so that several ASSERT_OK_AND_ASSIGN may share
// one scope; it is checked before its value is moved out.
#define PR_ASSERT_OK_AND_ASSIGN_IMPL(result, lhs, rexpr)                             \
  auto result = (rexpr);                                                             \
  if (!result.ok()) FAIL() << "'" #rexpr "' failed: " << result.status().ToString(); \
  lhs = std::move(result).ValueUnsafe()

#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  PR_ASSERT_OK_AND_ASSIGN_IMPL(PR_TESTING_JOIN(_pr_result_, __LINE__), lhs, rexpr)
