package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.CheckpointListener;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.functions.SnapshotListener;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sinks hear of a checkpoint before their task snapshots (to make buffered output durable) and
 * again when it completes, in that order.
 */
class SnapshotListenerITCase {
    static final Map<String, List<String>> EVENTS = new ConcurrentHashMap<>();

    @TempDir
    Path dir;

    @Test
    void everyCompletedCheckpointWasAnnouncedToTheSinkBeforeItsSnapshot() throws Exception {
        String id = UUID.randomUUID().toString();
        EVENTS.put(id, new CopyOnWriteArrayList<>());
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.toString());
            env.fromSource(SequenceSource.bounded(0, 9_999).withRate(20_000), "numbers").addSink(new RecordingSink(id));
            JobResult result = cluster.executeAndWait(env.buildJobGraph("snapshot listener"), Duration.ofMinutes(1));
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        }
        List<String> events = EVENTS.remove(id);
        List<String> completed = events.stream().filter(e -> e.startsWith("complete ")).toList();
        assertThat(completed).as("checkpoints completed while the job ran").isNotEmpty();
        for (String c : completed) {
            String checkpoint = c.substring("complete ".length());
            assertThat(events.indexOf("before " + checkpoint)).as("announced before checkpoint " + checkpoint)
                    .isBetween(0, events.indexOf(c) - 1);
        }
    }

    /** Records the checkpoint callbacks it gets. */
    static final class RecordingSink implements SinkFunction<Long>, SnapshotListener, CheckpointListener {
        private final String id;

        RecordingSink(String id) {
            this.id = id;
        }

        @Override
        public void invoke(Long value) {
        }

        @Override
        public void beforeCheckpoint(long checkpointId) {
            EVENTS.get(id).add("before " + checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            EVENTS.get(id).add("complete " + checkpointId);
        }
    }
}
