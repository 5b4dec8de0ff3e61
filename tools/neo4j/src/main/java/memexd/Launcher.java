package memexd;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Neo4j 5 Community, embedded, speaking Bolt on a loopback port.
 *
 * <p>Options: {@code --data DIR} (required), {@code --port N} (0: any free
 * port), {@code --pagecache MB}, {@code --tx-timeout-ms MS}, {@code --tx-memory-mb MB},
 * and any other Neo4j setting as {@code --set name=value} (repeatable).
 * The password of the {@code neo4j} user comes from the environment variable
 * {@code MEMEXD_NEO4J_PASSWORD} (never from the command line, which other
 * users can see). Prints one line {@code memexd-neo4j ready bolt://127.0.0.1:PORT}
 * when it accepts connections; stops cleanly on SIGTERM, and also when its
 * standard input closes, so it never outlives the process that started it.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        String password = System.getenv("MEMEXD_NEO4J_PASSWORD");
        if (args.get("--data") == null || password == null || password.length() < 8) {
            System.err.println("usage: --data DIR [--port N] [--pagecache MB] [--tx-timeout-ms MS]"
                    + " [--tx-memory-mb MB]; MEMEXD_NEO4J_PASSWORD (8+ characters) in the environment");
            System.exit(2);
        }
        DatabaseManagementService dbms = build(args);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }, "memexd-neo4j-stop"));
        setPassword(dbms, password);
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        int port = ((GraphDatabaseAPI) db).getDependencyResolver()
                .resolveDependency(ConnectorPortRegister.class)
                .getLocalAddress(ConnectorType.BOLT).getPort();
        System.out.println("memexd-neo4j ready bolt://127.0.0.1:" + port);
        System.out.flush();
        watchStdin();
        stopped.await();
    }

    private static DatabaseManagementService build(Map<String, String> args) throws IOException {
        long pagecacheMb = Long.parseLong(args.getOrDefault("--pagecache", "256"));
        long txTimeoutMs = Long.parseLong(args.getOrDefault("--tx-timeout-ms", "60000"));
        long txMemoryMb = Long.parseLong(args.getOrDefault("--tx-memory-mb", "1024"));
        int port = Integer.parseInt(args.getOrDefault("--port", "0"));
        // --set name=value: read as a neo4j.conf would be (the builder takes
        // typed settings, or a properties file for the rest)
        Path data = Path.of(args.get("--data"));
        Path extra = data.resolve("launcher.conf");
        Files.createDirectories(data);
        Files.writeString(extra, args.getOrDefault("--set", "") + "\n");
        return new DatabaseManagementServiceBuilder(data)
                .loadPropertiesFromFile(extra)
                .setConfig(GraphDatabaseSettings.auth_enabled, true)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMillis(txTimeoutMs))
                .setConfig(GraphDatabaseSettings.memory_transaction_max_size, ByteUnit.mebiBytes(txMemoryMb))
                .setConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
                // No keep-alive messages during requests: their hint makes the
                // Python driver wrap every socket read in a timeout task, which
                // cost memexd a sixth of its point reads and half its 1,000-row
                // reads (docs/neo4j.md, "Neo4j's settings"); memexd's own
                // transaction timeout bounds every request instead
                .setConfig(BoltConnector.connection_keep_alive_type, BoltConnector.KeepAliveRequestType.OFF)
                // Bolt's default grace periods hold a stop for 10 s with nothing to drain
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(200))
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(200))
                .build();
    }

    /** The one user of Community, with the caller's password and no forced change. */
    private static void setPassword(DatabaseManagementService dbms, String password) {
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        Map<String, Object> params = new HashMap<>();
        params.put("password", password);
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", params);
        } catch (QueryExecutionException e) {
            // a restart on the same data: the password is already this one
            if (!String.valueOf(e.getMessage()).contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    /** Exit (running the shutdown hook) when the parent closes our standard input. */
    private static void watchStdin() {
        Thread watcher = new Thread(() -> {
            InputStream in = System.in;
            try {
                while (in.read() != -1) {
                    // the parent writes nothing; end of input is the signal
                }
            } catch (IOException ignored) {
                // a broken pipe means the same as end of input
            }
            System.exit(0);
        }, "memexd-neo4j-stdin");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** Options as name to value; repeated ones ({@code --set}) joined by newlines. */
    private static Map<String, String> parse(String[] argv) {
        Map<String, String> args = new HashMap<>();
        for (int i = 0; i + 1 < argv.length; i += 2) {
            args.merge(argv[i], argv[i + 1], (a, b) -> a + "\n" + b);
        }
        return args;
    }
}
