package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.DataStream;
import io.sluice.api.errors.KeyedStateUnavailableException;
import io.sluice.core.serialization.MissingSerializerException;
import io.sluice.api.errors.NullKeyException;
import io.sluice.api.errors.StateKindConflictException;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors in a job that no restart can fix fail it at its first failure, with the cause in its
 * result, instead of running through the restart strategy: with the DEFAULT restart strategy
 * (which restarts without limit) each of these jobs would otherwise never end.
 */
class UnrecoverableJobErrorITCase {
    @TempDir
    Path dir;
    private LocalCluster cluster;
    private CollectingSink<Object> sink;

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().build();
        sink = CollectingSink.create();
    }

    @AfterEach
    void stop() {
        cluster.close();
        sink.release();
    }

    /**
     * A value type without a serializer: a plain class (records, enums and UUIDs have built-in
     * serializers; Sluice never falls back to Java serialization).
     */
    static final class Point implements java.io.Serializable {
        final long x;
        final long y;

        Point(long x, long y) {
            this.x = x;
            this.y = y;
        }
    }

    @Test
    void aValueTypeWithoutASerializer() throws Exception {
        assertFailsAtOnce(numbers -> numbers.map((MapFunction<Long, Object>) v -> new Point(v, v)).rebalance(),
                MissingSerializerException.class, "No serializer for values of");
    }

    @Test
    void aNullKey() throws Exception {
        assertFailsAtOnce(numbers -> numbers.keyBy(v -> (Long) null).map(v -> (Object) v),
                NullKeyException.class, "keys must not be null");
    }

    @Test
    void keyedStateWithoutKeyBy() throws Exception {
        assertFailsAtOnce(numbers -> numbers.map(new UsesState(false)).returns(Serializers.LONG).map(v -> (Object) v),
                KeyedStateUnavailableException.class, "keyBy");
    }

    @Test
    void twoStateKindsUnderOneName() throws Exception {
        assertFailsAtOnce(numbers -> numbers.keyBy(v -> v % 4).map(new UsesState(true)).returns(Serializers.LONG)
                        .map(v -> (Object) v),
                StateKindConflictException.class, "'count'");
    }

    /** Declares keyed state "count" in open(); with {@code twoKinds} also a list state of the same name. */
    static final class UsesState implements MapFunction<Long, Long>, RichFunction {
        private final boolean twoKinds;

        UsesState(boolean twoKinds) {
            this.twoKinds = twoKinds;
        }

        @Override
        public void open(RuntimeContext context) {
            context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            if (twoKinds) {
                context.getListState(new ListStateDescriptor<>("count", Serializers.LONG));
            }
        }

        @Override
        public Long map(Long value) {
            return value;
        }
    }

    private void assertFailsAtOnce(Function<DataStream<Long>, DataStream<Object>> job,
                                   Class<? extends Throwable> cause, String message) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.toString());
        assertThat(env.jobConfig().restartStrategy()).as("the default restart strategy")
                .isEqualTo(io.sluice.config.RestartStrategyConfig.defaults());
        job.apply(env.fromSource(SequenceSource.unbounded(0).withRate(1_000), "numbers")).addSink(sink, "out");
        JobId id = cluster.submit(env.buildJobGraph(cause.getSimpleName()));

        JobResult result = cluster.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS);

        assertThat(result.status()).isEqualTo(JobStatus.FAILED);
        assertThat(result.failureMessage()).startsWith(cause.getName()).contains(message);
        assertThat(result.failureStackTrace()).contains(cause.getName());
        JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
        assertThat(d.restarts()).as("no restart spent on an error a restart cannot fix").isZero();
        assertThat(d.restartHistory().recent()).isEmpty();
    }
}
