// Java Paimon's own REST catalog test server (org.apache.paimon.rest.RESTCatalogServer from the
// paimon-core test jar), started for our tests by tests/rest_server.py.
//
// Usage: java PaimonRestServer <data-dir> <warehouse-name> <bearer-token>
//            [<s3-warehouse-uri> <s3-endpoint> <access-key> <secret-key>]
// Serves Paimon's REST protocol on a free localhost port with tables under <data-dir>; prints
// "@@URL@@ <url>" once it listens, then reads commands from stdin, one per line, answering
// each with "@@OK@@" or "@@ERR@@ <message>":
//   no-permission-table <db.table>   answer 403 for the table from now on
//   no-permission-database <db>      answer 403 for the database from now on
//   dlf-add-key <access-key-id> <secret>   (dlf mode) accept that key from now on
//   dlf-revoke-key <access-key-id>         (dlf mode) refuse that key from now on
//   set-data-token <db.table> <expires-at-millis> <key>=<value>...
//                                    the table's data token from now on (the server's
//                                    GET .../tables/{t}/token answers it)
// End of stdin shuts the server down.
//
// A <bearer-token> of the form "dlf:<access-key-id>:<access-key-secret>:<region>" makes the
// server check DLF request signatures instead (token.provider=dlf): each request's
// Authorization must equal what Java Paimon's own DLFDefaultSigner (an Authorization
// "DLF4-HMAC-SHA256 ...") or DLFOpenApiSigner ("acs <id>:...") computes for it with the key
// it names (one of the accepted keys), at the time the request's x-dlf-date / Date names and
// with its nonce (Java's DLFAuthProvider would sign "now" with a new nonce).
//
// With the four S3 arguments the server keeps its tables on that S3 warehouse instead
// (paimon-s3, with those keys: the server's own credentials), and its config tells clients
// "data-token.enabled" and the store's endpoint, so a client reaches the files only with the
// per-table credentials the test sets with set-data-token. RESTCatalogServer always makes its
// catalog on the local filesystem; this launcher replaces that catalog (a field set by
// reflection, before the server starts) with the same RESTFileSystemCatalog on S3.
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.RESTFileSystemCatalog;
import org.apache.paimon.rest.RESTToken;
import org.apache.paimon.rest.auth.AuthProvider;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.auth.DLFDefaultSigner;
import org.apache.paimon.rest.auth.DLFOpenApiSigner;
import org.apache.paimon.rest.auth.DLFToken;
import org.apache.paimon.rest.responses.ConfigResponse;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class PaimonRestServer {
    public static void main(String[] args) throws Exception {
        String dataPath = args[0];
        String warehouse = args[1];
        String token = args[2];
        Map<String, String> defaults = new HashMap<>();
        defaults.put("prefix", "paimon-rowid");
        boolean s3 = args.length >= 7;
        if (s3) {
            defaults.put("data-token.enabled", "true");
            defaults.put("fs.s3.endpoint", args[4]);
            defaults.put("fs.s3.region", "us-east-1");
            defaults.put("s3.path.style.access", "true");
        }
        ConfigResponse config = new ConfigResponse(defaults, new HashMap<>());
        RESTCatalogServer server =
                new RESTCatalogServer(dataPath, authProvider(token), config, warehouse);
        if (s3) {
            useS3Catalog(server, defaults, args[3], args[4], args[5], args[6]);
        }
        server.start();
        System.out.println("@@URL@@ " + server.getUrl());
        System.out.flush();
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ", 2);
            try {
                switch (parts[0]) {
                    case "no-permission-table":
                        server.addNoPermissionTable(Identifier.fromString(parts[1]));
                        break;
                    case "no-permission-database":
                        server.addNoPermissionDatabase(parts[1]);
                        break;
                    case "dlf-add-key":
                        String[] key = parts[1].split(" ", 2);
                        DLF_KEYS.put(key[0], key[1]);
                        break;
                    case "dlf-revoke-key":
                        DLF_KEYS.remove(parts[1].trim());
                        break;
                    case "set-data-token":
                        setDataToken(server, parts[1]);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown command " + parts[0]);
                }
                System.out.println("@@OK@@");
            } catch (Exception e) {
                System.out.println("@@ERR@@ " + e);
            }
            System.out.flush();
        }
        server.shutdown();
        System.exit(0);
    }

    // token.provider=dlf: the keys the server accepts (access key id -> secret), changed by the
    // dlf-add-key / dlf-revoke-key commands.
    private static final Map<String, String> DLF_KEYS = new ConcurrentHashMap<>();

    private static AuthProvider authProvider(String token) {
        if (!token.startsWith("dlf:")) {
            return new BearTokenAuthProvider(token);
        }
        String[] parts = token.split(":", 4);
        DLF_KEYS.put(parts[1], parts[2]);
        DLFDefaultSigner defaultSigner = new DLFDefaultSigner(parts[3]);
        DLFOpenApiSigner openApiSigner = new DLFOpenApiSigner();
        DateTimeFormatter format = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'");
        return (headers, parameter) -> {
            Map<String, String> out = new HashMap<>(headers);
            out.put("Authorization", "(an unsigned request matches no signature)");
            String sent = headers.getOrDefault("authorization", "");
            try {
                if (sent.startsWith("DLF4-HMAC-SHA256 Credential=")) {
                    String id = sent.substring(28, sent.indexOf('/'));
                    String date = headers.get("x-dlf-date");
                    if (date == null || !DLF_KEYS.containsKey(id)) return out;
                    DLFToken key = new DLFToken(id, DLF_KEYS.get(id), null, null);
                    Map<String, String> signed =
                            defaultSigner.signHeaders(
                                    parameter.data(),
                                    LocalDateTime.parse(date, format).toInstant(ZoneOffset.UTC),
                                    headers.get("x-dlf-security-token"),
                                    "localhost");
                    out.putAll(signed);
                    out.put(
                            "Authorization",
                            defaultSigner.authorization(parameter, key, "localhost", signed));
                } else if (sent.startsWith("acs ")) {
                    // Java's DLFOpenApiSigner, with the request's own Date and nonce (it would
                    // make new ones).
                    String id = sent.substring(4, sent.lastIndexOf(':'));
                    if (!DLF_KEYS.containsKey(id) || headers.get("date") == null) return out;
                    DLFToken key = new DLFToken(id, DLF_KEYS.get(id), null, null);
                    String host = headers.getOrDefault("host", "localhost");
                    Map<String, String> signed =
                            openApiSigner.signHeaders(
                                    parameter.data(),
                                    java.time.Instant.now(),
                                    headers.get("x-acs-security-token"),
                                    host);
                    signed.put("Date", headers.get("date"));
                    signed.put("x-acs-signature-nonce", headers.get("x-acs-signature-nonce"));
                    out.put(
                            "Authorization",
                            openApiSigner.authorization(parameter, key, host, signed));
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
            return out;
        };
    }

    // "<db.table> <expires-at-millis> k=v k=v ..."
    private static void setDataToken(RESTCatalogServer server, String arguments) {
        String[] words = arguments.trim().split(" ");
        Map<String, String> token = new HashMap<>();
        for (int i = 2; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            token.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        server.setDataToken(
                Identifier.fromString(words[0]), new RESTToken(token, Long.parseLong(words[1])));
    }

    private static void useS3Catalog(
            RESTCatalogServer server,
            Map<String, String> defaults,
            String warehouseUri,
            String endpoint,
            String accessKey,
            String secretKey)
            throws Exception {
        Options conf = new Options();
        defaults.forEach(conf::setString);
        conf.setString("warehouse", warehouseUri);
        conf.setString("s3.endpoint", endpoint);
        conf.setString("s3.access-key", accessKey);
        conf.setString("s3.secret-key", secretKey);
        conf.setString("s3.path.style.access", "true");
        CatalogContext context = CatalogContext.create(conf);
        Path path = new Path(warehouseUri);
        RESTFileSystemCatalog catalog =
                new RESTFileSystemCatalog(FileIO.get(path, context), path, context);
        setField(server, "catalogContext", context);
        setField(server, "catalog", catalog);
    }

    private static void setField(Object target, String name, Object value) throws Exception {
        Field field = RESTCatalogServer.class.getDeclaredField(name);
        field.setAccessible(true);
        field.set(target, value);
    }
}
