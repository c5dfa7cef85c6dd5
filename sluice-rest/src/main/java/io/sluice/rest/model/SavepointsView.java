package io.sluice.rest.model;

import io.sluice.checkpoint.Savepoint;
import java.util.List;

/** {@code GET /v1/jobs/{jobId}/savepoints}: the savepoints the answering job manager took of the job, newest first. */
public record SavepointsView(String jobId, List<SavepointView> savepoints) {
    public SavepointsView {
        savepoints = List.copyOf(savepoints);
    }

    /** {@code oldestFirst}, as the Dispatcher keeps them, newest first. */
    public static SavepointsView of(String jobId, List<Savepoint> oldestFirst) {
        List<SavepointView> views = new java.util.ArrayList<>();
        for (int i = oldestFirst.size() - 1; i >= 0; i--) {
            views.add(SavepointView.of(oldestFirst.get(i)));
        }
        return new SavepointsView(jobId, views);
    }
}
