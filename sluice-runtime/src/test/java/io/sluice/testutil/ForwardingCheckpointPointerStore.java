package io.sluice.testutil;

import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointPointerStore;
import java.util.List;

/**
 * A {@link CheckpointPointerStore} that hands every call to a delegate, for tests that block or fail
 * one operation at a chosen step and override only that one. Threading: as thread-safe as the delegate.
 */
public abstract class ForwardingCheckpointPointerStore implements CheckpointPointerStore {
    protected final CheckpointPointerStore delegate;

    protected ForwardingCheckpointPointerStore(CheckpointPointerStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public List<Long> checkpointIds(JobId jobId) throws Exception {
        return delegate.checkpointIds(jobId);
    }

    @Override
    public void writePointer(JobId jobId, long checkpointId, String metadataPath) throws Exception {
        delegate.writePointer(jobId, checkpointId, metadataPath);
    }

    @Override
    public String readPointer(JobId jobId, long checkpointId) throws Exception {
        return delegate.readPointer(jobId, checkpointId);
    }

    @Override
    public void removePointer(JobId jobId, long checkpointId) throws Exception {
        delegate.removePointer(jobId, checkpointId);
    }

    @Override
    public void removeAll(JobId jobId) throws Exception {
        delegate.removeAll(jobId);
    }
}
