package io.sluice.graph;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * What the Dispatcher receives: vertices in topological order (sources first), the edges between
 * them, and the job's settings. Immutable and serializable, so it can be persisted in a job graph
 * store and read back by another job manager.
 */
public record JobGraph(JobId jobId, String name, List<JobVertex> vertices, List<JobEdge> edges, JobConfig config)
        implements Serializable {
    public JobGraph {
        vertices = List.copyOf(vertices);
        edges = List.copyOf(edges);
    }

    public JobVertex vertex(int id) {
        for (JobVertex v : vertices) {
            if (v.id() == id) {
                return v;
            }
        }
        throw new IllegalArgumentException("No vertex " + id + " in job " + jobId);
    }

    public JobEdge edge(int id) {
        for (JobEdge e : edges) {
            if (e.id() == id) {
                return e;
            }
        }
        throw new IllegalArgumentException("No edge " + id + " in job " + jobId);
    }

    /** Total number of subtasks, over all vertices. */
    public int numberOfSubtasks() {
        return vertices.stream().mapToInt(JobVertex::parallelism).sum();
    }

    /** The slots needed with slot sharing: one subtask of every vertex per slot. */
    public int requiredSlots() {
        return vertices.stream().mapToInt(JobVertex::parallelism).max().orElse(0);
    }

    /** The same graph under another id (used when a user resubmits with a fixed id). */
    /** The same job with other settings (for example {@link JobConfig#withRestoreFrom}). */
    public JobGraph withConfig(JobConfig newConfig) {
        return new JobGraph(jobId, name, vertices, edges, newConfig);
    }

    public JobGraph withJobId(JobId id) {
        return new JobGraph(id, name, vertices, edges, config);
    }

    public byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(this);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not serialize job graph " + jobId, e);
        }
        return bytes.toByteArray();
    }

    public static JobGraph fromBytes(byte[] data) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(data))) {
            return (JobGraph) in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException("Could not read a stored job graph (" + data.length + " bytes): " + e, e);
        }
    }
}
