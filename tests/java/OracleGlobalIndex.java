/*
 * The "create_global_index" command of the Java oracle (see PaimonJavaOracle's header): builds a
 * global index on one column of a row-tracking table through Java Paimon's own API and commits
 * it through the table's BatchTableCommit.
 *
 *   btree   BTreeGlobalIndexBuilder: scan() plans the latest snapshot, build(split, IOManager)
 *           sorts each contiguous row-id range (Java's external sort buffer) and cuts it into
 *           files of btree-index.records-per-range x 1.2 rows, as Flink's and Spark's
 *           procedures do.
 *   bitmap  Java 1.4.2 has no bitmap builder: the index writer its factory registers for
 *           "bitmap" (BitmapGlobalIndex, a wrap of the file-index bitmap) is fed every row of
 *           the unpartitioned table in row-id order, then its files are registered with
 *           GlobalIndexBuilderUtils.toIndexFileMetas over [0, nextRowId - 1].
 *
 * {"column", "index_type" ("btree" | "bitmap"), "options" (dynamic table options)}
 *   -> {"snapshot_id", "files"}: the snapshot the commit made and the index files it added.
 */

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.globalindex.GlobalIndexBuilderUtils;
import org.apache.paimon.globalindex.GlobalIndexSingletonWriter;
import org.apache.paimon.globalindex.GlobalIndexWriter;
import org.apache.paimon.globalindex.btree.BTreeGlobalIndexBuilder;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.Pair;
import org.apache.paimon.utils.Range;
import org.apache.paimon.utils.RowRangeIndex;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

final class OracleGlobalIndex {

    private OracleGlobalIndex() {}

    static JsonNode create(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = PaimonJavaOracle.table(warehouse, cmd);
        if (cmd.hasNonNull("options")) {
            Map<String, String> dynamic = new HashMap<>();
            cmd.get("options").fields().forEachRemaining(
                    e -> dynamic.put(e.getKey(), e.getValue().asText()));
            t = t.copy(dynamic);
        }
        String column = cmd.get("column").asText();
        String type = cmd.path("index_type").asText("btree");
        List<CommitMessage> messages;
        if (type.equals("btree")) {
            messages = btree(t, column);
        } else if (type.equals("bitmap")) {
            messages = bitmap(t, column);
        } else {
            throw new IllegalArgumentException("index_type must be btree or bitmap, got " + type);
        }
        int files = 0;
        for (CommitMessage m : messages) {
            files += ((CommitMessageImpl) m).newFilesIncrement().newIndexFiles().size();
        }
        try (BatchTableCommit commit = t.newBatchWriteBuilder().newCommit()) {
            commit.commit(messages);
        }
        ObjectNode out = PaimonJavaOracle.NODES.objectNode();
        out.put("snapshot_id", t.snapshotManager().latestSnapshotId());
        out.put("files", files);
        return out;
    }

    private static List<CommitMessage> btree(FileStoreTable t, String column) throws Exception {
        BTreeGlobalIndexBuilder builder = new BTreeGlobalIndexBuilder(t).withIndexField(column);
        Optional<Pair<RowRangeIndex, List<DataSplit>>> plan = builder.scan();
        List<CommitMessage> messages = new ArrayList<>();
        if (!plan.isPresent()) {
            return messages;
        }
        java.nio.file.Path tmp = Files.createTempDirectory("paimon-oracle-io");
        try (IOManager io = IOManager.create(tmp.toString())) {
            for (DataSplit split :
                    BTreeGlobalIndexBuilder.splitByContiguousRowRange(plan.get().getRight())) {
                messages.addAll(builder.build(split, io));
            }
        }
        return messages;
    }

    private static List<CommitMessage> bitmap(FileStoreTable t, String column) throws Exception {
        if (!t.partitionKeys().isEmpty()) {
            throw new IllegalArgumentException("the bitmap build takes unpartitioned tables only");
        }
        Snapshot latest = t.snapshotManager().latestSnapshot();
        if (latest == null || latest.nextRowId() == null || latest.nextRowId() == 0) {
            return Collections.emptyList();
        }
        int rows = Math.toIntExact(latest.nextRowId());
        DataField field = t.rowType().getField(column);
        RowType readType = SpecialFields.rowTypeWithRowId(t.rowType())
                .project(column, SpecialFields.ROW_ID.name());
        InternalRow.FieldGetter getter = InternalRow.createFieldGetter(field.type(), 0);
        Object[] values = new Object[rows];  // by row id: the writer numbers rows as fed
        ReadBuilder rb = t.newReadBuilder().withReadType(readType);
        try (RecordReader<InternalRow> reader =
                rb.newRead().createReader(rb.newScan().plan().splits())) {
            reader.forEachRemaining(row -> values[Math.toIntExact(row.getLong(1))] =
                    getter.getFieldOrNull(row));
        }
        GlobalIndexWriter writer = GlobalIndexBuilderUtils.createIndexWriter(
                t, "bitmap", field, t.coreOptions().toConfiguration());
        GlobalIndexSingletonWriter singleton = (GlobalIndexSingletonWriter) writer;
        for (Object v : values) {
            singleton.write(v);
        }
        Range range = new Range(0, rows - 1);
        List<IndexFileMeta> metas = GlobalIndexBuilderUtils.toIndexFileMetas(
                t.fileIO(), t.store().pathFactory().globalIndexFileFactory(), t.coreOptions(),
                range, field.id(), "bitmap", writer.finish());
        return Collections.singletonList(new CommitMessageImpl(
                BinaryRow.EMPTY_ROW, 0, null, DataIncrement.indexIncrement(metas),
                CompactIncrement.emptyIncrement()));
    }
}
