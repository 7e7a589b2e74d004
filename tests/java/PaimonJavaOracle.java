/*
 * Java Paimon as a test oracle for paimon-rowid (see tests/java/__init__.py and
 * docs/java-oracle.md). Plain Java, compiled by the test run with javac against paimon-bundle
 * (+ Hadoop client jars + slf4j-nop); uses Paimon's own Java API only (no Spark, no Flink).
 *
 * Protocol: one JSON command on stdin; one JSON reply line on stdout, prefixed "@@REPLY@@ " so
 * that stray library output cannot be mistaken for it:
 *   {"ok": true, "result": ...} | {"ok": false, "error_type", "message", "traceback"}
 * Row data travels as JSON-lines files in the "neutral" encoding shared with the Python side:
 *   BOOLEAN/integers -> number/bool; FLOAT/DOUBLE -> number, non-finite -> "NaN"/"Infinity"/
 *   "-Infinity"; CHAR/VARCHAR -> string; BINARY/VARBINARY -> base64 string; DECIMAL -> plain
 *   string with the type's scale; DATE -> epoch days; TIME -> millis of day; TIMESTAMP /
 *   TIMESTAMP_LTZ -> epoch nanoseconds (number); ARRAY -> list; MAP -> list of [key, value]
 *   (storage order); ROW -> object by field name; BLOB -> base64 of the payload, or of the
 *   serialized BlobDescriptor when the dump reads with blob-as-descriptor = true. BLOB input
 *   may also be an object {uri, offset, length}: a reference (BlobRef over the local file
 *   system), which is what a blob-descriptor-field column needs.
 *
 * Commands (all carry "warehouse"; table commands "identifier" = "db.table"):
 *   create_table  fields [{name, type (schema-file JSON form)}], partition_keys, options -> {}
 *   write         rows_file, columns (null = all; else a partial-column append)
 *                                                       -> {snapshot_id}
 *   update        rows_file (objects with _ROW_ID + columns), columns
 *                 -> {snapshot_id, groups}: per touched row-id group one new file holding only
 *                 `columns` for the whole group range (unchanged rows keep their values),
 *                 first_row_id preset, committed as one APPEND snapshot
 *   compact       options (dynamic table options for planning and rewriting, e.g.
 *                 compaction.min.file-num), compact_blob (default false)
 *                 -> {snapshot_id, commit_kind, tasks [{partition, blob_task, before [file],
 *                 after [file]}]}: Java's own data-evolution compaction
 *                 (DataEvolutionCompactCoordinator plans, DataEvolutionCompactTask rewrites),
 *                 all tasks committed through the table's BatchTableCommit; no commit (and
 *                 tasks []) when nothing is worth compacting
 *   alter         changes (pypaimon's JSON form), ignore_if_not_exists
 *                 -> {schema_id}: Catalog.alterTable (OracleAlter)
 *   create_global_index  column, index_type (btree | bitmap), options
 *                 -> {snapshot_id, files}: Java's own global-index build (OracleGlobalIndex)
 *   create_tag    tag, snapshot_id (null = latest)     -> {}
 *   rollback      target (a snapshot id or a tag name) -> {}: Table.rollbackTo
 *   dump          out_file, projection (names, may include _ROW_ID / _SEQUENCE_NUMBER; null =
 *                 the table's fields, plus both system fields when system_columns is true),
 *                 snapshot_id, tag, row_ranges [[from, to] ...], options (dynamic table
 *                 options, e.g. blob-as-descriptor)
 *                 -> {num_rows, fields [{name, type}]}; out_file gets one JSON array per row,
 *                 sorted by _ROW_ID when projected
 *   files         snapshot_id (null = latest)          -> [{file_name, bucket_path, ...}]
 *   schema                                             -> the table schema JSON
 *   snapshot      snapshot_id (null = latest)          -> snapshot JSON or null
 *   batch         commands [...]                       -> [reply, ...]
 */

import org.apache.paimon.AppendOnlyFileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactTask;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BlobDescriptor;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.Range;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

public final class PaimonJavaOracle {

    static final ObjectMapper JSON = new ObjectMapper();
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String REPLY_PREFIX = "@@REPLY@@ ";
    static final String ROW_ID = SpecialFields.ROW_ID.name();
    static final String SEQ = SpecialFields.SEQUENCE_NUMBER.name();

    private PaimonJavaOracle() {}

    public static void main(String[] args) throws Exception {
        String text;
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            StringBuilder sb = new StringBuilder();
            char[] buf = new char[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                sb.append(buf, 0, n);
            }
            text = sb.toString();
        }
        ObjectNode reply;
        try {
            reply = reply(JSON.readTree(text), null);
        } catch (Exception e) {
            reply = error(e);
        }
        System.out.println();
        System.out.println(REPLY_PREFIX + JSON.writeValueAsString(reply));
        System.out.flush();
        System.exit(reply.get("ok").asBoolean() ? 0 : 1);
    }

    // ---------------------------------------------------------------------------------------
    // dispatch

    private static ObjectNode reply(JsonNode cmd, String defaultWarehouse) {
        try {
            ObjectNode ok = NODES.objectNode();
            ok.put("ok", true);
            ok.set("result", run(cmd, defaultWarehouse));
            return ok;
        } catch (Throwable e) {
            return error(e);
        }
    }

    private static ObjectNode error(Throwable e) {
        ObjectNode out = NODES.objectNode();
        out.put("ok", false);
        out.put("error_type", e.getClass().getName());
        out.put("message", String.valueOf(e.getMessage()));
        StringWriter trace = new StringWriter();
        e.printStackTrace(new PrintWriter(trace));
        out.put("traceback", trace.toString());
        return out;
    }

    private static JsonNode run(JsonNode cmd, String defaultWarehouse) throws Exception {
        String name = cmd.path("cmd").asText();
        String warehouse = cmd.hasNonNull("warehouse")
                ? cmd.get("warehouse").asText() : defaultWarehouse;
        switch (name) {
            case "batch": {
                ArrayNode replies = NODES.arrayNode();
                for (JsonNode sub : cmd.get("commands")) {
                    replies.add(reply(sub, warehouse));
                }
                return replies;
            }
            case "create_table":
                return createTable(warehouse, cmd);
            case "write":
                return write(warehouse, cmd);
            case "update":
                return update(warehouse, cmd);
            case "compact":
                return compact(warehouse, cmd);
            case "alter":
                return OracleAlter.alter(warehouse, cmd);
            case "create_global_index":
                return OracleGlobalIndex.create(warehouse, cmd);
            case "create_tag":
                return createTag(warehouse, cmd);
            case "rollback":
                return rollback(warehouse, cmd);
            case "dump":
                return OracleReads.dump(warehouse, cmd);
            case "files":
                return OracleReads.files(warehouse, cmd);
            case "schema":
                return JSON.readTree(JsonSerdeUtil.toJson(table(warehouse, cmd).schema()));
            case "snapshot": {
                FileStoreTable t = table(warehouse, cmd);
                Snapshot s = cmd.hasNonNull("snapshot_id")
                        ? t.snapshotManager().snapshot(cmd.get("snapshot_id").asLong())
                        : t.snapshotManager().latestSnapshot();
                return s == null ? NODES.nullNode() : JSON.readTree(s.toJson());
            }
            default:
                throw new IllegalArgumentException("unknown command " + name);
        }
    }

    // ---------------------------------------------------------------------------------------
    // catalog and tables

    private static Catalog catalog(String warehouse) {
        return CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)));
    }

    static FileStoreTable table(String warehouse, JsonNode cmd) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(
                    Identifier.fromString(cmd.get("identifier").asText()));
        }
    }

    private static JsonNode createTable(String warehouse, JsonNode cmd) throws Exception {
        Identifier id = Identifier.fromString(cmd.get("identifier").asText());
        Schema.Builder builder = Schema.newBuilder();
        for (JsonNode f : cmd.get("fields")) {
            DataType type = DataTypeJsonParser.parseDataType(f.get("type"));
            builder.column(f.get("name").asText(), type);
        }
        List<String> partitionKeys = strings(cmd.get("partition_keys"));
        if (!partitionKeys.isEmpty()) {
            builder.partitionKeys(partitionKeys);
        }
        if (cmd.hasNonNull("options")) {
            cmd.get("options").fields().forEachRemaining(
                    e -> builder.option(e.getKey(), e.getValue().asText()));
        }
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(id.getDatabaseName(), true);
            catalog.createTable(id, builder.build(), false);
        }
        return NODES.objectNode();
    }

    private static JsonNode createTag(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = table(warehouse, cmd);
        if (cmd.hasNonNull("snapshot_id")) {
            t.createTag(cmd.get("tag").asText(), cmd.get("snapshot_id").asLong());
        } else {
            t.createTag(cmd.get("tag").asText());
        }
        return NODES.objectNode();
    }

    private static JsonNode rollback(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = table(warehouse, cmd);
        JsonNode target = cmd.get("target");
        if (target.isTextual()) {
            t.rollbackTo(target.asText());
        } else {
            t.rollbackTo(target.asLong());
        }
        return NODES.objectNode();
    }

    private static ObjectNode snapshotResult(FileStoreTable t) {
        ObjectNode out = NODES.objectNode();
        Long id = t.snapshotManager().latestSnapshotId();
        if (id == null) {
            out.putNull("snapshot_id");
        } else {
            out.put("snapshot_id", id);
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------
    // writes

    private static JsonNode write(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = table(warehouse, cmd);
        RowType writeType = cmd.hasNonNull("columns")
                ? t.rowType().project(strings(cmd.get("columns"))) : t.rowType();
        List<JsonNode> rows = readJsonLines(cmd.get("rows_file").asText());
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        if (cmd.hasNonNull("columns") && !t.partitionKeys().isEmpty()) {
            return partialAppendPartitioned(t, writeType, rows);
        }
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            if (cmd.hasNonNull("columns")) {
                w.withWriteType(writeType);
            }
            for (JsonNode row : rows) {
                w.write(NeutralCodec.toRow(row, writeType));
            }
            c.commit(w.prepareCommit());
        }
        return snapshotResult(t);
    }

    /**
     * Partial-column append into a partitioned table. In Paimon 1.4.2
     * TableWrite.withWriteType does not re-derive the partition key extractor (it indexes the
     * full row type, so a projected row fails), hence the store-level writer with an explicit
     * partition computed from a full-width row holding the row's values.
     */
    private static JsonNode partialAppendPartitioned(
            FileStoreTable t, RowType writeType, List<JsonNode> rows) throws Exception {
        AppendOnlyFileStore store = (AppendOnlyFileStore) t.store();
        BaseAppendFileStoreWrite w = store.newWrite("java-oracle-" + UUID.randomUUID());
        List<CommitMessage> messages;
        try (BatchTableWrite keys = t.newBatchWriteBuilder().newWrite()) {
            w.withWriteType(writeType);
            for (JsonNode row : rows) {
                BinaryRow partition = keys.getPartition(NeutralCodec.toRow(row, t.rowType())).copy();
                w.write(partition, 0, NeutralCodec.toRow(row, writeType));
            }
            messages = w.prepareCommit(false, BatchWriteBuilder.COMMIT_IDENTIFIER);
        } finally {
            w.close();
        }
        try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
            c.commit(messages);
        }
        return snapshotResult(t);
    }

    /** A row-id group: the range shared by the normal files with one first_row_id. */
    private static final class Group {
        final long first;
        final long count;
        final BinaryRow partition;

        Group(long first, long count, BinaryRow partition) {
            this.first = first;
            this.count = count;
            this.partition = partition;
        }
    }

    private static boolean isNormalFile(String name) {
        return !name.endsWith(".blob") && !name.contains(".vector.");
    }

    private static JsonNode update(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = table(warehouse, cmd);
        List<String> columns = strings(cmd.get("columns"));
        RowType writeType = t.rowType().project(columns);
        List<DataField> readFields = new ArrayList<>(writeType.getFields());
        readFields.add(SpecialFields.ROW_ID);
        RowType readType = new RowType(readFields);

        // Groups of the latest snapshot, by first row id.
        TreeMap<Long, Group> groups = new TreeMap<>();
        for (ManifestEntry e : t.store().newScan().plan().files()) {
            DataFileMeta f = e.file();
            if (f.firstRowId() == null || !isNormalFile(f.fileName())) {
                continue;
            }
            Group g = groups.get(f.firstRowId());
            if (g != null && g.count != f.rowCount()) {
                throw new IllegalStateException("normal files at first_row_id "
                        + f.firstRowId() + " differ in row count");
            }
            groups.put(f.firstRowId(), new Group(f.firstRowId(), f.rowCount(), e.partition()));
        }
        // New values by group, then by row id.
        TreeMap<Long, Map<Long, JsonNode>> byGroup = new TreeMap<>();
        for (JsonNode row : readJsonLines(cmd.get("rows_file").asText())) {
            long rowId = row.get(ROW_ID).asLong();
            Map.Entry<Long, Group> g = groups.floorEntry(rowId);
            if (g == null || rowId >= g.getValue().first + g.getValue().count) {
                throw new IllegalArgumentException("row id " + rowId + " is in no file group");
            }
            byGroup.computeIfAbsent(g.getKey(), k -> new HashMap<>()).put(rowId, row);
        }

        List<CommitMessage> messages = new ArrayList<>();
        ArrayNode touched = NODES.arrayNode();
        for (Map.Entry<Long, Map<Long, JsonNode>> entry : byGroup.entrySet()) {
            Group g = groups.get(entry.getKey());
            // Current values of the columns over the whole group range, in row-id order.
            ReadBuilder rb = t.newReadBuilder().withReadType(readType)
                    .withRowRanges(Collections1.singletonRange(g.first, g.first + g.count - 1));
            List<Split> splits = rb.newScan().plan().splits();
            JsonNode[] current = new JsonNode[(int) g.count];
            try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
                reader.forEachRemaining(r -> {
                    ObjectNode o = NeutralCodec.rowToObject(r, readType);
                    current[(int) (o.get(ROW_ID).asLong() - g.first)] = o;
                });
            }
            for (int i = 0; i < current.length; i++) {
                if (current[i] == null) {
                    throw new IllegalStateException("row " + (g.first + i) + " was not read");
                }
            }
            for (Map.Entry<Long, JsonNode> u : entry.getValue().entrySet()) {
                ObjectNode target = (ObjectNode) current[(int) (u.getKey() - g.first)];
                for (String c : columns) {
                    target.set(c, u.getValue().has(c) ? u.getValue().get(c) : NODES.nullNode());
                }
            }
            // One writer (so one file) per group; only the updated columns are written.
            AppendOnlyFileStore store = (AppendOnlyFileStore) t.store();
            BaseAppendFileStoreWrite w = store.newWrite("java-oracle-" + UUID.randomUUID());
            try {
                w.withWriteType(writeType);
                for (JsonNode row : current) {
                    w.write(g.partition, 0, NeutralCodec.toRow(row, writeType));
                }
                for (CommitMessage m : w.prepareCommit(false, BatchWriteBuilder.COMMIT_IDENTIFIER)) {
                    CommitMessageImpl impl = (CommitMessageImpl) m;
                    List<DataFileMeta> files = new ArrayList<>(impl.newFilesIncrement().newFiles());
                    if (files.size() != 1 || files.get(0).rowCount() != g.count) {
                        throw new IllegalStateException("expected one file of " + g.count
                                + " rows for group " + g.first + ", got " + files);
                    }
                    impl.newFilesIncrement().newFiles().clear();
                    impl.newFilesIncrement().newFiles().add(files.get(0).assignFirstRowId(g.first));
                    messages.add(m);
                }
            } finally {
                w.close();
            }
            ObjectNode gn = NODES.objectNode();
            gn.put("first_row_id", g.first);
            gn.put("row_count", g.count);
            touched.add(gn);
        }
        try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
            c.commit(messages);
        }
        ObjectNode out = snapshotResult(t);
        out.set("groups", touched);
        return out;
    }

    /** Tiny helpers kept apart so the command code reads linearly. */
    private static final class Collections1 {
        static List<Range> singletonRange(long from, long to) {
            List<Range> out = new ArrayList<>();
            out.add(new Range(from, to));
            return out;
        }
    }

    // ---------------------------------------------------------------------------------------
    // data-evolution compaction (Java's own planner and rewriter)

    private static JsonNode compact(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = table(warehouse, cmd);
        if (cmd.hasNonNull("options")) {
            Map<String, String> options = new HashMap<>();
            cmd.get("options").fields().forEachRemaining(
                    e -> options.put(e.getKey(), e.getValue().asText()));
            t = t.copy(options);
        }
        boolean compactBlob = cmd.path("compact_blob").asBoolean(false);
        // The coordinator hands out tasks batch by batch of manifests and signals the end
        // with EndOfScanException.
        DataEvolutionCompactCoordinator coordinator =
                new DataEvolutionCompactCoordinator(t, compactBlob, false);
        List<DataEvolutionCompactTask> tasks = new ArrayList<>();
        try {
            while (true) {
                tasks.addAll(coordinator.plan());
            }
        } catch (EndOfScanException done) {
            // every manifest planned
        }
        String user = "java-oracle-compact-" + UUID.randomUUID();
        RowType partitionType = t.schema().logicalPartitionType();
        List<CommitMessage> messages = new ArrayList<>();
        ArrayNode described = NODES.arrayNode();
        for (DataEvolutionCompactTask task : tasks) {
            CommitMessageImpl message = (CommitMessageImpl) task.doCompact(t, user);
            messages.add(message);
            ObjectNode n = described.addObject();
            ArrayNode partition = n.putArray("partition");
            for (int i = 0; i < partitionType.getFieldCount(); i++) {
                partition.add(NeutralCodec.encode(message.partition(), i, partitionType.getTypeAt(i)));
            }
            n.put("blob_task", task.isBlobTask());
            n.set("before", fileList(message.compactIncrement().compactBefore()));
            n.set("after", fileList(message.compactIncrement().compactAfter()));
        }
        if (!messages.isEmpty()) {
            try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
                c.commit(messages);
            }
        }
        ObjectNode out = snapshotResult(t);
        Snapshot latest = t.snapshotManager().latestSnapshot();
        out.put("commit_kind", latest == null ? null : latest.commitKind().name());
        out.set("tasks", described);
        return out;
    }

    private static ArrayNode fileList(List<DataFileMeta> files) {
        ArrayNode out = NODES.arrayNode();
        for (DataFileMeta f : files) {
            ObjectNode n = out.addObject();
            n.put("file_name", f.fileName());
            putRowIdFields(n, f);
            n.put("file_source", f.fileSource().map(Enum::name).orElse(null));
        }
        return out;
    }

    /** first_row_id (null when unset), row_count and the min/max sequence numbers of a file. */
    static void putRowIdFields(ObjectNode n, DataFileMeta f) {
        if (f.firstRowId() == null) {
            n.putNull("first_row_id");
        } else {
            n.put("first_row_id", f.firstRowId());
        }
        n.put("row_count", f.rowCount());
        n.put("min_sequence_number", f.minSequenceNumber());
        n.put("max_sequence_number", f.maxSequenceNumber());
    }

    // ---------------------------------------------------------------------------------------
    // small utilities

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null && !array.isNull()) {
            array.forEach(n -> out.add(n.asText()));
        }
        return out;
    }

    private static List<JsonNode> readJsonLines(String path) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
            if (!line.trim().isEmpty()) {
                out.add(JSON.readTree(line));
            }
        }
        return out;
    }
}
