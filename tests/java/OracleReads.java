/*
 * The oracle's read commands (see PaimonJavaOracle's header): dump (a projected, filtered,
 * time-travelled read written as neutral JSON lines) and files (the live data files with
 * their row-id fields and, on request, their value stats as Java decodes them).
 */

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.FileStoreScan;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.Range;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class OracleReads {
    private OracleReads() {}

    static JsonNode dump(String warehouse, JsonNode cmd) throws Exception {
        Table t = PaimonJavaOracle.table(warehouse, cmd);
        Map<String, String> options = new HashMap<>();
        if (cmd.hasNonNull("snapshot_id")) {
            options.put("scan.snapshot-id", cmd.get("snapshot_id").asText());
        }
        if (cmd.hasNonNull("tag")) {
            options.put("scan.tag-name", cmd.get("tag").asText());
        }
        if (cmd.hasNonNull("options")) {
            cmd.get("options").fields().forEachRemaining(
                    e -> options.put(e.getKey(), e.getValue().asText()));
        }
        if (!options.isEmpty()) {
            t = t.copy(options);
        }
        final boolean blobDescriptors =
                Boolean.parseBoolean(options.getOrDefault("blob-as-descriptor", "false"));
        RowType readType;
        if (cmd.hasNonNull("projection")) {
            List<DataField> fields = new ArrayList<>();
            for (String name : PaimonJavaOracle.strings(cmd.get("projection"))) {
                if (name.equals(PaimonJavaOracle.ROW_ID)) {
                    fields.add(SpecialFields.ROW_ID);
                } else if (name.equals(PaimonJavaOracle.SEQ)) {
                    fields.add(SpecialFields.SEQUENCE_NUMBER);
                } else {
                    fields.add(t.rowType().getField(name));
                }
            }
            readType = new RowType(fields);
        } else if (cmd.path("system_columns").asBoolean(false)) {
            readType = SpecialFields.rowTypeWithRowTracking(t.rowType());
        } else {
            readType = t.rowType();
        }
        ReadBuilder rb = t.newReadBuilder().withReadType(readType);
        if (cmd.hasNonNull("filter")) {
            rb = rb.withFilter(predicate(t.rowType(), cmd.get("filter")));
        }
        if (cmd.hasNonNull("row_ranges")) {
            List<Range> ranges = new ArrayList<>();
            for (JsonNode r : cmd.get("row_ranges")) {
                ranges.add(new Range(r.get(0).asLong(), r.get(1).asLong()));
            }
            rb = rb.withRowRanges(ranges);
        }
        List<Split> splits = rb.newScan().plan().splits();
        int rowIdIndex = readType.getFieldNames().indexOf(PaimonJavaOracle.ROW_ID);
        List<long[]> keys = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        final RowType type = readType;
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
            reader.forEachRemaining(r -> {
                ArrayNode values = PaimonJavaOracle.NODES.arrayNode();
                for (int i = 0; i < type.getFieldCount(); i++) {
                    if (blobDescriptors && type.getTypeAt(i).getTypeRoot()
                            == org.apache.paimon.types.DataTypeRoot.BLOB && !r.isNullAt(i)) {
                        values.add(PaimonJavaOracle.NODES.textNode(Base64.getEncoder().encodeToString(
                                r.getBlob(i).toDescriptor().serialize())));
                    } else {
                        values.add(NeutralCodec.encode(r, i, type.getTypeAt(i)));
                    }
                }
                try {
                    lines.add(PaimonJavaOracle.JSON.writeValueAsString(values));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
                keys.add(new long[] {rowIdIndex < 0 ? lines.size() : r.getLong(rowIdIndex),
                        lines.size() - 1});
            });
        }
        keys.sort((a, b) -> Long.compare(a[0], b[0]));
        try (BufferedWriter out = Files.newBufferedWriter(
                Paths.get(cmd.get("out_file").asText()), StandardCharsets.UTF_8)) {
            for (long[] k : keys) {
                out.write(lines.get((int) k[1]));
                out.write('\n');
            }
        }
        ObjectNode result = PaimonJavaOracle.NODES.objectNode();
        result.put("num_rows", lines.size());
        result.put("num_splits", splits.size());
        ArrayNode fields = result.putArray("fields");
        for (DataField f : readType.getFields()) {
            ObjectNode fn = fields.addObject();
            fn.put("name", f.name());
            fn.put("id", f.id());
            fn.put("type", f.type().asSQLString());
        }
        return result;
    }

    static JsonNode files(String warehouse, JsonNode cmd) throws Exception {
        FileStoreTable t = PaimonJavaOracle.table(warehouse, cmd);
        FileStoreScan scan = t.store().newScan();
        if (cmd.hasNonNull("snapshot_id")) {
            scan.withSnapshot(cmd.get("snapshot_id").asLong());
        }
        RowType partitionType = t.schema().logicalPartitionType();
        ArrayNode out = PaimonJavaOracle.NODES.arrayNode();
        for (ManifestEntry e : scan.plan().files()) {
            DataFileMeta f = e.file();
            ObjectNode n = out.addObject();
            n.put("file_name", f.fileName());
            n.put("bucket_path",
                    t.store().pathFactory().relativeBucketPath(e.partition(), e.bucket())
                            .toString());
            ArrayNode partition = n.putArray("partition");
            for (int i = 0; i < partitionType.getFieldCount(); i++) {
                partition.add(NeutralCodec.encode(e.partition(), i, partitionType.getTypeAt(i)));
            }
            PaimonJavaOracle.putRowIdFields(n, f);
            n.put("schema_id", f.schemaId());
            if (f.writeCols() == null) {
                n.putNull("write_cols");
            } else {
                ArrayNode wc = n.putArray("write_cols");
                f.writeCols().forEach(wc::add);
            }
            n.put("file_source", f.fileSource().map(Enum::name).orElse(null));
            if (cmd.path("stats").asBoolean(false)) {
                n.set("value_stats", valueStats(t, f));
            }
        }
        return out;
    }

    /**
     * A file's value stats as Java decodes them: the stats columns (_VALUE_STATS_COLS, or the
     * file's written columns when null), min, max (neutral encoding) and null counts.
     */
    static ObjectNode valueStats(FileStoreTable t, DataFileMeta f) {
        RowType fileType = t.schemaManager().schema(f.schemaId()).logicalRowType();
        List<String> names = f.valueStatsCols() != null ? f.valueStatsCols()
                : f.writeCols() != null ? f.writeCols() : fileType.getFieldNames();
        SimpleStats stats = f.valueStats();
        ObjectNode out = PaimonJavaOracle.NODES.objectNode();
        if (f.valueStatsCols() == null) {
            out.putNull("cols");
        } else {
            ArrayNode cols = out.putArray("cols");
            names.forEach(cols::add);
        }
        ArrayNode min = out.putArray("min");
        ArrayNode max = out.putArray("max");
        ArrayNode nulls = out.putArray("null_counts");
        for (int i = 0; i < names.size(); i++) {
            DataType type = fileType.getField(names.get(i)).type();
            min.add(NeutralCodec.encode(stats.minValues(), i, type));
            max.add(NeutralCodec.encode(stats.maxValues(), i, type));
            if (stats.nullCounts().isNullAt(i)) {
                nulls.addNull();
            } else {
                nulls.add(stats.nullCounts().getLong(i));
            }
        }
        return out;
    }

    /** A leaf predicate from [method, field, [neutral literals]] (pypaimon's method names). */
    static Predicate predicate(RowType type, JsonNode spec) {
        PredicateBuilder b = new PredicateBuilder(type);
        String field = spec.get(1).asText();
        int index = b.indexOf(field);
        DataType fieldType = type.getTypeAt(index);
        JsonNode args = spec.get(2);
        Object literal = args.size() > 0 ? NeutralCodec.decode(args.get(0), fieldType) : null;
        switch (spec.get(0).asText()) {
            case "equal":
                return b.equal(index, literal);
            case "less_than":
                return b.lessThan(index, literal);
            case "less_or_equal":
                return b.lessOrEqual(index, literal);
            case "greater_than":
                return b.greaterThan(index, literal);
            case "greater_or_equal":
                return b.greaterOrEqual(index, literal);
            default:
                throw new IllegalArgumentException("unsupported filter " + spec);
        }
    }
}
