package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.rest.routes.OpenApiRoutes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAPI document at /v1/openapi.json against the server: every registered route is documented
 * with its method, query parameters and access, every documented path and method is registered, every
 * example matches its schema, and the real answers of the GET endpoints (for a job that restarted once
 * and has checkpoints) match the same schemas field for field.
 */
class OpenApiDocumentITCase {
    private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete", "head", "options");

    @TempDir
    Path dir;
    private RestTestCluster rest;
    private InjectedFailures failures;
    private final OpenApiSchemas openApi = new OpenApiSchemas();

    @BeforeEach
    void start() {
        rest = new RestTestCluster(LocalCluster.builder().build(), dir.resolve("jars"));
    }

    @AfterEach
    void stop() {
        rest.close();
        if (failures != null) {
            failures.release();
        }
    }

    @Test
    void servedDocumentIsTheResourceAndAnOpenApi3Document() throws Exception {
        RestTestClient.Answer a = rest.client.get("/v1/openapi.json");
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.json()).isEqualTo(new ObjectMapper().readTree(OpenApiRoutes.load()));
        assertThat(a.json().get("openapi").asText()).startsWith("3.0.");
    }

    @Test
    void everyRegisteredRouteIsDocumentedAndEveryDocumentedOperationIsRegistered() {
        Set<String> registered = new TreeSet<>();
        for (RestRouter.Route r : rest.server.routes()) {
            registered.add(r.method() + " " + r.openApiPath());
            JsonNode operation = openApi.document.path("paths").path(r.openApiPath()).path(r.method().toLowerCase());
            assertThat(operation.isMissingNode()).as("%s %s is documented", r.method(), r.openApiPath()).isFalse();
            Set<String> documentedQuery = new TreeSet<>();
            Set<String> documentedPath = new TreeSet<>();
            operation.path("parameters").forEach(p -> {
                JsonNode param = openApi.resolve(p);
                (param.get("in").asText().equals("query") ? documentedQuery : documentedPath).add(param.get("name").asText());
            });
            assertThat(documentedQuery).as("query parameters of %s %s", r.method(), r.path())
                    .isEqualTo(new TreeSet<>(r.queryParams()));
            Set<String> pathParams = new TreeSet<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{([^}]+)}").matcher(r.openApiPath());
            while (m.find()) {
                pathParams.add(m.group(1));
            }
            assertThat(documentedPath).as("path parameters of %s %s", r.method(), r.path()).isEqualTo(pathParams);
            boolean documentedPublic = operation.has("security") && operation.get("security").isEmpty();
            assertThat(documentedPublic).as("%s %s is documented as %s", r.method(), r.path(), r.access())
                    .isEqualTo(r.access() == RestRouter.Access.PUBLIC);
            assertThat(operation.path("responses").has("405")).as("405 documented for %s %s", r.method(), r.path()).isTrue();
        }
        Set<String> documented = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = openApi.document.get("paths").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            path.getValue().fieldNames().forEachRemaining(method -> {
                if (METHODS.contains(method)) {
                    documented.add(method.toUpperCase() + " " + path.getKey());
                }
            });
        }
        assertThat(documented).isEqualTo(registered);
    }

    @Test
    void everyExampleMatchesItsSchema() {
        int checked = 0;
        for (Iterator<Map.Entry<String, JsonNode>> paths = openApi.document.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                for (Iterator<Map.Entry<String, JsonNode>> rs = op.getValue().path("responses").fields(); rs.hasNext(); ) {
                    Map.Entry<String, JsonNode> response = rs.next();
                    int status = Integer.parseInt(response.getKey());
                    JsonNode content = openApi.resolve(response.getValue()).path("content").path("application/json");
                    if (!content.has("schema")) {
                        continue;
                    }
                    for (JsonNode example : openApi.responseExamples(op.getKey(), path.getKey(), status)) {
                        openApi.assertMatches(example, content.get("schema"),
                                "example of " + op.getKey() + " " + path.getKey() + " " + status);
                        checked++;
                    }
                }
                JsonNode body = op.getValue().path("requestBody").path("content").path("application/json");
                if (body.has("example")) {
                    openApi.assertMatches(body.get("example"), body.get("schema"), "request example of " + path.getKey());
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThan(15);
    }

    @Test
    void realAnswersOfTheGetEndpointsMatchTheDocumentedSchemas() throws Exception {
        failures = InjectedFailures.at(List.of(3_000L));
        JobId id = rest.cluster.submit(TestJobs.counting("documented job", 10_000_000, 2_000, dir.resolve("cp").toString(),
                failures));
        RestTestClient c = rest.client;
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode d = c.get("/v1/jobs/" + id).json();
            return d.get("status").asText().equals("RUNNING") && d.get("restarts").get("count").asInt() >= 1
                    && d.get("checkpoints").get("completed").asLong() >= 2;
        });
        String jarId = c.upload("/v1/jars", "jarfile", "job.jar", TestJars.jar("a.B", "a.B")).json().get("id").asText();
        assertThat(jarId).isNotBlank();

        List<String[]> gets = new ArrayList<>();
        gets.add(new String[] {"/v1/overview", "/v1/overview"});
        gets.add(new String[] {"/v1/jobs", "/v1/jobs"});
        gets.add(new String[] {"/v1/jobs/" + id, "/v1/jobs/{jobId}"});
        gets.add(new String[] {"/v1/jobs/" + id + "/checkpoints", "/v1/jobs/{jobId}/checkpoints"});
        gets.add(new String[] {"/v1/jobs/" + id + "/exceptions", "/v1/jobs/{jobId}/exceptions"});
        gets.add(new String[] {"/v1/jars", "/v1/jars"});
        for (String[] g : gets) {
            RestTestClient.Answer a = c.get(g[0]);
            assertThat(a.status()).as(g[0]).isEqualTo(200);
            openApi.assertAnswerMatches("GET", g[1], 200, a.json());
        }
        JsonNode detail = c.get("/v1/jobs/" + id).json();
        assertThat(detail.get("vertices").get(0).get("subtasks")).as("the answer had subtasks to check").isNotEmpty();
        assertThat(detail.get("restarts").get("recent")).as("the answer had restarts to check").isNotEmpty();
        assertThat(c.get("/v1/jobs/" + id + "/checkpoints").json().get("history")).isNotEmpty();
        assertThat(c.get("/v1/jobs/" + id + "/exceptions").json().get("exceptions")).isNotEmpty();

        RestTestClient.Answer cancel = c.post("/v1/jobs/" + id + "/cancel", "");
        openApi.assertAnswerMatches("POST", "/v1/jobs/{jobId}/cancel", 202, cancel.json());
        RestTestClient.Answer notFound = c.get("/v1/jobs/" + JobId.generate());
        openApi.assertAnswerMatches("GET", "/v1/jobs/{jobId}", 404, notFound.json());
    }
}
