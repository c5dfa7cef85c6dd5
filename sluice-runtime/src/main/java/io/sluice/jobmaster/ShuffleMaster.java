package io.sluice.jobmaster;

import io.sluice.graph.JobId;

/** Releases the data channels of a deployment round once all its tasks have ended. Thread-safe, non-blocking. */
@FunctionalInterface
public interface ShuffleMaster {
    void releaseDeployment(JobId jobId, int deployment);
}
