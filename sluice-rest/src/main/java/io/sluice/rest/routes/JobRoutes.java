package io.sluice.rest.routes;

import io.javalin.http.Context;
import io.sluice.graph.JobId;
import io.sluice.rest.RestBackend;
import io.sluice.rest.RestException;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import io.sluice.rest.model.CancelView;
import io.sluice.rest.model.CheckpointsView;
import io.sluice.rest.model.ExceptionsView;
import io.sluice.rest.model.JobDetailView;
import java.util.regex.Pattern;

/** {@code /v1/jobs}: list (paged and filtered, see {@link JobListQuery}), detail, checkpoints (and deleting an ended job's), exceptions, cancel. Stateless; see {@link RestRouter} for threading. */
public final class JobRoutes implements RestRoutes {
    private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");

    private final RestBackend backend;

    public JobRoutes(RestBackend backend) {
        this.backend = backend;
    }

    @Override
    public void register(RestRouter r) {
        r.get("/v1/jobs", JobListQuery.PARAMETERS, ctx -> {
            JobListQuery query = JobListQuery.parse(ctx.queryParamMap());
            r.json(ctx, backend.listJobs().thenApply(query::answer), 200);
        });
        r.get("/v1/jobs/{jobId}", ctx -> {
            JobId id = jobId(ctx);
            r.json(ctx, backend.jobDetails(id).thenApply(JobDetailView::of)
                    .thenCombine(backend.jobGraph(id), JobDetailView::withEdges), 200);
        });
        r.get("/v1/jobs/{jobId}/checkpoints", ctx ->
                r.json(ctx, backend.jobDetails(jobId(ctx)).thenApply(d -> CheckpointsView.of(d.checkpoints())), 200));
        r.get("/v1/jobs/{jobId}/exceptions", ctx ->
                r.json(ctx, backend.jobDetails(jobId(ctx)).thenApply(ExceptionsView::of), 200));
        r.delete("/v1/jobs/{jobId}/checkpoints", ctx -> r.json(ctx,
                backend.deleteCheckpoints(jobId(ctx)).thenApply(io.sluice.rest.model.CheckpointsDeletedView::of), 200));
        r.post("/v1/jobs/{jobId}/cancel", ctx -> {
            JobId id = jobId(ctx);
            r.json(ctx, backend.cancelJob(id)
                    .thenCompose(ack -> backend.jobDetails(id))
                    .thenApply(d -> new CancelView(id.value(), d.status().name())), 202);
        });
    }

    /** The {@code jobId} path parameter, or 400 when it is not a job id. */
    static JobId jobId(Context ctx) {
        String raw = ctx.pathParam("jobId");
        if (!JOB_ID.matcher(raw).matches()) {
            throw RestException.badRequest("A job id is 32 lowercase hex digits, as listed by GET /v1/jobs, not '"
                    + printable(raw) + "'");
        }
        return JobId.of(raw);
    }

    /** A user-supplied value as it may appear in an error message: no control characters, at most 80 characters. */
    static String printable(String s) {
        String clean = s.replaceAll("[\\p{Cntrl}]", "?");
        return clean.length() > 80 ? clean.substring(0, 80) + "..." : clean;
    }
}
