package io.sluice.rest.routes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.graph.JobId;
import io.sluice.rest.RestBackend;
import io.sluice.rest.RestException;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import io.sluice.rest.model.SavepointView;
import io.sluice.rest.model.SavepointsView;
import io.sluice.rest.model.StopView;
import java.time.Duration;

/**
 * {@code /v1/jobs/{jobId}/savepoints} (take one, list them) and {@code /v1/jobs/{jobId}/stop} (a savepoint,
 * then the job cancelled, only if the savepoint completed). Taking a savepoint answers once it is written
 * (up to {@link #SAVEPOINT_ANSWER_TIMEOUT}; the job's {@code checkpoints.timeout} bounds the savepoint itself).
 * Stateless; see {@link RestRouter} for threading.
 */
public final class SavepointRoutes implements RestRoutes {
    /** How long a savepoint request waits for the savepoint: above any sensible {@code checkpoints.timeout}. */
    static final Duration SAVEPOINT_ANSWER_TIMEOUT = Duration.ofMinutes(30);
    /** Longest directory accepted in a request body. */
    static final int MAX_DIRECTORY_LENGTH = 4096;

    private final RestBackend backend;
    private final ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public SavepointRoutes(RestBackend backend) {
        this.backend = backend;
    }

    /** The optional body of both POSTs: where the savepoint goes ({@code null}: the job's default). */
    record SavepointBody(String directory) {
    }

    @Override
    public void register(RestRouter r) {
        r.get("/v1/jobs/{jobId}/savepoints", ctx -> {
            JobId id = JobRoutes.jobId(ctx);
            r.json(ctx, backend.listSavepoints(id).thenApply(list -> SavepointsView.of(id.value(), list)), 200);
        });
        r.post("/v1/jobs/{jobId}/savepoints", ctx -> {
            JobId id = JobRoutes.jobId(ctx);
            String directory = directory(r.body(ctx));
            r.json(ctx, backend.triggerSavepoint(id, directory, false).thenApply(SavepointView::of), 201,
                    SAVEPOINT_ANSWER_TIMEOUT);
        });
        r.post("/v1/jobs/{jobId}/stop", ctx -> {
            JobId id = JobRoutes.jobId(ctx);
            String directory = directory(r.body(ctx));
            r.json(ctx, backend.triggerSavepoint(id, directory, true).thenCompose(savepoint -> backend.jobDetails(id)
                    .thenApply(d -> new StopView(id.value(), d.status().name(), SavepointView.of(savepoint)))), 200,
                    SAVEPOINT_ANSWER_TIMEOUT);
        });
    }

    private String directory(byte[] body) {
        if (body.length == 0) {
            return null;
        }
        SavepointBody b;
        try {
            b = json.readValue(body, SavepointBody.class);
        } catch (JsonProcessingException e) {
            throw RestException.badRequest("The savepoint request is not valid JSON of the form {\"directory\":"
                    + " \"s3://bucket/savepoints\"} (optional; default <checkpoints.dir>/savepoints): "
                    + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw RestException.badRequest("Could not read the savepoint request: " + e.getMessage());
        }
        if (b == null || b.directory() == null) {
            return null;
        }
        String dir = b.directory().trim();
        if (dir.isEmpty() || dir.length() > MAX_DIRECTORY_LENGTH || dir.chars().anyMatch(Character::isISOControl)) {
            throw RestException.badRequest("directory must be a location such as /data/savepoints or"
                    + " s3://bucket/savepoints (1 to " + MAX_DIRECTORY_LENGTH + " characters, no control characters),"
                    + " not '" + JobRoutes.printable(dir) + "'");
        }
        return dir;
    }
}
