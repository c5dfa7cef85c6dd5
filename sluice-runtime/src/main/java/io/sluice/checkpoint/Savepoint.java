package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import java.util.Objects;

/**
 * A completed savepoint: a checkpoint taken on demand and written self-contained into a directory of
 * its own (see {@link SavepointWriter}). Immutable and serializable (it travels through the gateways).
 *
 * @param jobId                     the job it was taken of
 * @param checkpointId              its id among the job's checkpoints
 * @param path                      the savepoint directory, as a location {@code checkpoints.restore-from} accepts
 *                                  ({@code file:///...} or {@code s3://...})
 * @param triggerTimestampMillis    when it was triggered
 * @param completionTimestampMillis when its metadata was written
 * @param sizeBytes                 bytes of its files (state files and {@code _metadata})
 */
public record Savepoint(JobId jobId, long checkpointId, String path, long triggerTimestampMillis,
                        long completionTimestampMillis, long sizeBytes) implements java.io.Serializable {
    public Savepoint {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(path, "path");
    }
}
