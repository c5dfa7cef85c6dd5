package io.sluice.ha;

import io.sluice.checkpoint.Savepoint;
import io.sluice.graph.JobId;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The stored form of one {@link SavepointStore} entry: UTF-8 text in {@link Properties} syntax,
 * versioned ({@code format=1}), readable by hand:
 * <pre>
 *   format=1
 *   job=&lt;jobId&gt;
 *   checkpoint-id=&lt;id&gt;
 *   path=&lt;savepoint directory, as checkpoints.restore-from accepts it&gt;
 *   triggered-millis=&lt;epoch millis&gt;
 *   completed-millis=&lt;epoch millis&gt;
 *   size-bytes=&lt;bytes&gt;
 * </pre>
 * Stateless; any thread.
 */
public final class SavepointEntry {
    /** The format written; a reader refuses any other. */
    public static final int FORMAT = 1;

    private SavepointEntry() {}

    /** The entry's name among its job's entries: the checkpoint id, zero-padded to 19 digits (name order = id order). */
    public static String nameOf(long checkpointId) {
        return String.format("%019d", checkpointId);
    }

    public static byte[] toBytes(Savepoint savepoint) {
        Properties p = new Properties();
        p.setProperty("format", Integer.toString(FORMAT));
        p.setProperty("job", savepoint.jobId().value());
        p.setProperty("checkpoint-id", Long.toString(savepoint.checkpointId()));
        p.setProperty("path", savepoint.path());
        p.setProperty("triggered-millis", Long.toString(savepoint.triggerTimestampMillis()));
        p.setProperty("completed-millis", Long.toString(savepoint.completionTimestampMillis()));
        p.setProperty("size-bytes", Long.toString(savepoint.sizeBytes()));
        StringWriter out = new StringWriter();
        try {
            p.store(out, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Reads an entry stored as {@code name} among the entries of {@code jobId}.
     *
     * @param where where it is stored, for the message (a file, or a znode and its quorum)
     * @throws IOException saying where and what is wrong if it is not an entry of that job and checkpoint id
     */
    public static Savepoint fromBytes(byte[] data, JobId jobId, String name, String where) throws IOException {
        Properties p = new Properties();
        try {
            p.load(new StringReader(new String(data, StandardCharsets.UTF_8)));
        } catch (IllegalArgumentException | IOException e) {
            throw corrupt(where, "not in properties syntax: " + e.getMessage());
        }
        String format = p.getProperty("format");
        if (!Integer.toString(FORMAT).equals(format)) {
            throw corrupt(where, format == null ? "no format line" : "format " + format + ", this version reads "
                    + FORMAT);
        }
        try {
            JobId job = JobId.of(required(p, "job", where));
            long checkpointId = Long.parseLong(required(p, "checkpoint-id", where));
            if (!job.equals(jobId) || !nameOf(checkpointId).equals(name)) {
                throw corrupt(where, "it holds savepoint " + checkpointId + " of job " + job
                        + " (copied or renamed by hand?)");
            }
            return new Savepoint(job, checkpointId, required(p, "path", where),
                    Long.parseLong(required(p, "triggered-millis", where)),
                    Long.parseLong(required(p, "completed-millis", where)),
                    Long.parseLong(required(p, "size-bytes", where)));
        } catch (IllegalArgumentException e) { // NumberFormatException included
            throw corrupt(where, String.valueOf(e.getMessage()));
        }
    }

    private static String required(Properties p, String key, String where) throws IOException {
        String value = p.getProperty(key);
        if (value == null || value.isBlank()) {
            throw corrupt(where, "no " + key);
        }
        return value;
    }

    private static IOException corrupt(String where, String what) {
        return new IOException("The savepoint entry " + where + " is unreadable (" + what + "); it is not listed."
                + " The savepoint's own directory is untouched: restore from its path if you know it, and remove"
                + " or restore this entry");
    }
}
