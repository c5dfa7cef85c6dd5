package io.sluice.storage.s3.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.functions.FakeRuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkUnavailableException;
import io.sluice.api.sink.SinkWriter;
import io.sluice.config.Configuration;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.storage.s3.S3Options;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The S3 exactly-once file sink's writer and committer against a real S3 (S3Proxy in this JVM): rolling
 * by size, by time and at barriers; files of several parts; nothing visible before the commit; uploads of
 * a failed attempt aborted after a restore; idempotent commits.
 */
class S3ExactlyOnceFileSinkTest {
    private static final String BUCKET = "sink-bucket";
    private static CountingS3Proxy s3;
    private static int prefixes;

    @org.junit.jupiter.api.io.TempDir
    static java.nio.file.Path s3Directory;

    @BeforeAll
    static void start() throws Exception {
        s3 = new CountingS3Proxy(BUCKET, s3Directory);
        CountingS3Proxy.credentialsAsSystemProperties();
    }

    @AfterAll
    static void stop() throws Exception {
        CountingS3Proxy.clearCredentials();
        s3.close();
    }

    private static String freshPrefix() {
        return "out" + (++prefixes);
    }

    private static S3ExactlyOnceFileSink.Builder<String> sink(String prefix) {
        return S3ExactlyOnceFileSink.<String>builder("s3://" + BUCKET + "/" + prefix)
                .s3Options(CountingS3Proxy.sinkOptions(s3.endpoint()));
    }

    private static List<String> lines(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "line " + i).toList();
    }

    @Test
    void nothingIsVisibleBeforeTheCommitAndEachLineOnceAfter() throws Exception {
        String prefix = freshPrefix();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).build();
        try (SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
            for (String l : lines(0, 100)) {
                writer.write(l);
            }
            List<S3PartFile> files = writer.preCommit(1);
            assertThat(files).hasSize(1);
            assertThat(files.get(0).key()).matches(prefix + "/part-0-[0-9a-f]{8}-0");
            assertThat(s3.visibleKeys(BUCKET, prefix + "/")).as("pre-committed, not visible").isEmpty();
            assertThat(s3.openUploads(BUCKET, prefix + "/")).containsExactly(files.get(0).key());
            committer.commit(files.get(0));
            assertThat(s3.visibleLines(BUCKET, prefix + "/")).isEqualTo(lines(0, 100));
            assertThat(s3.openUploads(BUCKET, prefix + "/")).isEmpty();
            assertThat(writer.preCommit(2)).as("nothing written since the last barrier").isEmpty();
        }
    }

    /**
     * S3 created the upload but its answer was lost (answers held back by a proxy past the client's timeouts, as
     * when a connection drops after S3 acted; found by S3ExactlyOnceFileSinkITCase's outage test): the writer never
     * learnt those upload ids and created the upload again at a later barrier, so the lost ones stayed open for
     * good (its clean-up skips its own uploads). Now it aborts every other upload of that key once a create
     * succeeds again.
     */
    @Test
    void uploadsCreatedWhoseAnswerWasLostAreAbortedOnceACreateOfTheFileSucceeds() throws Exception {
        String prefix = freshPrefix();
        try (io.sluice.storage.s3.testing.TcpFaultProxy proxy =
                     new io.sluice.storage.s3.testing.TcpFaultProxy("127.0.0.1", s3.port())) {
            S3ExactlyOnceFileSink<String> sink = sink(prefix).s3Options(CountingS3Proxy.sinkOptions(proxy.httpEndpoint())
                    .set(S3Options.API_CALL_ATTEMPT_TIMEOUT, Duration.ofMillis(500))
                    .set(S3Options.API_CALL_TIMEOUT, Duration.ofSeconds(3))).build();
            try (SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
                 Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
                for (String l : lines(0, 100)) {
                    writer.write(l);
                }
                proxy.setDelay(io.sluice.storage.s3.testing.TcpFaultProxy.Direction.TO_CLIENT, Duration.ofMinutes(1),
                        Duration.ZERO);
                assertThatThrownBy(() -> writer.preCommit(1)).as("no answer to the create")
                        .hasMessageContaining("create upload");
                proxy.heal();
                assertThat(s3.openUploads(BUCKET, prefix + "/")).as("uploads S3 created, answers lost").isNotEmpty();
                List<S3PartFile> files = writer.preCommit(2);
                assertThat(files).hasSize(1);
                committer.commit(files.get(0));
                assertThat(s3.visibleLines(BUCKET, prefix + "/")).isEqualTo(lines(0, 100));
                assertThat(s3.openUploads(BUCKET, prefix + "/")).as("open uploads after the commit").isEmpty();
            }
        }
    }

    @Test
    void rollsBySizeAndUploadsFullPartsAsTheyFill() throws Exception {
        String prefix = freshPrefix();
        long partSize = 5L << 20;
        S3ExactlyOnceFileSink<String> sink = sink(prefix).maxPartFileBytes(12L << 20)
                .s3Options(CountingS3Proxy.sinkOptions(s3.endpoint()).set(S3Options.PART_SIZE, partSize)).build();
        String line = "x".repeat(1023); // 1 KiB with the line break
        int perFile = 12 * 1024;
        try (SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
            for (int i = 0; i < perFile * 2 + 10; i++) {
                writer.write(line);
            }
            List<S3PartFile> files = writer.preCommit(1);
            assertThat(files).extracting(S3PartFile::length).containsExactly(12L << 20, 12L << 20, 10L * 1024);
            // 12 MiB = two full 5 MiB parts and a last part of 2 MiB
            assertThat(files.get(0).parts()).extracting(S3PartFile.Part::number).containsExactly(1, 2, 3);
            assertThat(files.get(2).parts()).hasSize(1);
            for (S3PartFile f : files) {
                committer.commit(f);
            }
            List<String> visible = s3.visibleLines(BUCKET, prefix + "/");
            assertThat(visible).hasSize(perFile * 2 + 10).containsOnly(line);
            assertThat(s3.visibleKeys(BUCKET, prefix + "/")).hasSize(3);
        }
    }

    @Test
    void rollsByTime() throws Exception {
        String prefix = freshPrefix();
        ManualClock clock = new ManualClock();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).rolloverInterval(Duration.ofSeconds(10)).clock(clock).build();
        try (SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
            writer.write("a");
            clock.advance(Duration.ofSeconds(9));
            writer.write("b");
            clock.advance(Duration.ofSeconds(1));
            writer.write("c"); // the file is 10 s old: a new one
            clock.advance(Duration.ofSeconds(5));
            writer.write("d");
            List<S3PartFile> files = writer.preCommit(1);
            assertThat(files).extracting(S3PartFile::length).containsExactly(4L, 4L);
            for (S3PartFile f : files) {
                committer.commit(f);
            }
            assertThat(s3.visibleLines(BUCKET, prefix + "/")).containsExactly("a", "b", "c", "d");
        }
    }

    @Test
    void uploadsCreatedByACreateWhoseAnswerWasLostAreAbortedOnceTheRetryCreatesTheFilesUpload() throws Exception {
        String prefix = freshPrefix();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).build();
        try (SinkWriter<String, S3PartFile> writer = writerOfTenLines(sink);
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
            s3.loseCreateAnswers.set(true);
            int lostBefore = s3.lostCreates.get();
            int abortedBefore = s3.aborted.get();
            try {
                assertThatThrownBy(() -> writer.preCommit(1)).as("the barrier's upload fails: the checkpoint is declined")
                        .isInstanceOf(SinkUnavailableException.class).hasMessageContaining("kept for the next");
            } finally {
                s3.loseCreateAnswers.set(false);
            }
            int lost = s3.lostCreates.get() - lostBefore;
            assertThat(lost).as("uploads S3 created whose ids the writer never learned").isPositive();
            assertThat(s3.openUploads(BUCKET, prefix + "/")).hasSize(lost);

            List<S3PartFile> files = writer.preCommit(2); // the same part file, kept from the failed barrier
            assertThat(s3.aborted.get() - abortedBefore).as("the orphans are aborted").isEqualTo(lost);
            commitTheOnlyOpenUpload(committer, prefix, files);
        }
    }

    /**
     * The SDK retries a create whose answer was lost (HTTP 500 here; a connection cut or an attempt timeout on S3)
     * and the retry succeeds: the call succeeds, but the first attempt's upload exists too. It was left open for
     * ever before the writer counted the create's attempts.
     */
    @Test
    void anUploadCreatedByACreateAttemptTheSdkRetriedIsAbortedOnceTheRetrySucceeds() throws Exception {
        String prefix = freshPrefix();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).build();
        try (SinkWriter<String, S3PartFile> writer = writerOfTenLines(sink);
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
            int lostBefore = s3.lostCreates.get();
            int abortedBefore = s3.aborted.get();
            s3.createAnswersToLose.set(1);
            List<S3PartFile> files;
            try {
                files = writer.preCommit(1); // the SDK's second attempt creates the upload the writer learns of
            } finally {
                s3.createAnswersToLose.set(0);
            }
            assertThat(s3.lostCreates.get() - lostBefore).as("the first attempt's upload, its answer lost").isOne();
            assertThat(s3.aborted.get() - abortedBefore).as("the first attempt's upload is aborted").isOne();
            commitTheOnlyOpenUpload(committer, prefix, files);
        }
    }

    /** A writer of subtask 0 of 1 that has written {@code lines(0, 10)}, none of them uploaded yet. */
    private static SinkWriter<String, S3PartFile> writerOfTenLines(S3ExactlyOnceFileSink<String> sink)
            throws Exception {
        SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
        for (String l : lines(0, 10)) {
            writer.write(l);
        }
        return writer;
    }

    /**
     * {@code files}, pre-committed from {@link #writerOfTenLines}, is one part file whose upload is the only one open
     * under the prefix; once committed no upload is left open and its lines are visible.
     */
    private void commitTheOnlyOpenUpload(Committer<S3PartFile> committer, String prefix, List<S3PartFile> files)
            throws Exception {
        assertThat(files).hasSize(1);
        assertThat(s3.openUploads(BUCKET, prefix + "/")).containsExactly(files.get(0).key());
        committer.commit(files.get(0));
        assertThat(s3.openUploads(BUCKET, prefix + "/")).as("no upload lingers").isEmpty();
        assertThat(s3.visibleLines(BUCKET, prefix + "/")).isEqualTo(lines(0, 10));
    }

    @Test
    void aWriterClosedBeforeTheRetryAbortsTheUploadsACreateWhoseAnswerWasLostLeft() throws Exception {
        String prefix = freshPrefix();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).build();
        SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
        writer.write("a line");
        s3.loseCreateAnswers.set(true);
        try {
            assertThatThrownBy(() -> writer.preCommit(1)).isInstanceOf(SinkUnavailableException.class);
        } finally {
            s3.loseCreateAnswers.set(false);
        }
        assertThat(s3.openUploads(BUCKET, prefix + "/")).as("an upload the writer never learned of").isNotEmpty();

        writer.close(); // cancelled, say, before the next barrier

        assertThat(s3.openUploads(BUCKET, prefix + "/")).as("no upload lingers").isEmpty();
    }

    @Test
    void afterARestoreTheUploadsAFailedAttemptBeganAfterTheCheckpointAreAborted() throws Exception {
        String prefix = freshPrefix();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).maxPartFileBytes(64).build();
        // the failed attempt: subtasks 0 and 1 of 2; checkpoint 1 pre-committed, then more uploads, then a crash
        SinkWriter<String, S3PartFile> crashed0 = sink.createWriter(new FakeRuntimeContext(0, 2), List.of());
        SinkWriter<String, S3PartFile> crashed1 = sink.createWriter(new FakeRuntimeContext(1, 2), List.of());
        for (String l : lines(0, 10)) {
            crashed0.write(l);
            crashed1.write(l);
        }
        List<S3PartFile> checkpoint1 = crashed0.preCommit(1);
        crashed1.preCommit(1);
        for (String l : lines(10, 20)) {
            crashed0.write(l); // rolls every 64 bytes: uploads after checkpoint 1, never committed
        }
        crashed0.preCommit(2); // checkpoint 2 never completes
        for (String l : lines(20, 30)) {
            crashed0.write(l);
        }
        List<String> open = s3.openUploads(BUCKET, prefix + "/");
        int byCrashed0 = (int) open.stream().filter(k -> k.startsWith(prefix + "/part-0-")).count();
        assertThat(byCrashed0).as("uncommitted uploads of the failed attempt exist").isGreaterThan(checkpoint1.size());
        int abortedBefore = s3.aborted.get();

        // the new attempt restores checkpoint 1 of subtask 0 and commits it again
        try (SinkWriter<String, S3PartFile> restored = sink.createWriter(new FakeRuntimeContext(0, 2), checkpoint1);
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 2))) {
            for (S3PartFile f : checkpoint1) {
                committer.commit(f);
            }
            restored.write("after restore");
            List<S3PartFile> mine = restored.preCommit(3);
            restored.write("in progress");
            restored.checkpointCompleted(3);
            assertThat(s3.aborted.get() - abortedBefore).as("aborted uploads of the failed attempt")
                    .isEqualTo(byCrashed0 - checkpoint1.size());
            List<String> stillOpen = s3.openUploads(BUCKET, prefix + "/");
            assertThat(stillOpen).as("subtask 1's pre-committed upload and this attempt's own stay")
                    .contains(mine.get(0).key()).noneMatch(k -> k.startsWith(prefix + "/part-0-")
                            && !k.equals(mine.get(0).key()));
            assertThat(stillOpen).anyMatch(k -> k.startsWith(prefix + "/part-1-"));
            committer.commit(mine.get(0));
        }
        List<String> expected = new ArrayList<>(lines(0, 10));
        expected.add("after restore");
        assertThat(s3.visibleLines(BUCKET, prefix + "/part-0-")).containsExactlyInAnyOrderElementsOf(expected);
        crashed1.close();
        crashed0.close();
    }

    @Test
    void committingAnUploadThatWasCompletedBeforeIsRecognisedAsDone() throws Exception {
        String prefix = freshPrefix();
        S3ExactlyOnceFileSink<String> sink = sink(prefix).maxPartFileBytes(1L << 30).build();
        try (SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
             Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
            for (String l : lines(0, 1000)) {
                writer.write(l);
            }
            S3PartFile file = writer.preCommit(1).get(0);
            committer.commit(file);
            int completed = s3.completed.get();
            // a restore commits the restored checkpoint's committable again, from its serialized form
            S3PartFile restored = roundTrip(file);
            assertThat(restored).isEqualTo(file);
            try (Committer<S3PartFile> afterRestore = sink.createCommitter(new FakeRuntimeContext(0, 1))) {
                afterRestore.commit(restored);
                afterRestore.commit(restored);
            }
            assertThat(s3.completed.get()).isEqualTo(completed);
            assertThat(s3.visibleLines(BUCKET, prefix + "/")).isEqualTo(lines(0, 1000));

            // an object of another length under that key is not taken for this sink's output
            S3PartFile other = new S3PartFile(file.bucket(), file.key(), file.uploadId(), file.parts(), file.length() + 1);
            assertThatThrownBy(() -> committer.commit(other)).hasMessageContaining("exists, but not as this sink"
                    + " pre-committed it").hasMessageContaining("Give each job and each sink its own S3 prefix");
        }
    }

    @Test
    void theBuilderRefusesCredentialsAndBadLocations() {
        Configuration withKeys = CountingS3Proxy.sinkOptions(s3.endpoint()).set(S3Options.SECRET_KEY, "s");
        assertThatThrownBy(() -> S3ExactlyOnceFileSink.builder("s3://bucket/p").s3Options(withKeys))
                .hasMessageContaining("s3.secret-key must not be set on the sink")
                .hasMessageContaining("-Dsluice.s3.access-key");
        assertThatThrownBy(() -> S3ExactlyOnceFileSink.builder("/tmp/out"))
                .hasMessageContaining("must look like s3://bucket/prefix");
        assertThatThrownBy(() -> S3ExactlyOnceFileSink.builder("s3://bucket/a//b"))
                .hasMessageContaining("empty, '.' or '..' segments");
        assertThatThrownBy(() -> S3ExactlyOnceFileSink.builder("s3://bucket/p")
                .s3Options(new Configuration().set(S3Options.PART_SIZE, 1024L)))
                .hasMessageContaining("s3.part-size");
        assertThat(S3ExactlyOnceFileSink.builder("s3://bucket/p/").build().location()).isEqualTo("s3://bucket/p");
    }

    private static S3PartFile roundTrip(S3PartFile file) {
        S3PartFileSerializer serializer = new S3PartFileSerializer();
        DataOutputBuffer out = new DataOutputBuffer(64);
        serializer.serialize(file, out);
        return serializer.deserialize(new DataInputBuffer(java.util.Arrays.copyOf(out.array(), out.position())));
    }
}
