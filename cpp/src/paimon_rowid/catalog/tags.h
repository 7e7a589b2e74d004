// Tag files of a table (docs/tags.md, docs/format.md §7): tag/tag-NAME holds the tagged
// snapshot's JSON — plain snapshot JSON, as Java's TagManager and pypaimon write it, unless a
// retention is given, which adds `tagCreateTime` (Java LocalDateTime array, local wall clock)
// and `tagTimeRetained` (Duration as decimal seconds).
//
// Checks and messages follow pypaimon 2.1.0's FileStoreTable/TagManager (all Invalid, i.e.
// ValueError in Python), in its order: the snapshot is resolved first, then the name.
// A tag file is created with the no-replace primitive (two creators of one name: one wins,
// the other gets "already exists"), replaced with one atomic write, and renamed by writing
// the new name no-replace and then deleting the old one, so a rename never overwrites a tag
// (also on object stores, which have no rename). Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paimon_rowid/catalog/table.h"

namespace paimon_rowid {

/// A tag as a catalog server keeps it: the tagged snapshot's id and its retention as the
/// server spells it (java.time.Duration text, "PT1H"), when it has one.
struct CatalogTag {
  int64_t snapshot_id = 0;
  std::optional<std::string> time_retained;
};

/// A catalog server that keeps a table's tags (the REST catalog's tag endpoints; the table's
/// SnapshotCommit::catalog_tags()). The server writes and deletes the tag files itself.
/// Thread-safety: implementations may be called from any number of threads at once.
class CatalogTags {
 public:
  virtual ~CatalogTags() = default;
  /// AlreadyExists when the tag exists; the server's other refusals as it answers them.
  /// `time_retained` in TimeUtils.parseDuration's grammar (ParseDurationNanos below).
  virtual Status Create(const std::string& name, int64_t snapshot_id,
                        const std::optional<std::string>& time_retained) const = 0;
  /// nullopt when the tag does not exist.
  virtual Result<std::optional<CatalogTag>> Get(const std::string& name) const = 0;
  /// False when the tag did not exist.
  virtual Result<bool> Delete(const std::string& name) const = 0;
  /// Every tag name, sorted.
  virtual Result<std::vector<std::string>> List() const = 0;
};

/// java.time.Duration's text ("PT1H30M", "PT0.5S", "PT-1S", "P2DT3H") as nanoseconds;
/// Invalid otherwise.
Result<int64_t> IsoDurationNanos(std::string_view text);

/// Java's TimeUtils.parseDuration (and pypaimon's parse_duration_nanos): a non-negative
/// integer and an optional unit label (d/day/days, h/hour/hours, m/min/minute/minutes,
/// s/sec/second/seconds, ms/milli/millisecond/milliseconds, µs/micro/microsecond/
/// microseconds, ns/nano/nanosecond/nanoseconds; none = milliseconds), case-insensitive,
/// surrounding blanks ignored. Returns nanoseconds; Invalid otherwise.
Result<int64_t> ParseDurationNanos(std::string_view text);

/// A tag's Java time fields as numbers: `tagCreateTime` (a LocalDateTime) as epoch ms in the
/// host's time zone (Java REST's atZone(systemDefault())), `tagTimeRetained` as nanoseconds.
struct TagTimes {
  std::optional<int64_t> create_time_millis;
  std::optional<int64_t> time_retained_nanos;
};
Result<TagTimes> TagTimesOf(const Tag& tag);

// The calls below act on the tag files, or, for a table whose catalog server keeps its tags
// (SnapshotCommit::catalog_tags()), on the server: the same checks and messages first (the
// snapshot is resolved from the table's files, which the server reads too), then the server's
// calls. The server has no rename or replace: a rename is get + create + delete (the new tag
// gets a new creation time), a replace delete + create (the tag is absent in between).

/// The table's tag names, sorted (the tag files, or the server's list).
Result<std::vector<std::string>> ListTagNames(const Table& table);

/// Tags snapshot `snapshot_id` (the latest when nullopt) as `name`. Invalid: "Snapshot with
/// id N doesn't exist.", "No snapshot exists in this table.", "Tag name shouldn't be
/// blank.", a name that is not a plain file name, "Tag 'x' already exists." (unless
/// `ignore_if_exists`), a malformed `time_retained`.
Status CreateTag(const Table& table, const std::string& name, std::optional<int64_t> snapshot_id,
                 bool ignore_if_exists, const std::optional<std::string>& time_retained);

/// Points the existing tag `name` at snapshot `snapshot_id` (latest when nullopt). Invalid:
/// "Cannot replace tag because latest snapshot doesn't exist.", "Snapshot id 'N' doesn't
/// exist.", "Tag name shouldn't be blank.", "Tag 'x' doesn't exist.".
Status ReplaceTag(const Table& table, const std::string& name, std::optional<int64_t> snapshot_id,
                  const std::optional<std::string>& time_retained);

/// Renames tag `from` to `to`, content unchanged. Invalid: "Old tag name shouldn't be
/// blank.", "New tag name shouldn't be blank.", "Tag 'from' doesn't exist.", "Tag 'to'
/// already exists.".
Status RenameTag(const Table& table, const std::string& from, const std::string& to);

/// Deletes the tag file only (as pypaimon; files only the tag kept alive are left to
/// RemoveOrphanFiles). False when the tag did not exist; Invalid for a blank name.
Result<bool> DeleteTag(const Table& table, const std::string& name);

}  // namespace paimon_rowid
