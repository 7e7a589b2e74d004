/*
 * The "neutral" encoding of row values shared with the Python side (tests/java/__init__.py;
 * the mapping is listed in PaimonJavaOracle's header): Paimon internal rows -> JSON for
 * dumps, JSON -> Paimon internal rows for writes and updates.
 */

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Blob;
import org.apache.paimon.data.BlobData;
import org.apache.paimon.data.BlobDescriptor;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.VectorType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.UriReader;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

final class NeutralCodec {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private NeutralCodec() {}

    static ObjectNode rowToObject(InternalRow row, RowType type) {
        ObjectNode o = NODES.objectNode();
        for (int i = 0; i < type.getFieldCount(); i++) {
            o.set(type.getFields().get(i).name(), encode(row, i, type.getTypeAt(i)));
        }
        return o;
    }

    static JsonNode encode(InternalRow row, int i, DataType type) {
        if (row.isNullAt(i)) {
            return NODES.nullNode();
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return NODES.booleanNode(row.getBoolean(i));
            case TINYINT:
                return NODES.numberNode(row.getByte(i));
            case SMALLINT:
                return NODES.numberNode(row.getShort(i));
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return NODES.numberNode(row.getInt(i));
            case BIGINT:
                return NODES.numberNode(row.getLong(i));
            case FLOAT:
                return encodeDouble(row.getFloat(i));
            case DOUBLE:
                return encodeDouble(row.getDouble(i));
            case CHAR:
            case VARCHAR:
                return NODES.textNode(row.getString(i).toString());
            case BINARY:
            case VARBINARY:
                return NODES.textNode(Base64.getEncoder().encodeToString(row.getBinary(i)));
            case BLOB:
                return NODES.textNode(Base64.getEncoder().encodeToString(row.getBlob(i).toData()));
            case VECTOR:
                return encodeArray(row.getVector(i), ((VectorType) type).getElementType());
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return NODES.textNode(row.getDecimal(i, d.getPrecision(), d.getScale())
                        .toBigDecimal().toPlainString());
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return encodeTimestamp(row.getTimestamp(i, precision(type)));
            case ARRAY:
                return encodeArray(row.getArray(i), ((ArrayType) type).getElementType());
            case MAP: {
                MapType m = (MapType) type;
                InternalMap map = row.getMap(i);
                ArrayNode pairs = NODES.arrayNode();
                InternalArray keys = map.keyArray();
                InternalArray values = map.valueArray();
                for (int k = 0; k < map.size(); k++) {
                    ArrayNode pair = pairs.addArray();
                    pair.add(encodeElement(keys, k, m.getKeyType()));
                    pair.add(encodeElement(values, k, m.getValueType()));
                }
                return pairs;
            }
            case ROW: {
                RowType rt = (RowType) type;
                return rowToObject(row.getRow(i, rt.getFieldCount()), rt);
            }
            default:
                throw new UnsupportedOperationException("type " + type + " not supported");
        }
    }

    static ArrayNode encodeArray(InternalArray array, DataType elementType) {
        ArrayNode out = NODES.arrayNode();
        for (int k = 0; k < array.size(); k++) {
            out.add(encodeElement(array, k, elementType));
        }
        return out;
    }

    static JsonNode encodeElement(InternalArray a, int k, DataType type) {
        if (a.isNullAt(k)) {
            return NODES.nullNode();
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return NODES.booleanNode(a.getBoolean(k));
            case TINYINT:
                return NODES.numberNode(a.getByte(k));
            case SMALLINT:
                return NODES.numberNode(a.getShort(k));
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return NODES.numberNode(a.getInt(k));
            case BIGINT:
                return NODES.numberNode(a.getLong(k));
            case FLOAT:
                return encodeDouble(a.getFloat(k));
            case DOUBLE:
                return encodeDouble(a.getDouble(k));
            case CHAR:
            case VARCHAR:
                return NODES.textNode(a.getString(k).toString());
            case BINARY:
            case VARBINARY:
                return NODES.textNode(Base64.getEncoder().encodeToString(a.getBinary(k)));
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return NODES.textNode(a.getDecimal(k, d.getPrecision(), d.getScale())
                        .toBigDecimal().toPlainString());
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return encodeTimestamp(a.getTimestamp(k, precision(type)));
            case ARRAY:
                return encodeArray(a.getArray(k), ((ArrayType) type).getElementType());
            case ROW: {
                RowType rt = (RowType) type;
                return rowToObject(a.getRow(k, rt.getFieldCount()), rt);
            }
            case MAP: {
                MapType m = (MapType) type;
                InternalMap map = a.getMap(k);
                ArrayNode pairs = NODES.arrayNode();
                for (int j = 0; j < map.size(); j++) {
                    ArrayNode pair = pairs.addArray();
                    pair.add(encodeElement(map.keyArray(), j, m.getKeyType()));
                    pair.add(encodeElement(map.valueArray(), j, m.getValueType()));
                }
                return pairs;
            }
            default:
                throw new UnsupportedOperationException("element type " + type);
        }
    }

    static JsonNode encodeDouble(double v) {
        if (Double.isNaN(v)) {
            return NODES.textNode("NaN");
        }
        if (Double.isInfinite(v)) {
            return NODES.textNode(v > 0 ? "Infinity" : "-Infinity");
        }
        return NODES.numberNode(v);
    }

    static JsonNode encodeTimestamp(Timestamp ts) {
        // BigInteger: a misread value may lie outside the +-292 years a long holds in nanos.
        return NODES.numberNode(java.math.BigInteger.valueOf(ts.getMillisecond())
                .multiply(java.math.BigInteger.valueOf(1_000_000L))
                .add(java.math.BigInteger.valueOf(ts.getNanoOfMillisecond())));
    }

    static int precision(DataType type) {
        return org.apache.paimon.types.DataTypeChecks.getPrecision(type);
    }

    // ---------------------------------------------------------------------------------------
    // neutral decoding (JSON -> Paimon internal values)

    static GenericRow toRow(JsonNode object, RowType type) {
        GenericRow row = new GenericRow(type.getFieldCount());
        for (int i = 0; i < type.getFieldCount(); i++) {
            DataField f = type.getFields().get(i);
            row.setField(i, decode(object.get(f.name()), f.type()));
        }
        return row;
    }

    static Object decode(JsonNode n, DataType type) {
        if (n == null || n.isNull()) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return n.asBoolean();
            case TINYINT:
                return (byte) n.asInt();
            case SMALLINT:
                return (short) n.asInt();
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return n.asInt();
            case BIGINT:
                return n.asLong();
            case FLOAT:
                return (float) decodeDouble(n);
            case DOUBLE:
                return decodeDouble(n);
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(n.asText());
            case BINARY:
            case VARBINARY:
                return Base64.getDecoder().decode(n.asText());
            case BLOB:
                if (n.isObject()) {
                    return Blob.fromDescriptor(UriReader.fromFile(LocalFileIO.create()),
                            new BlobDescriptor(n.get("uri").asText(), n.get("offset").asLong(),
                                    n.get("length").asLong()));
                }
                return new BlobData(Base64.getDecoder().decode(n.asText()));
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return Decimal.fromBigDecimal(new BigDecimal(n.asText()), d.getPrecision(),
                        d.getScale());
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                long nanos = n.asLong();
                return Timestamp.fromEpochMillis(Math.floorDiv(nanos, 1_000_000L),
                        (int) Math.floorMod(nanos, 1_000_000L));
            }
            case ARRAY: {
                DataType element = ((ArrayType) type).getElementType();
                Object[] values = new Object[n.size()];
                for (int k = 0; k < n.size(); k++) {
                    values[k] = decode(n.get(k), element);
                }
                return new GenericArray(values);
            }
            case MAP: {
                MapType m = (MapType) type;
                Map<Object, Object> map = new LinkedHashMap<>();
                for (JsonNode pair : n) {
                    map.put(decode(pair.get(0), m.getKeyType()),
                            decode(pair.get(1), m.getValueType()));
                }
                return new GenericMap(map);
            }
            case ROW:
                return toRow(n, (RowType) type);
            default:
                throw new UnsupportedOperationException("type " + type + " not supported");
        }
    }

    static double decodeDouble(JsonNode n) {
        if (n.isTextual()) {
            return Double.parseDouble(n.asText());
        }
        return n.asDouble();
    }
}
