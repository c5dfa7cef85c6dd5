package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.rest.routes.OpenApiRoutes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The OpenAPI document (the resource the server serves) and a strict check of JSON values against
 * its schemas: every object has exactly its schema's properties (the schemas forbid others), values
 * have the schema's type and enum, and null only where the schema says nullable. Used on the
 * document's examples and on real answers, so examples, schemas and handlers cannot drift apart.
 */
final class OpenApiSchemas {
    private static final ObjectMapper JSON = new ObjectMapper();

    final JsonNode document;

    OpenApiSchemas() {
        try {
            document = JSON.readTree(OpenApiRoutes.load());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema of the JSON answer of {@code method path} with {@code status}. */
    JsonNode responseSchema(String method, String openApiPath, int status) {
        JsonNode response = resolve(document.path("paths").path(openApiPath).path(method.toLowerCase()).path("responses")
                .path(String.valueOf(status)));
        JsonNode schema = response.path("content").path("application/json").path("schema");
        assertThat(schema.isMissingNode()).as("%s %s documents a %d JSON answer", method, openApiPath, status).isFalse();
        return schema;
    }

    /** Every example given for that answer (an {@code example} or the values of {@code examples}). */
    List<JsonNode> responseExamples(String method, String openApiPath, int status) {
        JsonNode content = resolve(document.path("paths").path(openApiPath).path(method.toLowerCase()).path("responses")
                .path(String.valueOf(status))).path("content").path("application/json");
        List<JsonNode> out = new ArrayList<>();
        if (content.has("example")) {
            out.add(content.get("example"));
        }
        content.path("examples").forEach(e -> out.add(e.get("value")));
        return out;
    }

    JsonNode resolve(JsonNode node) {
        while (node.has("$ref")) {
            String ref = node.get("$ref").asText();
            assertThat(ref).startsWith("#/");
            JsonNode target = document;
            for (String part : ref.substring(2).split("/")) {
                target = target.path(part);
            }
            assertThat(target.isMissingNode()).as("reference %s exists", ref).isFalse();
            node = target;
        }
        return node;
    }

    /** Fails unless {@code value} matches {@code schema} exactly; {@code where} names the place in messages. */
    void assertMatches(JsonNode value, JsonNode schema, String where) {
        boolean nullable = schema.path("nullable").asBoolean(false);
        schema = resolve(schema);
        if (schema.has("allOf")) {
            assertThat(schema.get("allOf")).as(where + ": one allOf member").hasSize(1);
            nullable |= schema.path("nullable").asBoolean(false);
            schema = resolve(schema.get("allOf").get(0));
        }
        nullable |= schema.path("nullable").asBoolean(false);
        if (value == null || value.isNull()) {
            assertThat(nullable).as(where + " is null, but its schema is not nullable").isTrue();
            return;
        }
        String type = schema.path("type").asText();
        switch (type) {
            case "object" -> {
                assertThat(value.isObject()).as(where + " is an object: " + value).isTrue();
                if (schema.has("properties")) {
                    Set<String> expected = new TreeSet<>();
                    schema.get("properties").fieldNames().forEachRemaining(expected::add);
                    Set<String> actual = new TreeSet<>();
                    value.fieldNames().forEachRemaining(actual::add);
                    Set<String> required = new TreeSet<>();
                    schema.path("required").forEach(r -> required.add(r.asText()));
                    assertThat(expected).as(where + ": fields of the answer vs the documented properties").containsAll(actual);
                    assertThat(actual).as(where + ": required fields").containsAll(required);
                    for (Iterator<String> it = value.fieldNames(); it.hasNext(); ) {
                        String f = it.next();
                        assertMatches(value.get(f), schema.get("properties").get(f), where + "." + f);
                    }
                } else if (schema.has("additionalProperties") && schema.get("additionalProperties").isObject()) {
                    JsonNode valueSchema = schema.get("additionalProperties");
                    value.fields().forEachRemaining(e ->
                            assertMatches(e.getValue(), valueSchema, where + "[" + e.getKey() + "]"));
                }
            }
            case "array" -> {
                assertThat(value.isArray()).as(where + " is an array: " + value).isTrue();
                for (int i = 0; i < value.size(); i++) {
                    assertMatches(value.get(i), schema.get("items"), where + "[" + i + "]");
                }
            }
            case "string" -> {
                assertThat(value.isTextual()).as(where + " is a string: " + value).isTrue();
                if (schema.has("enum")) {
                    List<String> values = new ArrayList<>();
                    schema.get("enum").forEach(v -> values.add(v.asText()));
                    assertThat(values).as(where + " is one of the documented values").contains(value.asText());
                }
            }
            case "integer" -> assertThat(value.isIntegralNumber()).as(where + " is an integer: " + value).isTrue();
            case "number" -> assertThat(value.isNumber()).as(where + " is a number: " + value).isTrue();
            case "boolean" -> assertThat(value.isBoolean()).as(where + " is a boolean: " + value).isTrue();
            default -> throw new AssertionError(where + ": schema without a known type: " + schema);
        }
    }

    /** Checks a real answer of {@code method path} against its documented schema. */
    void assertAnswerMatches(String method, String openApiPath, int status, JsonNode answer) {
        assertMatches(answer, responseSchema(method, openApiPath, status), method + " " + openApiPath);
    }
}
