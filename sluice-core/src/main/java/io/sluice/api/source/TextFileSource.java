package io.sluice.api.source;

import io.sluice.api.functions.Collector;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Emits the lines of a UTF-8 text file, without their line terminators. Bounded.
 *
 * <p>The path is resolved where the reader runs, not where the job is built, so the file must exist
 * on every machine that runs a subtask; a missing or unreadable file fails
 * {@link #createReader} with the path in the message.
 *
 * <p>Every subtask reads the whole file; subtask {@code i} of {@code p} emits lines
 * {@code i, i + p, i + 2p, ...} (0-based). A reader's position is the number of lines it has read
 * from the file so far (8 bytes); restoring re-opens the file and skips that many lines, so the file
 * must not change between a checkpoint and a restore.
 *
 * <p>Threading: the source is immutable and may be shared; each reader is confined to its task
 * thread, as {@link SourceReader} requires.
 */
public final class TextFileSource implements Source<String> {
    private static final long serialVersionUID = 1L;

    private final String path;

    public TextFileSource(String path) {
        Objects.requireNonNull(path, "TextFileSource: the file path must not be null");
        if (path.isBlank()) {
            throw new IllegalArgumentException("TextFileSource: the file path is blank; pass the path of a UTF-8 text file");
        }
        this.path = path;
    }

    public String path() {
        return path;
    }

    @Override
    public SourceReader<String> createReader(int subtaskIndex, int parallelism) throws IOException {
        ReaderPositions.checkSubtask(toString(), subtaskIndex, parallelism);
        return new Reader(path, subtaskIndex, parallelism);
    }

    @Override
    public boolean isBounded() {
        return true;
    }

    @Override
    public String toString() {
        return "TextFileSource(" + path + ")";
    }

    static BufferedReader open(String path) throws IOException {
        try {
            return Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IOException("TextFileSource cannot open '" + path + "' (" + e + "): check that the file"
                    + " exists and is readable on the machine that runs this subtask", e);
        }
    }

    /** One subtask's share of the lines. Confined to the task thread. */
    private static final class Reader implements SourceReader<String> {
        private final String path;
        private final String description;
        private final int subtaskIndex;
        private final int stride;
        private BufferedReader in;
        /** Lines read from the file so far, including those that belong to other subtasks. */
        private long linesRead;
        private boolean ended;

        Reader(String path, int subtaskIndex, int parallelism) throws IOException {
            this.path = path;
            this.description = "TextFileSource(" + path + ") subtask " + subtaskIndex + " of " + parallelism;
            this.subtaskIndex = subtaskIndex;
            this.stride = parallelism;
            this.in = open(path);
        }

        @Override
        public int emit(Collector<String> out, int maxRecords) throws IOException {
            if (ended) {
                return END_OF_INPUT;
            }
            int n = 0;
            while (n < maxRecords) {
                String line = readLine();
                if (line == null) {
                    ended = true;
                    return n == 0 ? END_OF_INPUT : n;
                }
                long index = linesRead++;
                if (index % stride == subtaskIndex) {
                    out.collect(line);
                    n++;
                }
            }
            return n;
        }

        private String readLine() throws IOException {
            try {
                return in.readLine();
            } catch (CharacterCodingException e) {
                throw new IOException(description + ": line " + (linesRead + 1) + " is not valid UTF-8 (" + e
                        + "); TextFileSource reads UTF-8 only, so convert the file first", e);
            } catch (IOException e) {
                throw new IOException(description + ": reading line " + (linesRead + 1) + " failed: " + e, e);
            }
        }

        @Override
        public byte[] snapshotPosition() {
            return ReaderPositions.encodeLong(linesRead);
        }

        @Override
        public void restorePosition(byte[] position) throws IOException {
            long restored = ReaderPositions.decodeLong(description, position);
            if (restored < 0) {
                throw new IllegalArgumentException(description + ": restored position " + restored
                        + " is negative; a position counts lines read, so the checkpoint data is corrupt");
            }
            in.close();
            in = open(path);
            linesRead = 0;
            ended = false;
            while (linesRead < restored) {
                if (readLine() == null) {
                    throw new IOException(description + ": the checkpoint says " + restored + " lines were read,"
                            + " but the file now has only " + linesRead + ". The file changed since the checkpoint;"
                            + " restore requires the same file contents");
                }
                linesRead++;
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
