package io.sluice.rest.routes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.javalin.http.UploadedFile;
import io.sluice.rest.RestBackend;
import io.sluice.rest.RestException;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import io.sluice.rest.RunRequest;
import io.sluice.rest.model.JarListView;
import io.sluice.util.Throwables;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code /v1/jars}: upload (multipart, field {@code jarfile}), list, delete, run. Stateless; see
 * {@link RestRouter} for threading. The upload is parsed by the server on the request thread into
 * memory or its temporary directory, then handed to the backend, which writes it on its I/O executor.
 */
public final class JarRoutes implements RestRoutes {
    /** The multipart field that carries the jar. */
    public static final String JAR_FIELD = "jarfile";
    static final int MAX_PARALLELISM = 32_768;
    static final int MAX_ARGS = 1_000;
    private static final Pattern CLASS_NAME = Pattern.compile("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*"
            + "(\\.[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*)*");

    private final RestBackend backend;
    private final long maxUploadBytes;
    private final ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private final java.time.Duration runAnswerTimeout;

    /**
     * @param runAnswerTimeout how long a run request waits for the backend (the program's {@code main} runs
     *                         meanwhile); longer than the server's answer timeout for other requests
     */
    public JarRoutes(RestBackend backend, long maxUploadBytes, java.time.Duration runAnswerTimeout) {
        this.backend = backend;
        this.maxUploadBytes = maxUploadBytes;
        this.runAnswerTimeout = runAnswerTimeout;
    }

    /** The JSON body of a run request, as sent. */
    record RunBody(String entryClass, Integer parallelism, List<String> args, Map<String, String> config) {
    }

    @Override
    public void register(RestRouter r) {
        r.post("/v1/jars", ctx -> {
            String type = ctx.contentType();
            if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")) {
                throw new RestException(415, "Upload a jar as multipart/form-data with the file in the field '" + JAR_FIELD
                        + "', e.g. curl -F " + JAR_FIELD + "=@job.jar http://host:port/v1/jars");
            }
            UploadedFile file = uploadedJar(ctx);
            if (file == null) {
                throw RestException.badRequest("No file in the multipart field '" + JAR_FIELD + "'; send the jar as -F "
                        + JAR_FIELD + "=@job.jar");
            }
            r.json(ctx, backend.uploadJar(file.filename(), file.content(), maxUploadBytes), 200);
        });
        r.get("/v1/jars", ctx -> r.json(ctx, backend.listJars().thenApply(JarListView::new), 200));
        r.delete("/v1/jars/{jarId}", ctx -> r.json(ctx, backend.deleteJar(ctx.pathParam("jarId")), 200));
        r.post("/v1/jars/{jarId}/run", ctx -> {
            RunRequest request = parseRun(r.body(ctx));
            r.json(ctx, backend.runJar(ctx.pathParam("jarId"), request).thenApply(backend::submitted), 202,
                    runAnswerTimeout);
        });
    }

    /** Parses the multipart request (on this request thread) and returns the jar's part, or {@code null}. */
    private UploadedFile uploadedJar(Context ctx) {
        try {
            return ctx.uploadedFile(JAR_FIELD);
        } catch (Exception e) { // the servlet container's ServletException arrives undeclared
            for (Throwable t = e; t != null; t = t.getCause()) {
                String m = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
                if (m.contains("max") || m.contains("exceed") || m.contains("too large")) {
                    throw new RestException(413, "The upload is larger than this server accepts (" + maxUploadBytes
                            + " bytes, rest.max-upload-size)");
                }
            }
            throw RestException.badRequest("The upload is not a well-formed multipart/form-data request ("
                    + rootMessage(e) + "); send the jar as -F " + JAR_FIELD + "=@job.jar");
        }
    }

    private RunRequest parseRun(byte[] body) {
        if (body.length == 0) {
            return new RunRequest(null, null, List.of(), Map.of());
        }
        RunBody b;
        try {
            b = json.readValue(body, RunBody.class);
        } catch (JsonProcessingException e) {
            throw RestException.badRequest("The run request is not valid JSON of the form {\"entryClass\": \"...\","
                    + " \"parallelism\": 2, \"args\": [\"...\"], \"config\": {\"key\": \"value\"}} (all optional): "
                    + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw RestException.badRequest("Could not read the run request: " + e.getMessage());
        }
        if (b == null) {
            throw RestException.badRequest("The run request body is JSON null; send an object, or no body");
        }
        if (b.entryClass() != null && !CLASS_NAME.matcher(b.entryClass()).matches()) {
            throw RestException.badRequest("entryClass must be a fully qualified class name such as com.example.MyJob, not '"
                    + JobRoutes.printable(b.entryClass()) + "'");
        }
        if (b.parallelism() != null && (b.parallelism() < 1 || b.parallelism() > MAX_PARALLELISM)) {
            throw RestException.badRequest("parallelism must be between 1 and " + MAX_PARALLELISM + ", not " + b.parallelism());
        }
        if (b.args() != null && (b.args().size() > MAX_ARGS || b.args().contains(null))) {
            throw RestException.badRequest("args must be a list of at most " + MAX_ARGS + " strings without nulls");
        }
        if (b.config() != null && (b.config().containsKey(null) || b.config().containsValue(null))) {
            throw RestException.badRequest("config must map keys to string values, without nulls");
        }
        return new RunRequest(b.entryClass(), b.parallelism(), b.args(), b.config());
    }

    private static String rootMessage(Throwable e) {
        Throwable root = Throwables.rootCause(e);
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
