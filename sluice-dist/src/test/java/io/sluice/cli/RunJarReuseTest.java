package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.cli.Cli.Result;
import io.sluice.cli.common.ExitCodes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice run} against a REST stub (the JDK's HTTP server) that lists a stored jar with the same bytes as the
 * one run: the stored copy is run without an upload; and when that copy is gone by the time it is run (404, as after
 * {@code sluice jars delete} or {@code rest.jars.delete-with-last-job}), the jar is uploaded after all and run once.
 */
class RunJarReuseTest {
    private static final String JOB_ID = "0123456789abcdef0123456789abcdef";

    @TempDir
    Path dir;

    private HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private Path jar;
    private String sha256;
    /** Whether the stored copy answers its run with 404 (it went meanwhile). */
    private volatile boolean storedCopyGone;

    @BeforeEach
    void startStub() throws Exception {
        jar = Files.write(dir.resolve("job.jar"), "the job's bytes".getBytes(StandardCharsets.UTF_8));
        sha256 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar)));
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
    }

    @AfterEach
    void stopStub() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        String request = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
        requests.add(request);
        exchange.getRequestBody().readAllBytes();
        switch (request) {
            case "GET /v1/jars" -> reply(exchange, 200, "{\"jars\":[{\"id\":\"other\",\"name\":\"other.jar\",\"sizeBytes\":3,"
                    + "\"sha256\":\"00\"},{\"id\":\"stored\",\"name\":\"job.jar\",\"sizeBytes\":" + Files.size(jar)
                    + ",\"sha256\":\"" + sha256 + "\"}]}");
            case "POST /v1/jars/stored/run" -> reply(exchange, storedCopyGone ? 404 : 200, storedCopyGone
                    ? "{\"error\":\"There is no jar stored\"}" : "{\"jobId\":\"" + JOB_ID + "\"}");
            case "POST /v1/jars" -> reply(exchange, 200, "{\"id\":\"uploaded\",\"name\":\"job.jar\"}");
            case "POST /v1/jars/uploaded/run" -> reply(exchange, 200, "{\"jobId\":\"" + JOB_ID + "\"}");
            default -> reply(exchange, 404, "{\"error\":\"no such path: " + request + "\"}");
        }
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private Result run() {
        return Cli.run("run", jar.toString(), "--cluster", "http://127.0.0.1:" + server.getAddress().getPort(),
                "--detached", "--output", "json");
    }

    @Test
    void aStoredJarWithTheSameBytesIsRunWithoutAnUpload() throws Exception {
        Result r = run();
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.json().path("jarId").asText()).isEqualTo("stored");
        assertThat(requests).containsExactly("GET /v1/jars", "POST /v1/jars/stored/run");
    }

    @Test
    void aStoredCopyGoneBeforeItsRunIsReplacedByAnUpload() throws Exception {
        storedCopyGone = true;
        Result r = run();
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.json().path("jarId").asText()).isEqualTo("uploaded");
        assertThat(requests).containsExactly("GET /v1/jars", "POST /v1/jars/stored/run", "POST /v1/jars",
                "POST /v1/jars/uploaded/run");
    }
}
