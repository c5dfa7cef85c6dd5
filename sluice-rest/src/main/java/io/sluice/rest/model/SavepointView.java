package io.sluice.rest.model;

import io.sluice.checkpoint.Savepoint;

/**
 * One savepoint, as {@code POST /v1/jobs/{jobId}/savepoints} answers it and {@code GET} lists it.
 *
 * @param path the savepoint directory (restore with {@code checkpoints.restore-from} / {@code --restore-from})
 */
public record SavepointView(String jobId, long id, String path, long triggerTimestampMillis,
                           long completionTimestampMillis, long sizeBytes) {
    public static SavepointView of(Savepoint s) {
        return new SavepointView(s.jobId().value(), s.checkpointId(), s.path(), s.triggerTimestampMillis(),
                s.completionTimestampMillis(), s.sizeBytes());
    }
}
