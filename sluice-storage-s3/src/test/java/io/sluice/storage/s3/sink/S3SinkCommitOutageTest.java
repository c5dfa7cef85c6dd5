package io.sluice.storage.s3.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.functions.FakeRuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkWriter;
import io.sluice.operators.CommitStats;
import io.sluice.operators.PendingCommits;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import io.sluice.util.SystemClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * S3 refusing connections (a {@link TcpFaultProxy} before S3Proxy) while the sink's commit runs on the
 * commit path the task uses ({@link PendingCommits}, retrying with backoff): the commit fails, saying why,
 * is retried, and completes once S3 answers again; a restore then commits it again without a duplicate.
 */
class S3SinkCommitOutageTest {
    private static final String BUCKET = "outage-bucket";
    private static CountingS3Proxy s3;

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

    @Test
    void aCommitWhileS3RefusesConnectionsIsRetriedAndLandsOnceAfterTheHeal() throws Exception {
        List<String> lines = IntStream.range(0, 500).mapToObj(i -> "record " + i).toList();
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", s3.port())) {
            S3ExactlyOnceFileSink<String> sink = S3ExactlyOnceFileSink.<String>builder("s3://" + BUCKET + "/out")
                    .maxPartFileBytes(2_000).s3Options(CountingS3Proxy.sinkOptions(proxy.httpEndpoint())).build();
            List<S3PartFile> files;
            try (SinkWriter<String, S3PartFile> writer = sink.createWriter(new FakeRuntimeContext(0, 1), List.of())) {
                for (String l : lines) {
                    writer.write(l);
                }
                files = writer.preCommit(1);
            }
            assertThat(files).hasSizeGreaterThan(1);
            int completedBefore = s3.completed.get();

            proxy.refuseConnections();
            Committer<S3PartFile> committer = sink.createCommitter(new FakeRuntimeContext(0, 1));
            PendingCommits<S3PartFile> commits = new PendingCommits<>("s3 sink (1/1)", committer,
                    PendingCommits.CommitThread.of(Executors.newSingleThreadScheduledExecutor()), SystemClock.INSTANCE);
            try {
                commits.add(1, files);
                commits.commitUpTo(1);
                await("commit retries during the outage").atMost(Duration.ofSeconds(30))
                        .until(() -> commits.stats().commitRetries() >= 2);
                CommitStats during = commits.stats();
                System.out.println("S3 sink commit during the outage: " + during);
                assertThat(during.pendingCommittables()).isEqualTo(files.size());
                assertThat(during.lastCommitError()).contains("Connection refused").contains("complete upload")
                        .contains("s3://" + BUCKET + "/out/part-0-");
                assertThat(s3.visibleKeys(BUCKET, "out/")).as("nothing visible while S3 refuses").isEmpty();

                proxy.heal();
                long healed = System.nanoTime();
                await("commits after the heal").atMost(Duration.ofSeconds(30))
                        .until(() -> commits.stats().pendingCommittables() == 0);
                assertThat(commits.stats().committed()).isEqualTo(files.size());
                System.out.printf("S3 sink: committed %d part files %d ms after the heal%n", files.size(),
                        (System.nanoTime() - healed) / 1_000_000);
            } finally {
                commits.close();
                committer.close();
            }
            assertThat(s3.completed.get() - completedBefore).isEqualTo(files.size());
            assertThat(s3.visibleLines(BUCKET, "out/")).isEqualTo(lines);

            // a restore of checkpoint 1 commits its part files again: recognised as done, nothing twice
            Committer<S3PartFile> again = sink.createCommitter(new FakeRuntimeContext(0, 1));
            PendingCommits<S3PartFile> restored = new PendingCommits<>("s3 sink (1/1)", again,
                    PendingCommits.CommitThread.of(Executors.newSingleThreadScheduledExecutor()), SystemClock.INSTANCE);
            try {
                long restoring = System.nanoTime();
                restored.restore(1, files.stream().map(f -> new PendingCommits.Entry<>(1L, f, 0)).toList());
                await().atMost(Duration.ofSeconds(30)).until(() -> restored.stats().pendingCommittables() == 0);
                System.out.printf("S3 sink: restored part files recognised as committed in %d ms%n",
                        (System.nanoTime() - restoring) / 1_000_000);
                assertThat(restored.stats().commitRetries()).isZero();
            } finally {
                restored.close();
                again.close();
            }
            assertThat(s3.completed.get() - completedBefore).isEqualTo(files.size());
            assertThat(s3.visibleLines(BUCKET, "out/")).isEqualTo(lines);
        }
    }

    @Test
    void aCleanupWhileS3RefusesConnectionsDoesNotFailTheTaskAndIsDoneAfterTheNextCheckpoint() throws Exception {
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", s3.port())) {
            S3ExactlyOnceFileSink<String> sink = S3ExactlyOnceFileSink.<String>builder("s3://" + BUCKET + "/cleanup")
                    .s3Options(CountingS3Proxy.sinkOptions(proxy.httpEndpoint())).build();
            SinkWriter<String, S3PartFile> crashed = sink.createWriter(new FakeRuntimeContext(0, 1), List.of());
            crashed.write("never committed");
            crashed.preCommit(1); // checkpoint 1 never completes; the attempt dies without closing its writer
            assertThat(s3.openUploads(BUCKET, "cleanup/")).hasSize(1);
            int abortedBefore = s3.aborted.get();
            try (SinkWriter<String, S3PartFile> next = sink.createWriter(new FakeRuntimeContext(0, 1), List.of())) {
                proxy.refuseConnections();
                next.checkpointCompleted(2); // must not throw: leftovers never fail the job
                assertThat(s3.aborted.get()).isEqualTo(abortedBefore);
                proxy.heal();
                next.checkpointCompleted(3);
                assertThat(s3.aborted.get() - abortedBefore).isEqualTo(1);
                assertThat(s3.openUploads(BUCKET, "cleanup/")).isEmpty();
            }
        }
    }
}
