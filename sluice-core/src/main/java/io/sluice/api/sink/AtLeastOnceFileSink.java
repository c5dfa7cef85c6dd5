package io.sluice.api.sink;

import io.sluice.api.functions.CheckpointListener;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.SnapshotListener;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.functions.SinkFunction;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Writes each record's {@code toString()} as one UTF-8 line ({@code \n}-terminated) to
 * {@code <directory>/part-<subtask>}, creating the directory if needed.
 *
 * <p>Writes are buffered and flushed before the task snapshots for a checkpoint
 * ({@link #beforeCheckpoint}), so every line before the checkpoint's barrier has reached the file
 * (the operating system) by the time the checkpoint completes; and on {@link #close}. Part files are opened for appending, so output written before a restart is
 * kept, and a directory reused from an earlier job keeps that job's lines too: use a fresh directory
 * per job.
 *
 * <p>Delivery is <b>at least once</b>, as the name says (this class was called {@code FileSink} before
 * the exactly-once {@link ExactlyOnceFileSink} existed; {@code DataStream.writeAsText} is now
 * {@code writeAsTextAtLeastOnce}): after a restart the records since the last completed checkpoint are
 * replayed, so lines written after that checkpoint may appear twice; none before it is lost. (The
 * flush hands lines to the operating system; it does not fsync, so a machine crash, unlike a
 * process crash, can still lose the last lines.)
 *
 * <p>Threading: each deployed instance is called only from its task thread.
 */
public final class AtLeastOnceFileSink<T> implements SinkFunction<T>, RichFunction, SnapshotListener, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private final String directory;
    private transient Path file;
    private transient BufferedWriter writer;

    /** Writes part files into {@code directory}, which is resolved on the machine that runs each subtask. */
    public AtLeastOnceFileSink(String directory) {
        Objects.requireNonNull(directory, "AtLeastOnceFileSink: the directory must not be null");
        if (directory.isBlank()) {
            throw new IllegalArgumentException("AtLeastOnceFileSink: the directory is blank; pass the directory to write part files into");
        }
        this.directory = directory;
    }

    /** The file subtask {@code subtaskIndex} writes to. */
    public Path partFile(int subtaskIndex) {
        return Path.of(directory, "part-" + subtaskIndex);
    }

    @Override
    public void open(RuntimeContext context) throws IOException {
        file = partFile(context.subtaskIndex());
        try {
            Files.createDirectories(file.getParent());
            writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IOException("AtLeastOnceFileSink cannot open '" + file + "' for writing (" + e + "): check that '"
                    + directory + "' is a writable directory on the machine that runs subtask "
                    + context.subtaskIndex(), e);
        }
    }

    @Override
    public void invoke(T value) throws IOException {
        if (writer == null) {
            throw new IllegalStateException("AtLeastOnceFileSink for '" + directory + "' was not opened: the runtime calls"
                    + " open(RuntimeContext) before the first record; in a test, call it yourself");
        }
        writer.write(String.valueOf(value));
        writer.write('\n');
    }

    @Override
    public void beforeCheckpoint(long checkpointId) throws IOException {
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws IOException {
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public void close() throws IOException {
        if (writer != null) {
            BufferedWriter w = writer;
            writer = null;
            w.close();
        }
    }
}
