#include "paimon_rowid/catalog/catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "paimon_rowid/catalog/table.h"
#include "paimon_rowid/testing/gtest_util.h"
#include "paimon_rowid/testing/temp_dir.h"

namespace paimon_rowid {
namespace {

namespace fs = std::filesystem;

TableSchema SimpleSchema() {
  TableSchema schema;
  schema.fields = AssignFieldIds({
      {-1, "id", DataType::Parse("BIGINT").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "dt", DataType::Parse("STRING").ValueOrDie(), std::nullopt, std::nullopt},
      {-1, "r", DataType::Parse("ROW<a INT, b STRING>").ValueOrDie(), std::nullopt, std::nullopt},
  });
  schema.partition_keys = {"dt"};
  schema.options = {{"row-tracking.enabled", "true"}, {"data-evolution.enabled", "true"}};
  return schema;
}

bool HasKind(const Status& st, ErrorKind kind) {
  const ErrorKind* k = GetErrorKind(st);
  return k != nullptr && *k == kind;
}

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = (fs::path(tmp_.path()) / "wh").string();
    catalog_ = Catalog::Make({{"warehouse", warehouse_}}).ValueOrDie();
  }

  testing::TempDir tmp_;
  std::string warehouse_;
  std::shared_ptr<Catalog> catalog_;
};

TEST(CatalogMakeTest, OptionErrors) {
  auto missing = Catalog::Make({});
  ASSERT_RAISES(Invalid, missing);
  EXPECT_EQ(missing.status().message(), "Paimon 'warehouse' path must be set");
  EXPECT_RAISES(Invalid, Catalog::Make({{"warehouse", ""}}));
  auto unknown = Catalog::Make({{"warehouse", "/tmp/x"}, {"metastore", "hive"}});
  ASSERT_RAISES(Invalid, unknown);
  EXPECT_EQ(unknown.status().message(),
            "Unknown catalog identifier: hive. Available types: ['filesystem', 'rest'] (a "
            "'rest' catalog is made by RestCatalog::Make, catalog/rest_catalog.h)");
  auto ok = Catalog::Make({{"warehouse", "file:///tmp/wh/"}, {"metastore", "filesystem"}});
  ASSERT_OK(ok);
  EXPECT_EQ((*ok)->warehouse(), "/tmp/wh");
  EXPECT_EQ((*ok)->DatabasePath("db"), "/tmp/wh/db.db");
  EXPECT_EQ((*ok)->TablePath("db", "t"), "/tmp/wh/db.db/t");
  EXPECT_EQ((*ok)->options().GetOr("metastore", ""), "filesystem");
  EXPECT_RAISES(NotImplemented, Catalog::Make({{"warehouse", "hdfs://nn/wh"}}));
  EXPECT_RAISES(Invalid, Catalog::Make({{"warehouse", "s3://bucket/wh"}, {"fs.s3.endpiont", "h"}}));
}

TEST_F(CatalogTest, DatabaseLifecycle) {
  // A local warehouse that does not exist is an error (a typo, not an empty lake); creating a
  // database creates it.
  auto missing = catalog_->ListDatabases();
  EXPECT_RAISES(IOError, missing.status());
  EXPECT_EQ(missing.status().message(), "warehouse '" + warehouse_ +
                                            "' does not exist or is not a directory "
                                            "(create_database creates it)");
  ASSERT_OK(catalog_->CreateDatabase("db", false));
  ASSERT_OK(catalog_->CreateDatabase("other", false));
  EXPECT_TRUE(fs::is_directory(fs::path(warehouse_) / "db.db"));
  EXPECT_EQ(*catalog_->ListDatabases(), (std::vector<std::string>{"db", "other"}));
  EXPECT_TRUE(*catalog_->DatabaseExists("db"));
  EXPECT_FALSE(*catalog_->DatabaseExists("nope"));

  Status again = catalog_->CreateDatabase("db", false);
  EXPECT_RAISES(AlreadyExists, again);
  EXPECT_TRUE(HasKind(again, ErrorKind::kDatabaseAlreadyExist));
  EXPECT_EQ(again.message(), "Database db already exists.");
  EXPECT_OK(catalog_->CreateDatabase("db", true));

  auto tables = catalog_->ListTables("nope");
  EXPECT_RAISES(KeyError, tables);
  EXPECT_TRUE(HasKind(tables.status(), ErrorKind::kDatabaseNotExist));
  EXPECT_EQ(tables.status().message(), "Database nope does not exist.");

  ASSERT_OK(catalog_->CreateTable("other.t", SimpleSchema(), false));
  EXPECT_RAISES(Invalid, catalog_->DropDatabase("other", false, /*cascade=*/false));
  EXPECT_OK(catalog_->DropDatabase("other", false, /*cascade=*/true));
  EXPECT_FALSE(fs::exists(fs::path(warehouse_) / "other.db"));
  EXPECT_TRUE(HasKind(catalog_->DropDatabase("other", false, true), ErrorKind::kDatabaseNotExist));
  EXPECT_OK(catalog_->DropDatabase("other", true, true));
  EXPECT_OK(catalog_->DropDatabase("db", false, false));  // empty
}

TEST_F(CatalogTest, TableLifecycle) {
  Status no_db = catalog_->CreateTable("db.t", SimpleSchema(), false);
  EXPECT_TRUE(HasKind(no_db, ErrorKind::kDatabaseNotExist)) << no_db.ToString();
  ASSERT_OK(catalog_->CreateDatabase("db", false));
  ASSERT_OK(catalog_->CreateTable("db.t", SimpleSchema(), false));
  ASSERT_OK(catalog_->CreateTable("db.u", SimpleSchema(), false));
  // A directory without schema/schema-N is not a table.
  fs::create_directories(fs::path(warehouse_) / "db.db" / "junk" / "schema");
  EXPECT_EQ(*catalog_->ListTables("db"), (std::vector<std::string>{"t", "u"}));

  Status dup = catalog_->CreateTable("db.t", SimpleSchema(), false);
  EXPECT_RAISES(AlreadyExists, dup);
  EXPECT_TRUE(HasKind(dup, ErrorKind::kTableAlreadyExist));
  EXPECT_EQ(dup.message(), "Table db.t already exists.");
  EXPECT_OK(catalog_->CreateTable("db.t", SimpleSchema(), true));

  auto table = catalog_->GetTable("db.t");
  ASSERT_OK(table);
  EXPECT_EQ((*table)->identifier().FullName(), "db.t");
  EXPECT_EQ((*table)->path(), warehouse_ + "/db.db/t");
  EXPECT_EQ((*table)->schema().id, 0);
  EXPECT_EQ((*table)->schema().version, 3);
  EXPECT_EQ((*table)->schema().highest_field_id, 4);
  EXPECT_GT((*table)->schema().time_millis, 0);
  EXPECT_EQ((*table)->schema().partition_keys, (std::vector<std::string>{"dt"}));
  EXPECT_TRUE((*table)->row_tracking_enabled());
  EXPECT_TRUE((*table)->data_evolution_enabled());
  EXPECT_FALSE((*table)->deletion_vectors_enabled());

  auto missing = catalog_->GetTable("db.nope");
  EXPECT_RAISES(KeyError, missing);
  EXPECT_TRUE(HasKind(missing.status(), ErrorKind::kTableNotExist));
  EXPECT_EQ(missing.status().message(), "Table db.nope does not exist.");
  EXPECT_TRUE(HasKind(catalog_->GetTable("nodb.t").status(), ErrorKind::kTableNotExist));
  EXPECT_TRUE(HasKind(catalog_->GetTable("db.junk").status(), ErrorKind::kTableNotExist));

  ASSERT_OK(catalog_->DropTable("db.t", false));
  EXPECT_FALSE(fs::exists(fs::path(warehouse_) / "db.db" / "t"));
  EXPECT_TRUE(HasKind(catalog_->DropTable("db.t", false), ErrorKind::kTableNotExist));
  EXPECT_OK(catalog_->DropTable("db.t", true));
}

TEST_F(CatalogTest, SchemaValidationOnCreate) {
  ASSERT_OK(catalog_->CreateDatabase("db", false));
  auto expect_invalid = [&](TableSchema schema, const char* what) {
    Status st = catalog_->CreateTable("db.bad", std::move(schema), false);
    EXPECT_RAISES(Invalid, st) << what;
  };
  TableSchema s = SimpleSchema();
  s.fields[1].name = "id";
  expect_invalid(s, "duplicate name");
  s = SimpleSchema();
  s.fields[1].id = -1;
  expect_invalid(s, "unassigned id");
  s = SimpleSchema();
  s.fields[1].id = s.fields[0].id;
  expect_invalid(s, "duplicate id");
  s = SimpleSchema();
  s.partition_keys = {"nope"};
  expect_invalid(s, "unknown partition key");
  s = SimpleSchema();
  s.partition_keys = {"r"};
  expect_invalid(s, "nested partition key");
  s = SimpleSchema();
  s.options["bucket"] = "4";
  expect_invalid(s, "row tracking with fixed bucket");
  s = SimpleSchema();
  s.options.erase("row-tracking.enabled");
  expect_invalid(s, "data evolution without row tracking");
  s = SimpleSchema();
  s.fields[0].name = "_ROW_ID";
  expect_invalid(s, "system field name");
  s = SimpleSchema();
  s.primary_keys = {"id"};
  EXPECT_RAISES(NotImplemented, catalog_->CreateTable("db.bad", s, false));
  EXPECT_FALSE(fs::exists(fs::path(warehouse_) / "db.db" / "bad"));
}

TEST_F(CatalogTest, InvalidNamesNeverTouchTheFilesystem) {
  ASSERT_OK(catalog_->CreateDatabase("db", false));
  const std::vector<std::string> bad_identifiers = {
      "../x.t", "a/b.t", "",         "db.",   ".t",     "db./etc",      "db.a/b",
      "db...",  "..",    "db.t\x01", "db.\n", "a\\b.t", "db.t/../../x", "nodot"};
  for (const auto& id : bad_identifiers) {
    EXPECT_RAISES(Invalid, catalog_->CreateTable(id, SimpleSchema(), false)) << id;
    EXPECT_RAISES(Invalid, catalog_->GetTable(id)) << id;
    EXPECT_RAISES(Invalid, catalog_->DropTable(id, true)) << id;
  }
  const std::vector<std::string> bad_databases = {"",    "..",  ".",    "../evil",
                                                  "a/b", "x\n", "a\\b", std::string("z\0z", 3)};
  for (const auto& db : bad_databases) {
    EXPECT_RAISES(Invalid, catalog_->CreateDatabase(db, false)) << db;
    EXPECT_RAISES(Invalid, catalog_->DropDatabase(db, true, true)) << db;
    EXPECT_RAISES(Invalid, catalog_->ListTables(db)) << db;
    EXPECT_RAISES(Invalid, catalog_->DatabaseExists(db)) << db;
  }
  // Only the warehouse exists next to it, and inside it only db.db (still empty).
  std::vector<std::string> siblings;
  for (const auto& e : fs::directory_iterator(tmp_.path())) {
    siblings.push_back(e.path().filename().string());
  }
  EXPECT_EQ(siblings, (std::vector<std::string>{"wh"}));
  std::vector<std::string> inside;
  for (const auto& e : fs::recursive_directory_iterator(warehouse_)) {
    inside.push_back(fs::relative(e.path(), warehouse_).string());
  }
  EXPECT_EQ(inside, (std::vector<std::string>{"db.db"}));
}

TEST_F(CatalogTest, RacingCreatorsHaveOneWinner) {
  ASSERT_OK(catalog_->CreateDatabase("db", false));
  constexpr int kThreads = 8;
  std::atomic<int> winners{0}, already{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      TableSchema schema = SimpleSchema();
      schema.comment = "creator " + std::to_string(i);
      Status st = catalog_->CreateTable("db.race", schema, false);
      if (st.ok()) {
        ++winners;
      } else if (HasKind(st, ErrorKind::kTableAlreadyExist)) {
        ++already;
      } else {
        ADD_FAILURE() << st.ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(already.load(), kThreads - 1);
  auto table = catalog_->GetTable("db.race");
  ASSERT_OK(table);
  EXPECT_TRUE((*table)->schema().comment.has_value());
}

}  // namespace
}  // namespace paimon_rowid
