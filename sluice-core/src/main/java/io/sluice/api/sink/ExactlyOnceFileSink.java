package io.sluice.api.sink;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.util.Clock;
import io.sluice.util.SystemClock;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each record's text (its {@code toString()}, or a {@link LineEncoder}) as one UTF-8 line into
 * part files that become visible <b>exactly once</b>, when the checkpoint covering them completes: a
 * {@link TwoPhaseCommitSink} on a local (or mounted) file system.
 *
 * <p>Subtask {@code s} writes into a hidden in-progress file {@code .part-<s>-<writer>-<n>.inprogress}
 * (readers skip names that start with a dot). It rolls to a new file once the current one holds
 * {@code maxPartBytes} or is older than {@code rolloverInterval}, and always at a checkpoint's barrier,
 * where it flushes, fsyncs and closes the file (the pre-commit). When the checkpoint completes, the
 * file is renamed atomically to {@code part-<s>-<writer>-<n>} (the commit). So a reader listing the
 * directory sees whole files only, each record once: no partial file, no line of an aborted attempt,
 * no duplicate after a restart. A commit is idempotent: a file already renamed counts as committed.
 * In-progress files that an earlier attempt began after the restored checkpoint are deleted once a
 * checkpoint of the new attempt completes (until then a checkpoint of the earlier attempt that was
 * being finalized could still complete and name them); an attempt that ends before one of its checkpoints
 * completed (a short bounded job) leaves them, hidden, for the directory's owner to remove.
 *
 * <p>Output of the records after the latest checkpoint becomes visible at the next checkpoint, so
 * the checkpoint interval is the sink's latency. Without checkpointing, files are committed only
 * when a bounded input ends. The rename needs a file system with atomic rename within a directory
 * (local disks, NFS); for S3 use {@code S3ExactlyOnceFileSink} of sluice-storage-s3 (multipart uploads completed on commit).
 *
 * <p>Instances are immutable and travel in the job graph; build with {@link #builder}.
 */
public final class ExactlyOnceFileSink<T> implements TwoPhaseCommitSink<T, ExactlyOnceFileSink.PartFile> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ExactlyOnceFileSink.class);
    static final String IN_PROGRESS_SUFFIX = ".inprogress";
    /** Default {@code maxPartBytes}: 128 MiB. */
    public static final long DEFAULT_MAX_PART_BYTES = 128L << 20;
    /** Default {@code rolloverInterval}: 15 minutes. */
    public static final Duration DEFAULT_ROLLOVER_INTERVAL = Duration.ofMinutes(15);

    /** Turns a record into one line of text (without the line break). */
    @FunctionalInterface
    public interface LineEncoder<T> extends Serializable {
        String encode(T value);
    }

    /**
     * A part file closed at a pre-commit: its hidden in-progress name, the name it gets when committed,
     * and its length.
     */
    public record PartFile(String inProgressPath, String finalPath, long length) {}

    private final String directory;
    private final long maxPartBytes;
    private final Duration rolloverInterval;
    private final LineEncoder<T> encoder;
    /** Not serialized: a deployed sink uses the system clock. */
    private final transient Clock clock;

    private ExactlyOnceFileSink(Builder<T> b) {
        this.directory = b.directory;
        this.maxPartBytes = b.maxPartBytes;
        this.rolloverInterval = b.rolloverInterval;
        this.encoder = b.encoder;
        this.clock = b.clock;
    }

    /** A sink writing part files into {@code directory}, resolved on the machine that runs each subtask. */
    public static <T> Builder<T> builder(String directory) {
        return new Builder<>(directory);
    }

    @Override
    public SinkWriter<T, PartFile> createWriter(RuntimeContext context, List<PartFile> restored) throws IOException {
        return new Writer<>(this, context.subtaskIndex(), context.parallelism(), restored);
    }

    @Override
    public Committer<PartFile> createCommitter(RuntimeContext context) {
        return ExactlyOnceFileSink::commit;
    }

    @Override
    public TypeSerializer<PartFile> committableSerializer() {
        return new PartFileSerializer();
    }

    /** The directory the part files go to. */
    public Path directory() {
        return Path.of(directory);
    }

    /** Renames the in-progress file to its final name, or finds it already renamed. Commit thread. */
    static void commit(PartFile part) throws IOException {
        Path from = Path.of(part.inProgressPath());
        Path to = Path.of(part.finalPath());
        if (Files.exists(to)) {
            return; // committed before (a restore commits the restored checkpoint's files again)
        }
        if (!Files.exists(from)) {
            // Neither name exists: the file was removed by hand, or this is a restore from an older checkpoint
            // than the latest, whose abandoned files were cleaned up. Nothing can make it visible any more.
            LOG.warn("Exactly-once file sink: cannot commit {}: neither it nor its in-progress file {} exists; its {}"
                    + " bytes are lost (a restore from a checkpoint older than the latest, or files deleted by hand)",
                    to, from, part.length());
            return;
        }
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("Exactly-once file sink: the file system of " + to.getParent() + " cannot rename "
                    + from.getFileName() + " atomically (" + e.getMessage() + "); use a local or NFS directory", e);
        } catch (NoSuchFileException raced) {
            if (!Files.exists(to)) {
                throw raced;
            }
        }
    }

    /** Writes one subtask's files. Task thread only. */
    static final class Writer<T> implements SinkWriter<T, PartFile> {
        private final ExactlyOnceFileSink<T> sink;
        private final int subtask;
        private final int parallelism;
        private final String token = UUID.randomUUID().toString().substring(0, 8);
        private final Set<String> restoredInProgress = new HashSet<>();
        private final List<PartFile> closedSinceBarrier = new ArrayList<>();
        private final Path dir;
        private int counter;
        private FileChannel channel;
        private OutputStream out;
        private Path currentInProgress;
        private Path currentFinal;
        private long currentBytes;
        private long currentOpenedAt;
        private boolean abandonedCleaned;

        private final Clock clock;

        Writer(ExactlyOnceFileSink<T> sink, int subtask, int parallelism, List<PartFile> restored) throws IOException {
            this.sink = sink;
            this.clock = sink.clock != null ? sink.clock : SystemClock.INSTANCE;
            this.subtask = subtask;
            this.parallelism = parallelism;
            this.dir = Path.of(sink.directory);
            for (PartFile p : restored) {
                restoredInProgress.add(p.inProgressPath());
            }
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new IOException("Exactly-once file sink cannot create '" + dir + "' (" + e + "): check that it is"
                        + " a writable directory on the machine that runs subtask " + subtask, e);
            }
        }

        @Override
        public void write(T value) throws IOException {
            if (out != null && (currentBytes >= sink.maxPartBytes
                    || clock.relativeTimeMillis() - currentOpenedAt >= sink.rolloverInterval.toMillis())) {
                closeCurrent();
            }
            if (out == null) {
                openNext();
            }
            byte[] line = (sink.encoder == null ? String.valueOf(value) : sink.encoder.encode(value))
                    .concat("\n").getBytes(StandardCharsets.UTF_8);
            out.write(line);
            currentBytes += line.length;
        }

        @Override
        public List<PartFile> preCommit(long checkpointId) throws IOException {
            closeCurrent();
            List<PartFile> done = List.copyOf(closedSinceBarrier);
            closedSinceBarrier.clear();
            return done;
        }

        @Override
        public void checkpointCompleted(long checkpointId) throws IOException {
            if (abandonedCleaned) {
                return;
            }
            abandonedCleaned = true;
            String mine = ".part-" + subtask + "-" + token + "-";
            try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".part-*" + IN_PROGRESS_SUFFIX)) {
                for (Path f : files) {
                    String name = f.getFileName().toString();
                    if (!name.startsWith(mine) && ownedBySubtask(name) && !restoredInProgress.contains(f.toString())) {
                        LOG.info("Exactly-once file sink: deleting {}, begun by an earlier attempt after the checkpoint"
                                + " this subtask restored from; its records are written again", f);
                        Files.deleteIfExists(f);
                    }
                }
            }
        }

        /** In-progress files of subtask {@code x} belong to this subtask when {@code x % parallelism == subtask}. */
        private boolean ownedBySubtask(String name) {
            int end = name.indexOf('-', ".part-".length());
            if (end < 0) {
                return false;
            }
            try {
                return Integer.parseInt(name.substring(".part-".length(), end)) % parallelism == subtask;
            } catch (NumberFormatException e) {
                return false;
            }
        }

        private void openNext() throws IOException {
            String base = "part-" + subtask + "-" + token + "-" + counter++;
            currentFinal = dir.resolve(base);
            currentInProgress = dir.resolve("." + base + IN_PROGRESS_SUFFIX);
            channel = FileChannel.open(currentInProgress, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            out = new java.io.BufferedOutputStream(Channels.newOutputStream(channel), 64 * 1024);
            currentBytes = 0;
            currentOpenedAt = clock.relativeTimeMillis();
        }

        private void closeCurrent() throws IOException {
            if (out == null) {
                return;
            }
            out.flush();
            channel.force(true); // durable before the checkpoint that will commit it can complete
            out.close();
            closedSinceBarrier.add(new PartFile(currentInProgress.toString(), currentFinal.toString(), currentBytes));
            out = null;
            channel = null;
        }

        @Override
        public void close() throws IOException {
            if (out != null) {
                OutputStream o = out;
                out = null;
                o.close(); // an uncommitted in-progress file: invisible, deleted by the next attempt
            }
        }
    }

    /** Writes {@link PartFile}s into checkpoints: version byte 1, in-progress path, final path, length. */
    static final class PartFileSerializer implements TypeSerializer<PartFile> {
        private static final long serialVersionUID = 1L;

        @Override
        public void serialize(PartFile value, DataOutputBuffer out) {
            out.writeByte(1);
            out.writeUTF(value.inProgressPath());
            out.writeUTF(value.finalPath());
            out.writeLong(value.length());
        }

        @Override
        public PartFile deserialize(DataInputBuffer in) {
            int version = in.readByte();
            if (version != 1) {
                throw new IllegalStateException("Exactly-once file sink: unknown committable format version " + version);
            }
            return new PartFile(in.readUTF(), in.readUTF(), in.readLong());
        }

        @Override
        public String typeName() {
            return "PartFile";
        }
    }

    /** Settings of an {@link ExactlyOnceFileSink}. */
    public static final class Builder<T> {
        private final String directory;
        private long maxPartBytes = DEFAULT_MAX_PART_BYTES;
        private Duration rolloverInterval = DEFAULT_ROLLOVER_INTERVAL;
        private LineEncoder<T> encoder;
        private Clock clock = SystemClock.INSTANCE;

        private Builder(String directory) {
            Objects.requireNonNull(directory, "ExactlyOnceFileSink: the directory must not be null");
            if (directory.isBlank()) {
                throw new IllegalArgumentException("ExactlyOnceFileSink: the directory is blank; pass the directory"
                        + " to write part files into");
            }
            this.directory = directory;
        }

        /** Roll to a new part file once the current one holds this many bytes (default 128 MiB). */
        public Builder<T> maxPartBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("ExactlyOnceFileSink: maxPartBytes must be at least 1, was " + bytes);
            }
            this.maxPartBytes = bytes;
            return this;
        }

        /** Roll to a new part file once the current one is this old (default 15 minutes). */
        public Builder<T> rolloverInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("ExactlyOnceFileSink: rolloverInterval must be positive, was "
                        + interval);
            }
            this.rolloverInterval = interval;
            return this;
        }

        /** How a record becomes a line (default: {@code String.valueOf(record)}). */
        public Builder<T> encoder(LineEncoder<T> encoder) {
            this.encoder = Objects.requireNonNull(encoder, "encoder");
            return this;
        }

        /** The clock of the time-based roll, for tests; not serialized with the job graph (deployed: the system clock). */
        public Builder<T> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public ExactlyOnceFileSink<T> build() {
            return new ExactlyOnceFileSink<>(this);
        }
    }
}
