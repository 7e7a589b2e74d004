// Opens a Paimon table and prints it (optionally restricted to a row-id range).
//
//   read_table <warehouse> <db.table> [first_row_id last_row_id]
#include <iostream>

#include "arrow/pretty_print.h"
#include "arrow/table.h"
#include "paimon_rowid/api.h"

namespace pr = paimon_rowid;

static arrow::Status Run(int argc, char** argv) {
  ARROW_ASSIGN_OR_RAISE(auto catalog, pr::Catalog::Make({{"warehouse", argv[1]}}));
  ARROW_ASSIGN_OR_RAISE(auto table, catalog->GetTable(argv[2]));
  pr::ScanPlanner planner(table);
  if (argc == 5) planner.WithRowRanges({{std::stoll(argv[3]), std::stoll(argv[4])}});
  ARROW_ASSIGN_OR_RAISE(auto plan, planner.Plan());

  pr::ReadOptions options;
  options.fields = table->schema().field_names();
  if (table->row_tracking_enabled()) options.fields.push_back("_ROW_ID");
  ARROW_ASSIGN_OR_RAISE(auto read, pr::TableRead::Make(table, options));
  ARROW_ASSIGN_OR_RAISE(auto reader, read->Read(plan.splits));
  ARROW_ASSIGN_OR_RAISE(auto result, reader->ToTable());
  std::cout << "snapshot " << (plan.snapshot_id ? std::to_string(*plan.snapshot_id) : "none")
            << ", " << result->num_rows() << " rows\n";
  return arrow::PrettyPrint(*result, arrow::PrettyPrintOptions{}, &std::cout);
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 5) {
    std::cerr << "usage: read_table <warehouse> <db.table> [first_row_id last_row_id]\n";
    return 2;
  }
  arrow::Status st = Run(argc, argv);
  if (!st.ok()) {
    std::cerr << "error: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
