// Java Paimon's own REST catalog test server (org.apache.paimon.rest.RESTCatalogServer from the
// paimon-core test jar), started for our tests by tests/rest_server.py.
//
// Usage: java PaimonRestServer <data-dir> <warehouse-name> <bearer-token>
// Serves Paimon's REST protocol on a free localhost port with tables under <data-dir>; prints
// "@@URL@@ <url>" once it listens, then reads commands from stdin, one per line, answering
// each with "@@OK@@" or "@@ERR@@ <message>":
//   no-permission-table <db.table>   answer 403 for the table from now on
//   no-permission-database <db>      answer 403 for the database from now on
// End of stdin shuts the server down.
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.responses.ConfigResponse;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

public class PaimonRestServer {
    public static void main(String[] args) throws Exception {
        String dataPath = args[0];
        String warehouse = args[1];
        String token = args[2];
        Map<String, String> defaults = new HashMap<>();
        defaults.put("prefix", "paimon-rowid");
        ConfigResponse config = new ConfigResponse(defaults, new HashMap<>());
        RESTCatalogServer server =
                new RESTCatalogServer(dataPath, new BearTokenAuthProvider(token), config, warehouse);
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
}
