package io.sluice.api.functions;

/**
 * The checkpoint or savepoint of another job that a job started from ({@code checkpoints.restore-from},
 * {@code sluice run --restore-from}, {@code sluice rescale}), as a task's {@link RuntimeContext#restoredFrom()}
 * tells it: a sink that writes with an identity of its own to an external system (the Kafka sink's transactional
 * ids) knows from it that output of {@code jobId} up to {@code checkpointId} is its predecessor's, not that of
 * another job running at the same time.
 */
public record RestoredCheckpoint(String jobId, long checkpointId) {}
