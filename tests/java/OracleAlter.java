/*
 * The "alter" command of the Java oracle (see PaimonJavaOracle's header): applies schema
 * changes through Java's Catalog.alterTable (FileSystemCatalog -> SchemaManager.commitChanges,
 * so Java's own SchemaValidation rules run). The changes come in the JSON form pypaimon and
 * paimon_rowid.schema.schema_change.changes_json produce ({"action": "addColumn",
 * "fieldNames": [...], "dataType": <type JSON or SQL string>, ...}); each is built with
 * SchemaChange's own factories, so the harness needs no Jackson subtype mapping.
 */

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;

import java.util.ArrayList;
import java.util.List;

final class OracleAlter {

    private OracleAlter() {}

    /**
     * {"changes": [...], "ignore_if_not_exists": bool} -> {"schema_id": latest schema id}
     * (local warehouses only).
     */
    static JsonNode alter(String warehouse, JsonNode cmd) throws Exception {
        List<SchemaChange> changes = new ArrayList<>();
        for (JsonNode c : cmd.get("changes")) {
            changes.add(change(c));
        }
        Identifier id = Identifier.fromString(cmd.get("identifier").asText());
        try (Catalog catalog =
                CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)))) {
            catalog.alterTable(id, changes, cmd.path("ignore_if_not_exists").asBoolean(false));
        }
        // Read from the schema directory, not through the table: after a 'type' change the
        // catalog hands out a FormatTable.
        Path tablePath = new Path(new Path(warehouse), id.getDatabaseName() + ".db/"
                + id.getObjectName());
        SchemaManager schemas = new SchemaManager(LocalFileIO.create(), tablePath);
        return PaimonJavaOracle.NODES.objectNode().put(
                "schema_id", schemas.latest().map(TableSchema::id).orElse(-1L));
    }

    static SchemaChange change(JsonNode c) {
        String action = c.get("action").asText();
        switch (action) {
            case "setOption":
                return SchemaChange.setOption(c.get("key").asText(), c.get("value").asText());
            case "removeOption":
                return SchemaChange.removeOption(c.get("key").asText());
            case "updateComment":
                return SchemaChange.updateComment(text(c, "comment"));
            case "addColumn":
                return SchemaChange.addColumn(names(c), type(c.get("dataType")),
                        text(c, "comment"), move(c.get("move")));
            case "renameColumn":
                return SchemaChange.renameColumn(names(c), c.get("newName").asText());
            case "dropColumn":
                return SchemaChange.dropColumn(names(c));
            case "updateColumnType":
                return SchemaChange.updateColumnType(names(c), type(c.get("newDataType")),
                        c.path("keepNullability").asBoolean(false));
            case "updateColumnNullability":
                return SchemaChange.updateColumnNullability(names(c),
                        c.get("newNullability").asBoolean());
            case "updateColumnComment":
                return SchemaChange.updateColumnComment(names(c), text(c, "newComment"));
            case "updateColumnDefaultValue":
                return SchemaChange.updateColumnDefaultValue(names(c),
                        text(c, "newDefaultValue"));
            case "updateColumnPosition":
                return SchemaChange.updateColumnPosition(move(c.get("move")));
            default:
                throw new IllegalArgumentException("unknown schema change action " + action);
        }
    }

    private static String[] names(JsonNode c) {
        return PaimonJavaOracle.strings(c.get("fieldNames")).toArray(new String[0]);
    }

    private static String text(JsonNode c, String key) {
        return c.hasNonNull(key) ? c.get(key).asText() : null;
    }

    private static DataType type(JsonNode t) {
        return DataTypeJsonParser.parseDataType(t);
    }

    private static SchemaChange.Move move(JsonNode m) {
        if (m == null || m.isNull()) {
            return null;
        }
        String field = m.get("fieldName").asText();
        String reference = text(m, "referenceFieldName");
        switch (m.get("type").asText()) {
            case "FIRST":
                return SchemaChange.Move.first(field);
            case "AFTER":
                return SchemaChange.Move.after(field, reference);
            case "BEFORE":
                return SchemaChange.Move.before(field, reference);
            case "LAST":
                return SchemaChange.Move.last(field);
            default:
                throw new IllegalArgumentException("unknown move type " + m.get("type"));
        }
    }
}
